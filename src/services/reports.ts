/**
 * The operator's read API (docs/api.md#admin-api, #summary): summary, timeseries, payment and refund lists,
 * payment detail. Figures are computed from the records at request time, so they always agree
 * with the payments and refunds the rest of the gateway writes.
 */
import {
  appNames,
  deliveryAttempts,
  listPaymentRows,
  listRefundRows,
  paymentExists,
  paymentDeliveries,
  paymentDetail,
  paymentRefund,
  refundExists,
  type GroupTotal,
  type RefundListRow,
} from '../db/reports.js';
import { paymentDisputes } from '../db/disputes.js';
import type { Pool, Queryable } from '../db/pool.js';
import { DAY_MS, utcDay, utcDayStart, type Window } from '../domain/adminQuery.js';
import { apiError, notFoundPayment } from '../domain/errors.js';
import { isPaymentId } from '../domain/ids.js';
import type { PaymentSearch } from '../domain/paymentSearch.js';
import { CURRENCY_EXPONENT } from '../domain/money.js';
import { PAYMENT_STATUSES, PROVIDERS, type Mode } from '../domain/types.js';
import { toDisputeView, type DisputeView } from './disputes.js';
import { modeForApp } from './paymentSearch.js';
import { windowSucceededByDay, windowTotals } from './rollup.js';

export const KNOWN_CURRENCIES = Object.keys(CURRENCY_EXPONENT).sort();

/** A sum of minor units: exact at any size; written as a JSON integer by exactJson (D14). */
export type Minor = bigint;

export interface Figures {
  succeeded_count: number;
  succeeded_minor: Minor;
  refunded_count: number;
  refunded_minor: Minor;
  /** The sum of the ledger (docs/api.md#ledger): every movement of money in and out. */
  net_minor: Minor;
  /** What disputes took back, net of the disputes won. */
  disputed_minor: Minor;
  failed_count: number;
  canceled_count: number;
  initiated_count: number;
}

export type CurrencyFigures = { currency: string } & Figures;

export interface AppSummary extends Figures {
  app_id: string;
  app_name: string;
  app_mode: Mode;
  /** The meaningful money figures: by_app's own minor sums add up different currencies. */
  by_currency: CurrencyFigures[];
}

export interface Summary {
  since: string;
  as_of: string;
  mode: Mode | '';
  by_app: AppSummary[];
  by_provider: ({ provider: string } & Figures)[];
  by_currency: CurrencyFigures[];
}

function zero(): Figures {
  return {
    succeeded_count: 0,
    succeeded_minor: 0n,
    refunded_count: 0,
    refunded_minor: 0n,
    net_minor: 0n,
    disputed_minor: 0n,
    failed_count: 0,
    canceled_count: 0,
    initiated_count: 0,
  };
}

function add(f: Figures, g: GroupTotal): void {
  const minor = BigInt(g.minor);
  switch (g.status) {
    case 'succeeded':
      f.succeeded_count += g.n;
      f.succeeded_minor += minor;
      break;
    case 'refunded':
      f.refunded_count += g.n;
      f.refunded_minor += minor;
      break;
    case 'failed':
      f.failed_count += g.n;
      break;
    case 'canceled':
      f.canceled_count += g.n;
      break;
    case 'initiated':
      f.initiated_count += g.n;
      break;
    // The net is the ledger's sum, never succeeded minus refunded: late charges, their
    // refunds and disputes move money that no payment status shows (D16).
    case 'net':
      f.net_minor += minor;
      break;
    case 'disputed':
      f.disputed_minor += minor;
      break;
  }
}

function isEmpty(f: Figures): boolean {
  return (
    f.succeeded_count + f.refunded_count + f.failed_count + f.canceled_count + f.initiated_count ===
      0 &&
    f.net_minor === 0n &&
    f.disputed_minor === 0n
  );
}

