/**
 * wallet_psp reporting: the account balance (GET /v1/reporting/balances) and payouts to the
 * merchant's bank, found as withdrawal transactions (T0400) by the transaction search
 * (GET /v1/reporting/transactions, at most 31 days per search, paged).
 */
import { decimalToMinor } from '../../domain/money.js';
import type { ProviderBalances, ProviderContext, ProviderPayout } from '../types.js';
import { ProviderError } from '../types.js';
import { apiCall, rejected } from './client.js';
import {
  WP_EVENT_WITHDRAWAL,
  WP_MAX_PAGE_SIZE,
  WP_MAX_SEARCH_DAYS,
  type WpBalancesResponse,
  type WpTransactionInfo,
  type WpTransactionStatus,
  type WpTransactionsResponse,
} from './reportingWire.js';

const DAY_MS = 86_400_000;
/** A runaway paging loop (a provider that never says it is done) stops here. */
const MAX_PAGES = 100;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function unreadable(what: string): ProviderError {
  return new ProviderError('indeterminate', `wallet_psp ${what} answer unreadable`);
}

export function minor(value: string, currency: string, what: string): number {
  const n = decimalToMinor(value.replace(/^-/, ''), currency);
  if (n === null) throw unreadable(what);
  return n;
}

/** The provider's time strings carry an offset (2026-11-22T10:00:00+0000); Date wants a colon. */
export function providerDate(s: string, what: string): Date {
  const t = Date.parse(s.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  if (Number.isNaN(t)) throw unreadable(what);
  return new Date(t);
}

export function providerTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, '+0000');
}

export async function fetchBalances(ctx: ProviderContext): Promise<ProviderBalances> {
  const res = await apiCall(ctx, 'GET', '/v1/reporting/balances');
  if (res.status !== 200) throw rejected(res);
  const body = res.body as Partial<WpBalancesResponse> | null;
  if (!isObject(body) || !Array.isArray(body.balances) || typeof body.as_of_time !== 'string') {
    throw unreadable('balances');
  }
  return {
    asOf: providerDate(body.as_of_time, 'balances'),
    balances: body.balances.map((b) => {
      const money = b.available_balance ?? b.total_balance;
      if (!money || typeof money.value !== 'string') throw unreadable('balances');
      return { currency: b.currency, availableMinor: minor(money.value, b.currency, 'balances') };
    }),
  };
}

const STATUS: Record<WpTransactionStatus, ProviderPayout['status']> = {
  S: 'succeeded',
  P: 'pending',
  V: 'reversed',
  D: 'denied',
};

function payout(t: WpTransactionInfo): ProviderPayout {
  const status = STATUS[t.transaction_status];
  if (!status || !t.transaction_amount) throw unreadable('transactions');
  const currency = t.transaction_amount.currency_code;
  return {
    id: t.transaction_id,
    status,
    currency,
    amountMinor: minor(t.transaction_amount.value, currency, 'transactions'),
    initiatedAt: providerDate(t.transaction_initiation_date, 'transactions'),
    updatedAt: providerDate(t.transaction_updated_date, 'transactions'),
  };
}

/**
 * Payouts initiated in [since, until), oldest first. The search takes whole seconds with an
 * inclusive end: each window is widened to whole seconds, and the answers are deduplicated
 * and cut to the exact window here.
 */
export async function listPayouts(
  ctx: ProviderContext,
  since: Date,
  until: Date,
): Promise<ProviderPayout[]> {
  const out = new Map<string, ProviderPayout>();
  // A minute short of the limit, so the widening to whole seconds never passes it.
  const span = WP_MAX_SEARCH_DAYS * DAY_MS - 60_000;
  for (let from = since.getTime(); from < until.getTime(); from += span) {
    const to = Math.min(from + span, until.getTime());
    for (let page = 1; page <= MAX_PAGES; page++) {
      const q = new URLSearchParams({
        start_date: providerTime(new Date(Math.floor(from / 1000) * 1000)),
        end_date: providerTime(new Date(Math.ceil(to / 1000) * 1000)),
        transaction_type: WP_EVENT_WITHDRAWAL,
        fields: 'transaction_info',
        page_size: String(WP_MAX_PAGE_SIZE),
        page: String(page),
      });
      const res = await apiCall(ctx, 'GET', `/v1/reporting/transactions?${q.toString()}`);
      if (res.status !== 200) throw rejected(res);
      const body = res.body as Partial<WpTransactionsResponse> | null;
      if (!isObject(body) || !Array.isArray(body.transaction_details)) {
        throw unreadable('transactions');
      }
      for (const d of body.transaction_details) {
        if (d.transaction_info?.transaction_event_code === WP_EVENT_WITHDRAWAL) {
          const p = payout(d.transaction_info);
          out.set(p.id, p);
        }
      }
      if (typeof body.total_pages !== 'number' || page >= body.total_pages) break;
    }
  }
  return (
    [...out.values()]
      .filter((p) => p.initiatedAt >= since && p.initiatedAt < until)
      // Stable: payouts of one second keep the provider's order.
      .sort((a, b) => a.initiatedAt.getTime() - b.initiatedAt.getTime())
  );
}
