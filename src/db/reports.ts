/**
 * SQL of the operator's read API (issue 5). Sums of minor units come back as text and are
 * parsed as bigint by the service: a numeric sum can pass 2^53. Each aggregate matches one
 * index of migration 0003 (index-only scans over the window); lists page by (created_at, id).
 */
import type { Window } from '../domain/adminQuery.js';
import type { PaymentSearch } from '../domain/paymentSearch.js';
import { PROVIDERS, type Mode } from '../domain/types.js';
import { PAYMENT_COLUMNS, type PaymentRow } from './payments.js';
import type { Queryable } from './pool.js';

export interface GroupTotal {
  app_id: string;
  mode: Mode;
  provider: string;
  currency: string;
  /** Payment groups: the terminal status; refund and initiated groups: fixed. */
  status: string;
  n: number;
  minor: string;
}

/** Terminal payments by the time they reached their status (finalized_at, docs/api.md#summary). */
export async function terminalPaymentTotals(
  db: Queryable,
  w: Window,
  mode: Mode | null,
): Promise<GroupTotal[]> {
  const res = await db.query<GroupTotal>(
    `SELECT app_id, mode, provider, currency, status, count(*)::int AS n,
       sum(amount_minor)::text AS minor
     FROM payments
     WHERE finalized_at >= $1 AND finalized_at < $2 ${mode ? 'AND mode = $3' : ''}
     GROUP BY app_id, mode, provider, currency, status`,
    mode ? [w.since, w.until, mode] : [w.since, w.until],
  );
  return res.rows;
}

/** Succeeded refunds by the time they succeeded (docs/api.md#summary). */
export async function succeededRefundTotals(
  db: Queryable,
  w: Window,
  mode: Mode | null,
): Promise<GroupTotal[]> {
  const res = await db.query<GroupTotal>(
    `SELECT app_id, mode, provider, currency, 'refunded' AS status, count(*)::int AS n,
       sum(amount_minor)::text AS minor
     FROM refunds
     WHERE status = 'succeeded' AND succeeded_at >= $1 AND succeeded_at < $2
       ${mode ? 'AND mode = $3' : ''}
     GROUP BY app_id, mode, provider, currency`,
    mode ? [w.since, w.until, mode] : [w.since, w.until],
  );
  return res.rows;
}

/**
 * The ledger's sums by the time each movement happened (docs/api.md#ledger): two groups per
 * key, `net` (every entry) and `disputed` (what disputes took back, net of the ones won,
 * as a positive figure). Served by ledger_report_idx (migration 0013) without the table.
 */
export async function ledgerTotals(
  db: Queryable,
  w: Window,
  mode: Mode | null,
): Promise<GroupTotal[]> {
  const res = await db.query<GroupTotal & { disputed: string }>(
    `SELECT app_id, mode, provider, currency, 'net' AS status, count(*)::int AS n,
       sum(amount_minor)::text AS minor,
       (-coalesce(sum(amount_minor) FILTER (WHERE type IN ('dispute', 'dispute_reversal')), 0))::text
         AS disputed
     FROM ledger_entries
     WHERE occurred_at >= $1 AND occurred_at < $2 ${mode ? 'AND mode = $3' : ''}
     GROUP BY app_id, mode, provider, currency`,
    mode ? [w.since, w.until, mode] : [w.since, w.until],
  );
  return res.rows.flatMap(({ disputed, ...net }) => [
    net,
    { ...net, status: 'disputed', minor: disputed },
  ]);
}

/** Payments still initiated, counted on the time they were created. */
export async function initiatedTotals(
  db: Queryable,
  w: Window,
  mode: Mode | null,
): Promise<GroupTotal[]> {
  const res = await db.query<GroupTotal>(
    `SELECT app_id, mode, provider, currency, 'initiated' AS status, count(*)::int AS n,
       '0' AS minor
     FROM payments
     WHERE status = 'initiated' AND created_at >= $1 AND created_at < $2
       ${mode ? 'AND mode = $3' : ''}
     GROUP BY app_id, mode, provider, currency`,
    mode ? [w.since, w.until, mode] : [w.since, w.until],
  );
  return res.rows;
}

export interface AppName {
  id: string;
  name: string;
  mode: Mode;
}

export async function appNames(db: Queryable): Promise<AppName[]> {
  const res = await db.query<AppName>(`SELECT id, name, mode FROM apps ORDER BY name, id`);
  return res.rows;
}

export interface DayTotal {
  /** Days since 1970-01-01 (UTC); grouping on an integer is much cheaper than on to_char. */
  day: number;
  currency: string;
  n: number;
  minor: string;
}