function entry<K extends string>(
  map: Map<string, Figures>,
  key: string,
  name: K,
): Record<K, string> & Figures {
  return { [name]: key, ...(map.get(key) ?? zero()) } as Record<K, string> & Figures;
}

function bucket(map: Map<string, Figures>, key: string): Figures {
  let f = map.get(key);
  if (!f) {
    f = zero();
    map.set(key, f);
  }
  return f;
}

/**
 * Totals of the window [since, until): succeeded, failed and canceled payments on the time
 * they reached that status (finalized_at), refunds on the time they succeeded, payments still
 * initiated on the time they were created. by_app lists every app of the mode (all apps
 * without a filter) plus any app with figures; by_provider and by_currency list every known
 * provider and currency, zeros included.
 */
export async function summary(db: Pool, w: Window, mode: Mode | '', asOf: Date): Promise<Summary> {
  const filter = mode === '' ? null : mode;
  const [totals, apps] = await Promise.all([windowTotals(db, w, filter, asOf), appNames(db)]);
  const byApp = new Map<string, { all: Figures; cur: Map<string, Figures> }>();
  const byProvider = new Map<string, Figures>();
  const byCurrency = new Map<string, Figures>();
  for (const g of totals) {
    let a = byApp.get(g.app_id);
    if (!a) {
      a = { all: zero(), cur: new Map() };
      byApp.set(g.app_id, a);
    }
    add(a.all, g);
    add(bucket(a.cur, g.currency), g);
    add(bucket(byProvider, g.provider), g);
    add(bucket(byCurrency, g.currency), g);
  }
  const appList = apps
    .filter((a) => filter === null || a.mode === filter || byApp.has(a.id))
    .map((a): AppSummary => {
      const figures = byApp.get(a.id);
      const cur = figures?.cur ?? new Map<string, Figures>();
      return {
        app_id: a.id,
        app_name: a.name,
        app_mode: a.mode,
        ...(figures?.all ?? zero()),
        by_currency: [...cur.keys()]
          .sort()
          .filter((c) => !isEmpty(cur.get(c) as Figures))
          .map((c) => entry(cur, c, 'currency')),
      };
    });
  const providers = [...new Set([...PROVIDERS, ...byProvider.keys()])].sort();
  const currencies = [...new Set([...KNOWN_CURRENCIES, ...byCurrency.keys()])].sort();
  return {
    since: w.since.toISOString(),
    as_of: asOf.toISOString(),
    mode,
    by_app: appList,
    by_provider: providers.map((p) => entry(byProvider, p, 'provider')),
    by_currency: currencies.map((c) => entry(byCurrency, c, 'currency')),
  };
}

export interface Timeseries {
  days: number;
  mode: Mode | '';
  buckets: { day: string; currency: string; succeeded_count: number; succeeded_minor: Minor }[];
}

/**
 * Succeeded payments per UTC day (finalized_at) and currency over the last `days` calendar
 * days including today. Every day appears for every known currency (and any other currency
 * with payments in the window), zeros included, ordered by day then currency.
 */
export async function timeseries(
  db: Pool,
  days: number,
  mode: Mode | '',
  now: Date,
): Promise<Timeseries> {
  const first = utcDayStart(now).getTime() - (days - 1) * DAY_MS;
  const rows = await windowSucceededByDay(
    db,
    { since: new Date(first), until: now },
    mode === '' ? null : mode,
    now,
  );
  const found = new Map(rows.map((r) => [`${utcDay(new Date(r.day * DAY_MS))} ${r.currency}`, r]));
  const currencies = [...new Set([...KNOWN_CURRENCIES, ...rows.map((r) => r.currency)])].sort();
  const buckets: Timeseries['buckets'] = [];
  for (let i = 0; i < days; i++) {
    const day = utcDay(new Date(first + i * DAY_MS));
    for (const currency of currencies) {
      const r = found.get(`${day} ${currency}`);
      buckets.push({
        day,
        currency,
        succeeded_count: r?.n ?? 0,
        succeeded_minor: BigInt(r?.minor ?? '0'),
      });
    }
  }
  return { days, mode, buckets };
}

