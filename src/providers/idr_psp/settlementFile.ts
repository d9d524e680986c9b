/**
 * idr_psp's settlement report file (docs/providers/idr_psp.md#settlement-report-file), the
 * provider's record for reconciliation: Midtrans has no report API, its merchant portal
 * exports the day's transactions. Midtrans does not publish the file's columns; the gateway
 * reads the CSV described in docs/providers/idr_psp.md, whose columns carry the names and
 * value formats of Midtrans's transaction fields (order_id, transaction_id, refund_key,
 * payment_type, transaction_status, transaction_time in WIB, gross_amount with ".00").
 * Anything else is refused with the line and the reason; nothing of a refused file is kept.
 */
import type { FileMovement, ProviderMovementStatus } from '../../domain/reconciliation.js';
import { parseProviderTime } from './wire.js';

export const SETTLEMENT_COLUMNS = [
  'order_id',
  'transaction_id',
  'refund_key',
  'transaction_type',
  'payment_type',
  'transaction_status',
  'transaction_time',
  'settlement_time',
  'currency',
  'gross_amount',
  'fee_amount',
  'net_amount',
] as const;

export const SETTLEMENT_HEADER = SETTLEMENT_COLUMNS.join(',');
/** A day of a busy merchant fits many times over; a larger upload is refused. */
export const MAX_SETTLEMENT_ROWS = 2_000_000;

const PAYMENT_STATUS: Record<string, ProviderMovementStatus> = {
  settlement: 'completed',
  capture: 'completed',
  // The charge stands; its refunds and chargebacks are rows (or disputes) of their own.
  refund: 'completed',
  partial_refund: 'completed',
  chargeback: 'completed',
  partial_chargeback: 'completed',
  pending: 'pending',
  authorize: 'pending',
  deny: 'failed',
  cancel: 'failed',
  expire: 'failed',
  failure: 'failed',
};
const REFUND_STATUS: Record<string, ProviderMovementStatus> = {
  settlement: 'completed',
  pending: 'pending',
  failure: 'failed',
  deny: 'failed',
};

/** Midtrans's order_id rule: up to 50 of letters, digits, dash, underscore, tilde, dot. */
const ORDER_ID = /^[A-Za-z0-9\-_~.]{1,50}$/;
const REF = /^[A-Za-z0-9\-_~.]{1,64}$/;
const AMOUNT = /^(0|[1-9]\d{0,14})(\.00)?$/;
const SIGNED_AMOUNT = /^-?(0|[1-9]\d{0,14})(\.00)?$/;
const DAY_MS = 86_400_000;
const WIB_MS = 7 * 3_600_000;

export class SettlementFileError extends Error {}

const fail = (line: number, why: string) =>
  new SettlementFileError(`settlement file line ${line}: ${why}`);

/** One CSV field: bare, or in double quotes (a spreadsheet's re-save) without inner quotes. */
function unquote(f: string): string | null {
  if (!f.includes('"')) return f;
  const m = /^"([^"]*)"$/.exec(f);
  return m ? (m[1] as string) : null;
}

/**
 * Parses a file declared to be of `day` (YYYY-MM-DD). Its rows must fall in the day, read as
 * Midtrans's day in WIB or as a UTC day: [day 00:00 WIB, day+1 00:00 UTC).
 */
