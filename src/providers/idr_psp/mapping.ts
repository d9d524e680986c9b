import { decimalToMinor, minorToDecimal } from '../../domain/money.js';
import { BadReference, type InboundAction, type Money } from '../types.js';
import {
  isTransactionStatus,
  parseProviderTime,
  type RefundEntryWire,
  type TransactionStatus,
  type TransactionWire,
} from './wire.js';

/** What the mapping reads of a notification or a status answer. */
export type StatusFields = Pick<
  TransactionWire,
  | 'transaction_status'
  | 'gross_amount'
  | 'status_message'
  | 'transaction_id'
  | 'fraud_status'
  | 'currency'
  | 'refund_amount'
  | 'refunds'
>;

/** Rupiah amounts: minor units are whole rupiah, the provider writes "10000.00". */
export function toGrossAmount(amountMinor: number): number {
  return Number(minorToDecimal(amountMinor, 'IDR'));
}

/**
 * The one mapping from the provider's transaction_status to what the gateway does.
 * Documented as a table in docs/providers/idr_psp.md; keep both in step.
 */
export function mapTransactionStatus(tx: StatusFields): InboundAction {
  const raw = tx.transaction_status;
  // A status the provider adds later changes nothing until we decide what it means.
  if (!isTransactionStatus(raw)) return { kind: 'none' };
  const status: TransactionStatus = raw;
  switch (status) {
    case 'settlement':
      // A refund the paying wallet declined leaves the transaction settled; its
      // notification names the refund as the last refunds[] entry.
      if (tx.refunds?.at(-1)?.status === 'failed') return refundAction(tx);
      return { kind: 'payment', outcome: 'succeeded', paid: grossPaid(tx) };
    case 'capture':
      // Card captures wait for the fraud screen: challenge is resolved by a later event.
      if (tx.fraud_status === 'challenge') return { kind: 'none' };
      if (tx.fraud_status === 'deny') {
        return { kind: 'payment', outcome: 'failed', errorText: tx.status_message };
      }
      return { kind: 'payment', outcome: 'succeeded', paid: grossPaid(tx) };
    case 'pending':
    case 'authorize':
      return { kind: 'none' };
    // docs/api.md#payment-states: a QR (or VA) that expires unpaid is recorded as failed.
    case 'deny':
    case 'failure':
    case 'expire':
      return { kind: 'payment', outcome: 'failed', errorText: tx.status_message };
    case 'cancel':
      return { kind: 'payment', outcome: 'canceled' };
    case 'refund':
    case 'partial_refund':
      return refundAction(tx);
    case 'chargeback':
    case 'partial_chargeback':
      return chargebackAction(tx);
    default: {
      const unreachable: never = status;
      return unreachable;
    }
  }
}

/**
 * What the buyer paid, as the provider states it: gross_amount in the transaction's
 * currency. An amount that is not one is never read as a payment.
 */
export function grossPaid(tx: Pick<StatusFields, 'gross_amount' | 'currency'>): Money {
  const currency = tx.currency || 'IDR';
  const amountMinor = decimalToMinor(tx.gross_amount, currency);
  if (amountMinor === null) {
    throw new BadReference(`gross_amount ${JSON.stringify(tx.gross_amount)} is not an amount`);
  }
  return { amountMinor, currency };
}

function refundAction(tx: StatusFields): InboundAction {
  const last = tx.refunds?.at(-1);
  const ref = last ? refundRef(last, tx) : tx.transaction_id;
  const failed = last?.status === 'failed';
  // The top-level refund_amount is the total refunded, never the amount of a declined one.
  const amountText = failed ? last.refund_amount : (last?.refund_amount ?? tx.refund_amount);
  const amountMinor =
    amountText === undefined ? null : decimalToMinor(amountText, tx.currency || 'IDR');
  return {
    kind: 'refund',
    outcome: failed ? 'failed' : 'succeeded',
    providerRefundRef: ref,
    ...(amountMinor === null ? {} : { amountMinor }),
    ...(failed ? { errorText: tx.status_message } : {}),
  };
}

/** A charged-back transaction: its keyless refunds[] entries are the bank's chargebacks. */
function isChargedBack(tx: Pick<StatusFields, 'transaction_status'>): boolean {
  return tx.transaction_status === 'chargeback' || tx.transaction_status === 'partial_chargeback';
}

/**
 * Midtrans lists refunds and chargebacks in one refunds[] list; a refund always carries a
 * refund_key (ours, or one Midtrans makes up when none is given), a chargeback none. Only in
 * a charged-back transaction is a keyless entry read as a chargeback; elsewhere it stays a
 * refund named by its refund_chargeback_id.
 */
function isChargebackEntry(entry: RefundEntryWire, tx: StatusFields): boolean {
  return isChargedBack(tx) && !entry.refund_key && entry.status !== 'failed';
}