export interface PaymentListItem {
  id: string;
  app_id: string;
  mode: Mode;
  status: string;
  amount_minor: number;
  currency: string;
  method: string;
  provider: string;
  provider_ref: string | null;
  invoice_number: string | null;
  last_error: string;
  refund_status: string | null;
  /**
   * What is refunded of the payment: its initiated and succeeded refunds added up (a refund
   * made at the provider beside ours included), else the failed refund's amount.
   */
  refund_amount_minor: number | null;
  created_at: string;
  updated_at: string;
  finalized_at: string | null;
  /** A test-mode payment's metadata.test_scenario (docs/testing.md). */
  test_scenario: string | null;
}

/** Newest first; `before` is the id of the last row of the previous page (docs/api.md#query-parameters). */
export async function listPayments(
  db: Queryable,
  q: {
    mode: Mode | '';
    status: string | null;
    before: string | null;
    limit: number;
    search?: PaymentSearch;
  },
): Promise<{ mode: Mode | ''; payments: PaymentListItem[] }> {
  if (q.status !== null && !(PAYMENT_STATUSES as readonly string[]).includes(q.status)) {
    throw apiError('invalid', `status must be one of ${PAYMENT_STATUSES.join(', ')}`);
  }
  const before = q.before;
  if (before !== null && !(isPaymentId(before) && (await paymentExists(db, before)))) {
    throw apiError('invalid', 'before must be a payment id from a previous page');
  }
  const mode = await modeForApp(db, q.mode === '' ? null : q.mode, q.search?.appId ?? null);
  if (mode === 'none') return { mode: q.mode, payments: [] };
  const rows = await listPaymentRows(db, {
    mode,
    status: q.status,
    before,
    limit: q.limit,
    search: q.search,
  });
  return {
    mode: q.mode,
    payments: rows.map((r) => ({
      id: r.id,
      app_id: r.app_id,
      mode: r.mode,
      status: r.status,
      amount_minor: r.amount_minor,
      currency: r.currency,
      method: r.method,
      provider: r.provider,
      provider_ref: r.provider_ref,
      invoice_number: r.invoice_number,
      last_error: r.last_error,
      refund_status: r.refund_status,
      refund_amount_minor: r.refund_amount_minor,
      created_at: r.created_at.toISOString(),
      updated_at: r.updated_at.toISOString(),
      finalized_at: r.finalized_at?.toISOString() ?? null,
      test_scenario: r.test_scenario,
    })),
  };
}

export interface RefundView {
  id: string;
  payment_id: string;
  app_id: string;
  mode: Mode;
  status: string;
  amount_minor: number;
  currency: string;
  provider: string;
  provider_ref: string | null;
  reason: string;
  last_error: string;
  succeeded_at: string | null;
  created_at: string;
  updated_at: string;
}

