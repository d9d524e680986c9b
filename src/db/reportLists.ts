/**
 * SQL of the operator's payment and refund lists: newest first, paged by (created_at, id)
 * from a cursor row (docs/api.md#query-parameters); the totals are reports.ts beside this.
 */
import type { PaymentSearch } from '../domain/paymentSearch.js';
import { PROVIDERS, type Mode } from '../domain/types.js';
import type { Queryable } from './pool.js';

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

export const REFUND_LIST_COLUMNS = `r.id, r.payment_id, r.app_id, r.mode, r.status, r.amount_minor,
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
