/**
 * wallet_psp's record for reconciliation (docs/providers/wallet_psp.md#reconciliation): the
 * payments (T00xx), refunds (T1107) and dispute movements (T1106, T1110, T1111, T1201, T1202)
 * of a window, read from PayPal's transaction search
 * (GET /v1/reporting/transactions) page by page. A window whose result set the provider
 * refuses as too large (RESULTSET_TOO_LARGE) is searched again in halves.
 */
import type { ProviderMovementStatus } from '../../domain/reconciliation.js';
import type { ProviderContext, ProviderMovement } from '../types.js';
import { apiCall, rejected } from './client.js';
import { minor, providerDate, providerTime, unreadable } from './reporting.js';
import {
  WP_DISPUTE_EVENTS,
  WP_EVENT_REFUND,
  WP_MAX_PAGE_SIZE,
  WP_MAX_SEARCH_DAYS,
  type WpTransactionInfo,
  type WpTransactionsResponse,
} from './reportingWire.js';

const DAY_MS = 86_400_000;
/** A runaway paging loop (a provider that never says it is done) stops here. */
const MAX_PAGES = 1000;

const STATUS: Record<string, ProviderMovementStatus> = {
  S: 'completed',
  P: 'pending',
  V: 'reversed',
  D: 'failed',
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function tooLarge(body: unknown): boolean {
  return isObject(body) && body.name === 'RESULTSET_TOO_LARGE';
}

/** One transaction as a movement; null for kinds reconciliation does not compare (payouts...). */
export function movementOf(t: WpTransactionInfo): ProviderMovement | null {
  const code = t.transaction_event_code;
  const type =
    code === WP_EVENT_REFUND
      ? 'refund'
      : WP_DISPUTE_EVENTS.includes(code)
        ? 'dispute'
        : /^T00\d\d$/.test(code)
          ? 'charge'
          : null;
  if (type === null) return null;
  const status = STATUS[t.transaction_status];
  if (!status || !isObject(t.transaction_amount) || typeof t.transaction_id !== 'string') {
    throw unreadable('transactions');
  }
  const currency = t.transaction_amount.currency_code;
  const value = t.transaction_amount.value;
  const amount = minor(value, currency, 'transactions');
  let fee: number | null = null;
  if (t.fee_amount) {
    const f = minor(t.fee_amount.value, t.fee_amount.currency_code, 'transactions');
    // The fee's sign is its effect on the balance: taken (negative) is a fee kept.
    fee = t.fee_amount.value.startsWith('-') ? f : -f;
  }
  return {
    type,
    providerRef: t.transaction_id,
    ...(t.custom_field ? { paymentId: t.custom_field } : {}),
    status,
    currency,
    amountMinor: value.startsWith('-') ? -amount : amount,
    feeMinor: fee,
    occurredAt: providerDate(t.transaction_initiation_date, 'transactions'),
  };
}

async function searchWindow(
  ctx: ProviderContext,
  from: number,
  to: number,
  out: Map<string, ProviderMovement>,
): Promise<void> {
  for (let page = 1; page <= MAX_PAGES; page++) {
    const q = new URLSearchParams({
      start_date: providerTime(new Date(from)),
      end_date: providerTime(new Date(to)),
      fields: 'transaction_info',
      page_size: String(WP_MAX_PAGE_SIZE),
      page: String(page),
    });
    const res = await apiCall(ctx, 'GET', `/v1/reporting/transactions?${q.toString()}`);
    if (res.status === 400 && tooLarge(res.body) && to - from > 1000) {
      const mid = from + Math.floor((to - from) / 2000) * 1000;
      await searchWindow(ctx, from, mid, out);
      await searchWindow(ctx, mid + 1000, to, out);
      return;
    }
    if (res.status !== 200) throw rejected(res);
    const body = res.body as Partial<WpTransactionsResponse> | null;
    if (!isObject(body) || !Array.isArray(body.transaction_details)) {
      throw unreadable('transactions');
    }
    for (const d of body.transaction_details) {
      const m = d.transaction_info ? movementOf(d.transaction_info) : null;
      if (m) out.set(m.providerRef, m);
    }
    if (typeof body.total_pages !== 'number' || page >= body.total_pages) return;
  }
}

/**
 * Movements initiated in [since, until). The search takes whole seconds with an inclusive
 * end: windows are cut at whole seconds, one second apart, and the answers cut to the exact
 * window here.
 */
export async function listMovements(
  ctx: ProviderContext,
  since: Date,
  until: Date,
): Promise<ProviderMovement[]> {
  const out = new Map<string, ProviderMovement>();
  const span = (WP_MAX_SEARCH_DAYS - 1) * DAY_MS;
  const start = Math.floor(since.getTime() / 1000) * 1000;
  const end = Math.ceil(until.getTime() / 1000) * 1000;
  for (let from = start; from < end; from += span) {
    await searchWindow(ctx, from, Math.min(from + span, end) - 1000, out);
  }
  return [...out.values()].filter((m) => m.occurredAt >= since && m.occurredAt < until);
}