function refundView(r: RefundListRow): RefundView {
  return {
    id: r.id,
    payment_id: r.payment_id,
    app_id: r.app_id,
    mode: r.mode,
    status: r.status,
    amount_minor: r.amount_minor,
    currency: r.currency,
    provider: r.provider,
    provider_ref: r.provider_ref,
    reason: r.reason,
    last_error: r.last_error,
    succeeded_at: r.succeeded_at?.toISOString() ?? null,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

export async function listRefunds(
  db: Queryable,
  q: { mode: Mode | ''; before: string | null; limit: number },
): Promise<{ mode: Mode | ''; refunds: RefundView[] }> {
  const before = q.before;
  if (before !== null && !(isPaymentId(before) && (await refundExists(db, before)))) {
    throw apiError('invalid', 'before must be a refund id from a previous page');
  }
  const rows = await listRefundRows(db, {
    mode: q.mode === '' ? null : q.mode,
    before,
    limit: q.limit,
  });
  return { mode: q.mode, refunds: rows.map(refundView) };
}

export interface PaymentDetail {
  id: string;
  app_id: string;
  mode: Mode;
  status: string;
  amount_minor: number;
  currency: string;
  method: string;
  provider: string;
  provider_ref: string | null;
  external_user_id: string;
  email: string | null;
  return_url: string;
  metadata: Record<string, unknown>;
  invoice_number: string;
  last_error: string;
  checkout_url: string | null;
  qr_string: string | null;
  qr_image_url: string | null;
  provider_deadline: string | null;
  finalized_at: string | null;
  subscription_id: string | null;
  parent_payment_id: string | null;
  created_at: string;
  updated_at: string;
  refund: RefundView | null;
  /** D16: the payment's disputes, newest first. */
  disputes: DisputeView[];
  inbound_events_count: number;
  deliveries: {
    delivery_id: string;
    event_id: string;
    event_type: string;
    /** The webhook endpoint, null for the app's webhook_url (docs/api.md#webhook-endpoints). */
    endpoint_id: string | null;
    status: string;
    attempts_count: number;
    last_status_code: number | null;
    next_attempt_at: string | null;
    delivered_at: string | null;
    created_at: string;
    attempts: {
      attempt: number;
      status_code: number | null;
      /** The receiver's answer: its first 1 KiB as text (docs/api.md#payment-detail). */
      response_body: string | null;
      error: string | null;
      duration_ms: number;
      started_at: string;
      outcome: string;
    }[];
  }[];
}

/** docs/api.md#payment-detail: the full row plus app_id, its refund, its inbound events count and its deliveries. */
export async function getPaymentDetail(db: Queryable, id: string): Promise<PaymentDetail> {
  if (!isPaymentId(id)) throw notFoundPayment();
  const p = await paymentDetail(db, id);
  if (!p) throw notFoundPayment();
  const [refund, deliveries, disputes] = await Promise.all([
    paymentRefund(db, id),
    paymentDeliveries(db, id),
    paymentDisputes(db, id),
  ]);
  const attempts = await deliveryAttempts(
    db,
    deliveries.map((d) => d.id),
  );
  return {
    id: p.id,
    app_id: p.app_id,
    mode: p.mode,
    status: p.status,
    amount_minor: p.amount_minor,
    currency: p.currency,
    method: p.method,
    provider: p.provider,
    provider_ref: p.provider_ref,
    external_user_id: p.external_user_id,
    email: p.email,
    return_url: p.return_url,
    metadata: p.metadata,
    invoice_number: p.invoice_number ?? '',
    last_error: p.last_error,
    checkout_url: p.checkout_url,
    qr_string: p.qr_string,
    qr_image_url: p.qr_image_url,
    provider_deadline: p.provider_deadline?.toISOString() ?? null,
    finalized_at: p.finalized_at?.toISOString() ?? null,
    subscription_id: p.subscription_id,
    parent_payment_id: p.parent_payment_id,
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
    refund: refund ? refundView(refund) : null,
    disputes: disputes.map(toDisputeView),
    inbound_events_count: p.inbound_events_count,
    deliveries: deliveries.map((d) => ({
      delivery_id: d.id,
      event_id: d.event_id,
      event_type: d.event_type,
      endpoint_id: d.endpoint_id,
      status: d.status,
      attempts_count: d.attempts,
      last_status_code: d.last_status_code,
      next_attempt_at: d.status === 'pending' ? d.next_attempt_at.toISOString() : null,
      delivered_at: d.delivered_at?.toISOString() ?? null,
      created_at: d.created_at.toISOString(),
      attempts: attempts
        .filter((a) => a.delivery_id === d.id)
        .map((a) => ({
          attempt: a.attempt,
          status_code: a.status_code,
          response_body: a.response_body,
          error: a.error,
          duration_ms: a.duration_ms,
          started_at: a.started_at.toISOString(),
          outcome: a.outcome,
        })),
    })),
  };
}