/**
 * The buyer's bank took money back (D16): a dispute, lost at once since Midtrans runs no
 * dispute process the merchant takes part in through its API. One per transaction
 * (provider_ref = transaction_id), its amount everything charged back so far: the sum of the
 * chargeback entries of refunds[], so a partial_chargeback followed by another chargeback
 * moves the one dispute to the new total. A full chargeback listing no entry took what the
 * refunds left; a partial one without an entry confirms nothing.
 */
export function chargebackAction(tx: StatusFields): InboundAction {
  const currency = tx.currency || 'IDR';
  const entries = (tx.refunds ?? []).filter((e) => isChargebackEntry(e, tx));
  let amountMinor: number | null = 0;
  for (const e of entries) {
    const part = e.refund_amount === undefined ? null : decimalToMinor(e.refund_amount, currency);
    amountMinor = part === null || amountMinor === null ? null : amountMinor + part;
  }
  if (entries.length === 0) {
    amountMinor = tx.transaction_status === 'chargeback' ? leftAfterRefunds(tx, currency) : null;
  }
  if (amountMinor === null || amountMinor <= 0) return { kind: 'none' };
  const first = entries[0]?.created_at;
  return {
    kind: 'dispute',
    providerRef: tx.transaction_id,
    status: 'lost',
    amountMinor,
    currency,
    reason: tx.status_message || tx.transaction_status,
    evidenceDueBy: null,
    openedAt: first ? parseProviderTime(first) : null,
  };
}

/** gross_amount less the refunds listed (or the total refund_amount when none are). */
function leftAfterRefunds(tx: StatusFields, currency: string): number | null {
  const gross = decimalToMinor(tx.gross_amount, currency);
  const listed = (tx.refunds ?? []).filter((e) => e.status !== 'failed');
  const amounts =
    listed.length > 0
      ? listed.map((e) => (e.refund_amount === undefined ? null : e.refund_amount))
      : [tx.refund_amount ?? '0'];
  let refunded: number | null = 0;
  for (const a of amounts) {
    const m = a === null ? null : decimalToMinor(a, currency);
    refunded = m === null || refunded === null ? null : refunded + m;
  }
  return gross === null || refunded === null ? null : gross - refunded;
}

/** Statuses the provider moves a transaction to only after it was paid. */
const AFTER_PAYMENT: readonly string[] = [
  'refund',
  'partial_refund',
  'chargeback',
  'partial_chargeback',
];

/** The provider's name of one listed refund: our refund id when we made it, else its own id. */
function refundRef(entry: RefundEntryWire, tx: Pick<StatusFields, 'transaction_id'>): string {
  return (
    entry.refund_key ||
    (entry.refund_chargeback_id !== undefined ? String(entry.refund_chargeback_id) : '') ||
    tx.transaction_id
  );
}

/**
 * What a status answer confirms, in the order to apply it: the payment's outcome (a
 * transaction refunded or charged back was paid first), then every completed refund it lists
 * (the status API lists completed refunds only, each with its amount), so a second refund
 * made in the provider's dashboard is on record as well as the one the event named. A
 * declined refund appears in its own notification only: it is believed for a refund the
 * answer does not list as completed.
 */
export function confirmedActions(tx: StatusFields, claimed: InboundAction): InboundAction[] {
  const paidFirst = AFTER_PAYMENT.includes(tx.transaction_status);
  const out: InboundAction[] = [
    paidFirst
      ? { kind: 'payment', outcome: 'succeeded', paid: grossPaid(tx) }
      : mapTransactionStatus({ ...tx, refunds: undefined }),
  ];
  const listed = new Set<string>();
  for (const entry of tx.refunds ?? []) {
    // A chargeback is money the bank took, recorded as the dispute below, never a refund.
    if (entry.status === 'failed' || isChargebackEntry(entry, tx)) continue;
    const ref = refundRef(entry, tx);
    const amountMinor =
      entry.refund_amount === undefined
        ? null
        : decimalToMinor(entry.refund_amount, tx.currency || 'IDR');
    if (amountMinor === null) continue;
    listed.add(ref);
    out.push({
      kind: 'refund',
      outcome: 'succeeded',
      providerRefundRef: ref,
      amountMinor,
      onlyByRef: true,
    });
  }
  if (
    claimed.kind === 'refund' &&
    claimed.outcome === 'failed' &&
    !listed.has(claimed.providerRefundRef)
  ) {
    out.push(claimed);
  }
  // Whatever the event claimed, a charged-back transaction is recorded as the answer says.
  if (isChargedBack(tx)) {
    const dispute = chargebackAction(tx);
    if (dispute.kind === 'dispute') out.push(dispute);
  }
  return out;
}