/** Succeeded payments per UTC day and currency. */
export async function succeededByDay(
  db: Queryable,
  w: Window,
  mode: Mode | null,
): Promise<DayTotal[]> {
  const res = await db.query<DayTotal>(
    `SELECT ((finalized_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01') AS day, currency,
       count(*)::int AS n, sum(amount_minor)::text AS minor
     FROM payments
     WHERE finalized_at >= $1 AND finalized_at < $2 AND status = 'succeeded'
       ${mode ? 'AND mode = $3' : ''}
     GROUP BY 1, 2`,
    mode ? [w.since, w.until, mode] : [w.since, w.until],
  );
  return res.rows;
}

/**
 * A page cursor: the id of the last row of the previous page, known to exist. The list
 * compares against that row's own `created_at` in SQL, never a copy read into JavaScript:
 * a `Date` keeps milliseconds, timestamptz microseconds, and rows created in the cursor's
 * millisecond would be skipped or repeated.
 */
export type Cursor = string;

export async function paymentExists(db: Queryable, id: string): Promise<boolean> {
  const res = await db.query(`SELECT 1 FROM payments WHERE id = $1`, [id]);
  return res.rowCount !== 0;
}

export async function refundExists(db: Queryable, id: string): Promise<boolean> {
  const res = await db.query(`SELECT 1 FROM refunds WHERE id = $1`, [id]);
  return res.rowCount !== 0;
}

export interface PaymentListRow {
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
  finalized_at: Date | null;
  created_at: Date;
  updated_at: Date;
  refund_status: string | null;
  refund_amount_minor: number | null;
  test_scenario: string | null;
}

/**
 * The refund shown beside a payment: its active one, else the latest failed one, and what is
 * refunded: its active refunds added up (the provider's additional ones included), else the
 * failed one's amount (docs/api.md#payment-list).
 */
const REFUND_STATUS = `LEFT JOIN LATERAL (SELECT r.status, CASE WHEN r.status = 'failed'
     THEN r.amount_minor ELSE (SELECT sum(a.amount_minor) FROM refunds a WHERE a.payment_id = p.id
       AND a.status IN ('initiated', 'succeeded'))::bigint END AS amount_minor
   FROM refunds r WHERE r.payment_id = p.id
   ORDER BY (r.status <> 'failed') DESC, r.created_at DESC, r.id DESC LIMIT 1) rf ON true`;

function keyset(
  table: 'payments' | 'refunds',
  alias: string,
  filters: [string, unknown][],
  before: Cursor | null,
): { where: string; values: unknown[] } {
  const conds: string[] = [];
  const values: unknown[] = [];
  for (const [column, value] of filters) {
    values.push(value);
    conds.push(`${alias}.${column} = $${values.length}`);
  }
  if (before !== null) {
    // The subquery runs once (an InitPlan); its row becomes the index scan's bound.
    values.push(before);
    conds.push(
      `(${alias}.created_at, ${alias}.id) < (SELECT c.created_at, c.id FROM ${table} c WHERE c.id = $${values.length})`,
    );
  }
  return { where: conds.length ? `WHERE ${conds.join(' AND ')}` : '', values };
}

export interface PaymentListFilter {
  mode: Mode | null;
  status: string | null;
  before: Cursor | null;
  limit: number;
  search?: PaymentSearch;
}

const PAYMENT_LIST_COLUMNS = `p.id, p.app_id, p.mode, p.status, p.amount_minor, p.currency,
  p.method, p.provider, p.provider_ref, p.invoice_number, p.last_error, p.finalized_at,
  p.created_at, p.updated_at,
  CASE WHEN p.mode = 'test' THEN p.metadata->>'test_scenario' END AS test_scenario`;

/**
 * Newest first, filtered. A search term q becomes one branch per way it can match, each
 * served newest first by its own index (migration 0008) and cut at one page; the union of
 * the branches is then cut again, so no branch sorts more than a page.
 */
export async function listPaymentRows(
  db: Queryable,
  f: PaymentListFilter,
): Promise<PaymentListRow[]> {
  const s = f.search;
  const filters: [string, unknown][] = [];
  if (f.mode) filters.push(['mode', f.mode]);
  if (f.status) filters.push(['status', f.status]);
  if (s?.appId) filters.push(['app_id', s.appId]);
  const { where, values } = keyset('payments', 'p', filters, f.before);
  const conds = where === '' ? [] : [where.slice('WHERE '.length)];
  const bound = (sql: string, v: unknown) => {
    values.push(v);
    conds.push(sql.replace('?', `$${values.length}`));
  };
  if (s?.createdFrom) bound('p.created_at >= ?', s.createdFrom);
  if (s?.createdTo) bound('p.created_at < ?', s.createdTo);
  if (s && s.amountMin !== null) bound('p.amount_minor >= ?', s.amountMin);
  if (s && s.amountMax !== null) bound('p.amount_minor <= ?', s.amountMax);
  values.push(f.limit);
  const limit = `$${values.length}`;
  const order = 'ORDER BY p.created_at DESC, p.id DESC';
  const branch = (match: string | null) => {
    const all = match ? [match, ...conds] : conds;
    return `SELECT ${PAYMENT_LIST_COLUMNS} FROM payments p
      ${all.length ? `WHERE ${all.join(' AND ')}` : ''} ${order} LIMIT ${limit}`;
  };
  let from: string;
  if (s?.q) {
    values.push(s.q);
    const q = `$${values.length}`;
    const branches = [
      branch(`p.external_user_id = ${q}`),
      branch(`p.email = ${q}`),
      branch(`p.invoice_number = ${q}`),
      branch(`p.provider = ANY('{${PROVIDERS.join(',')}}'::text[]) AND p.provider_ref = ${q}`),
    ];
    if (s.idRange) {
      values.push(s.idRange[0], s.idRange[1]);
      branches.push(branch(`p.id BETWEEN $${values.length - 1} AND $${values.length}`));
    }
    // UNION drops a payment matched by two branches.
    from = branches.map((b) => `(${b})`).join(' UNION ');
  } else {
    from = branch(null);
  }
  const res = await db.query<PaymentListRow>(
    `SELECT p.*, rf.status AS refund_status, rf.amount_minor AS refund_amount_minor
     FROM (${from}) p ${REFUND_STATUS} ${order} LIMIT ${limit}`,
    values,
  );
  return res.rows;
}

