/**
 * The admin payment list's statement before the bounded scan (main at d9c590b,
 * src/db/reportLists.ts, verbatim): newest first, every filter in one statement, cut at
 * `limit`, with no bound on the rows read. bench/search10m.ts times it beside the bounded
 * one on the same database ("before" of docs/performance.md#admin-search-at-ten-million-payments).
 */
import type { Queryable } from '../../src/db/pool.js';
import type { PaymentListFilter, PaymentListRow } from '../../src/db/paymentScan.js';
import { PROVIDERS } from '../../src/domain/types.js';

type Cursor = string;

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
    values.push(before);
    conds.push(
      `(${alias}.created_at, ${alias}.id) < (SELECT c.created_at, c.id FROM ${table} c WHERE c.id = $${values.length})`,
    );
  }
  return { where: conds.length ? `WHERE ${conds.join(' AND ')}` : '', values };
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
export async function listPaymentRowsUnbounded(
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
