/**
 * SQL of the operator's refund list and the cursors of both lists: newest first, paged by
 * (created_at, id) from a cursor row (docs/api.md#query-parameters); the payment list is
 * paymentScan.ts, the totals reports.ts beside this.
 */
import type { Mode } from '../domain/types.js';
import type { Queryable } from './pool.js';

export {
  listPaymentPage,
  listPaymentRows,
  type PaymentListFilter,
  type PaymentListRow,
  type PaymentPage,
} from './paymentScan.js';

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