export interface RefundListRow {
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
  succeeded_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const REFUND_LIST_COLUMNS = `r.id, r.payment_id, r.app_id, r.mode, r.status, r.amount_minor,
  r.currency, r.provider, r.provider_ref, r.reason, r.last_error, r.succeeded_at, r.created_at,
  r.updated_at`;

export async function listRefundRows(
  db: Queryable,
  f: { mode: Mode | null; before: Cursor | null; limit: number },
): Promise<RefundListRow[]> {
  const { where, values } = keyset('refunds', 'r', f.mode ? [['mode', f.mode]] : [], f.before);
  values.push(f.limit);
  const res = await db.query<RefundListRow>(
    `SELECT ${REFUND_LIST_COLUMNS} FROM refunds r ${where}
     ORDER BY r.created_at DESC, r.id DESC LIMIT $${values.length}`,
    values,
  );
  return res.rows;
}

export interface PaymentDetailRow extends PaymentRow {
  inbound_events_count: number;
}

export async function paymentDetail(db: Queryable, id: string): Promise<PaymentDetailRow | null> {
  const res = await db.query<PaymentDetailRow>(
    `SELECT ${PAYMENT_COLUMNS},
       (SELECT count(*)::int FROM inbound_events i WHERE i.payment_id = payments.id) AS inbound_events_count
     FROM payments WHERE id = $1`,
    [id],
  );
  return res.rows[0] ?? null;
}

/** The payment's refund in the order of REFUND_STATUS: active first, else the latest. */
export async function paymentRefund(
  db: Queryable,
  paymentId: string,
): Promise<RefundListRow | null> {
  const res = await db.query<RefundListRow>(
    `SELECT ${REFUND_LIST_COLUMNS} FROM refunds r WHERE r.payment_id = $1
     ORDER BY (r.status <> 'failed') DESC, r.created_at DESC, r.id DESC LIMIT 1`,
    [paymentId],
  );
  return res.rows[0] ?? null;
}

export interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  next_attempt_at: Date;
  delivered_at: Date | null;
  created_at: Date;
}

export async function paymentDeliveries(db: Queryable, paymentId: string): Promise<DeliveryRow[]> {
  const res = await db.query<DeliveryRow>(
    `SELECT d.id, d.event_id, e.event_type, d.status, d.attempts, d.last_status_code,
       d.next_attempt_at, d.delivered_at, d.created_at
     FROM deliveries d JOIN outbound_events e ON e.id = d.event_id
     WHERE d.payment_id = $1 ORDER BY d.created_at, d.id`,
    [paymentId],
  );
  return res.rows;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  response_body: string | null;
  duration_ms: number;
  started_at: Date;
  outcome: string;
}

export async function deliveryAttempts(
  db: Queryable,
  deliveryIds: string[],
): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  const res = await db.query<AttemptRow>(
    `SELECT delivery_id, attempt, status_code, response_body, error, duration_ms, started_at, outcome
     FROM delivery_attempts WHERE delivery_id = ANY($1::text[]) ORDER BY delivery_id, attempt, id`,
    [deliveryIds],
  );
  return res.rows;
}

/** The earliest time any payment, refund or ledger entry counts in a report (null: none yet). */
export async function earliestActivity(db: Queryable): Promise<Date | null> {
  const res = await db.query<{ at: Date | null }>(
    `SELECT least((SELECT min(finalized_at) FROM payments WHERE finalized_at IS NOT NULL),
       (SELECT min(succeeded_at) FROM refunds WHERE status = 'succeeded'),
       (SELECT min(occurred_at) FROM ledger_entries)) AS at`,
  );
  return res.rows[0]?.at ?? null;
}