export function parseSettlementFile(bytes: Buffer, day: string): FileMovement[] {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new SettlementFileError('settlement file must be UTF-8 text');
  }
  const lines = text.split(/\r?\n/);
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines.length === 0) throw new SettlementFileError('settlement file is empty');
  if (lines[0] !== SETTLEMENT_HEADER) {
    throw new SettlementFileError(
      `not an idr_psp settlement report: the first line must be ${SETTLEMENT_HEADER}`,
    );
  }
  if (lines.length - 1 > MAX_SETTLEMENT_ROWS) {
    throw new SettlementFileError(`settlement file has more than ${MAX_SETTLEMENT_ROWS} rows`);
  }
  const dayStart = Date.parse(`${day}T00:00:00Z`);
  const from = dayStart - WIB_MS;
  const until = dayStart + DAY_MS;
  const seen = new Set<string>();
  const out: FileMovement[] = [];
  for (let i = 1; i < lines.length; i++) {
    const n = i + 1;
    const raw = (lines[i] as string).split(',');
    if (raw.length !== SETTLEMENT_COLUMNS.length) {
      throw fail(n, `expected ${SETTLEMENT_COLUMNS.length} columns, found ${raw.length}`);
    }
    const f = raw.map(unquote);
    if (f.some((v) => v === null)) throw fail(n, 'a field has unbalanced double quotes');
    const [orderId, txId, refundKey, type, paymentType, status, txTime, settleTime, currency] =
      f as string[];
    const [gross, fee, net] = (f as string[]).slice(9);
    if (!ORDER_ID.test(orderId!)) throw fail(n, 'order_id must be 1 to 50 of A-Z a-z 0-9 - _ ~ .');
    if (!REF.test(txId!)) throw fail(n, 'transaction_id must be 1 to 64 of A-Z a-z 0-9 - _ ~ .');
    if (type !== 'payment' && type !== 'refund' && type !== 'chargeback') {
      throw fail(n, 'transaction_type must be payment, refund or chargeback');
    }
    // A chargeback row names its chargeback by Midtrans's refund_chargeback_id.
    const moneyOut = type !== 'payment';
    if (moneyOut ? !REF.test(refundKey!) : refundKey !== '') {
      throw fail(n, 'refund_key must be set on refund and chargeback rows only');
    }
    if (!/^[a-z_]{1,32}$/.test(paymentType!))
      throw fail(n, 'payment_type must be a Midtrans payment type');
    const statuses = type === 'payment' ? PAYMENT_STATUS : REFUND_STATUS;
    const mapped = Object.hasOwn(statuses, status!) ? statuses[status!] : undefined;
    if (!mapped) {
      throw fail(
        n,
        `transaction_status of a ${type} must be one of ${Object.keys(statuses).join(', ')}`,
      );
    }
    const created = parseProviderTime(txTime!);
    if (!created) throw fail(n, 'transaction_time must be YYYY-MM-DD HH:MM:SS (WIB)');
    const settled = settleTime === '' ? null : parseProviderTime(settleTime!);
    if (settled === null && settleTime !== '') {
      throw fail(n, 'settlement_time must be YYYY-MM-DD HH:MM:SS (WIB) or empty');
    }
    if (currency !== 'IDR') throw fail(n, 'currency must be IDR');
    if (!AMOUNT.test(gross!)) throw fail(n, 'gross_amount must be a whole rupiah amount');
    if (!AMOUNT.test(fee!)) throw fail(n, 'fee_amount must be a whole rupiah amount');
    if (!SIGNED_AMOUNT.test(net!)) throw fail(n, 'net_amount must be a whole rupiah amount');
    const grossMinor = Number.parseInt(gross!, 10);
    const feeMinor = Number.parseInt(fee!, 10);
    const signed = moneyOut ? -grossMinor : grossMinor;
    if (Number.parseInt(net!, 10) !== signed - feeMinor) {
      throw fail(
        n,
        `net_amount must be ${moneyOut ? '-gross_amount' : 'gross_amount'} - fee_amount`,
      );
    }
    const at = settled ?? created;
    if (at.getTime() < from || at.getTime() >= until) {
      throw fail(n, `the row's time is not on ${day}`);
    }
    const providerRef = moneyOut ? refundKey! : txId!;
    const key = `${type}:${providerRef}`;
    if (seen.has(key)) throw fail(n, `the ${type} ${providerRef} is listed twice`);
    seen.add(key);
    out.push({
      line: n,
      type: type === 'payment' ? 'charge' : type === 'refund' ? 'refund' : 'dispute',
      providerRef,
      paymentRef: orderId!,
      status: mapped,
      currency: 'IDR',
      amountMinor: signed,
      feeMinor,
      occurredAt: at,
    });
  }
  return out;
}
