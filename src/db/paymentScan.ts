/**
 * SQL of the operator's payment list (GET /admin/payments): newest first, paged by
 * (created_at, id) from a cursor row, and bounded (docs/api.md#bounded-search).
 *
 * A page reads at most SCAN_ROWS rows of the index that drives it, in date order, and
 * answers the rows among them that match every filter, with `nextBefore`: the id of the last
 * row it examined when it stopped at that bound, even when fewer than `limit` matched (none at
 * all, for filters that together match nothing). Following `nextBefore` pages through every
 * matching payment exactly once, in order; null means the search reached the end.
 *
 * The driving index is one filter's: each q branch's own index, else app_id, else status,
 * else mode, else none (every payment); the created range bounds any of them, as the date is
 * their order. Every other filter is checked on the rows read. An amount range matching at
 * most SCAN_ROWS payments in all drives instead, through payments_amount_idx, when the page
 * read in date order stopped at the bound before filling (docs/performance.md).
 */
import type { PaymentSearch } from '../domain/paymentSearch.js';
import { PROVIDERS, type Mode } from '../domain/types.js';
import type { Queryable } from './pool.js';

/**
 * Rows a page reads at most from its driving index (per q branch). Chosen by measurement at
 * ten million payments (docs/performance.md#admin-search-at-ten-million-payments).
 */
export const SCAN_ROWS = 2000;

/** A page cursor: the id of a payment known to exist (docs/api.md#query-parameters). */
export type Cursor = string;

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

export interface PaymentListFilter {
  mode: Mode | null;
  status: string | null;
  before: Cursor | null;
  limit: number;
  search?: PaymentSearch;
}

export interface PaymentPage {
  rows: PaymentListRow[];
  /** The cursor of the next page; null when the search reached the end. */
  nextBefore: string | null;
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

const COLUMNS = `p.id, p.app_id, p.mode, p.status, p.amount_minor, p.currency,
  p.method, p.provider, p.provider_ref, p.invoice_number, p.last_error, p.finalized_at,
  p.created_at, p.updated_at,
  CASE WHEN p.mode = 'test' THEN p.metadata->>'test_scenario' END AS test_scenario`;

const ORDER = 'ORDER BY p.created_at DESC, p.id DESC';

/**
 * The status filter as the condition that drives a scan (initiated, failed or canceled):
 * `payments_unsucceeded_created_id_idx` (status, created_at DESC, id DESC) WHERE status <>
 * 'succeeded', keyed by the status and the created range, read in the list's order.
 *
 * Written `p.status = $n`, the value a constant when the statement is planned, the condition
 * would imply the predicate `status = 'initiated'` of the reconciler's and the reports'
 * partial indexes (payments_initiated_deadline_idx, payments_initiated_created_idx,
 * payments_checked_initiated_idx), and the planner could read one of those from end to end
 * and sort: every initiated payment, for a page. It did, with a created range, whenever the
 * ANALYZE sample held two or more of the few initiated payments with a provider deadline: their
 * correlation then said ±1 and made the deadline index look sequential (11,300 pages, 45 to
 * 240 ms at one million payments; docs/performance.md). The value from a subquery (an InitPlan
 * parameter) is still an index key and still a constant to the planner's ordering, so the
 * status index gives the date order without a sort; but no partial index can be proven from
 * it, so the explicit `status <> 'succeeded'` admits this one index and no other.
 */
const STATUS_DRIVE = (status: string) =>
  `p.status = (SELECT ${status}::text) AND p.status <> 'succeeded'`;

/** Statement parameters, numbered as they are added. */
class Params {
  readonly values: unknown[] = [];
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

const all = (conds: string[]) => (conds.length ? conds.join(' AND ') : 'true');

/**
 * One bounded scan: the first SCAN_ROWS rows of `drive` after the cursor, in date order,
 * numbered; those matching `check`, and the last one read when it is the SCAN_ROWS-th (the
 * bound: scan_n = SCAN_ROWS), cut at limit + 1 rows. Read lazily: a page that fills early
 * stops reading there.
 */
function scan(
  drive: string[],
  check: string[],
  n: string,
  cut: string,
  branch: number,
  only = 'true',
): string {
  return `SELECT s.*, ${branch} AS scan_branch FROM (
      SELECT p.*, row_number() OVER (${ORDER}) AS scan_n, (${all(check)}) AS scan_match
      FROM (SELECT ${COLUMNS} FROM payments p WHERE ${all(drive)} ${ORDER} LIMIT ${n}) p
    ) s WHERE ${only} AND (s.scan_match OR s.scan_n = ${n})
    ORDER BY s.created_at DESC, s.id DESC LIMIT ${cut}`;
}

/**
 * Keyset paging of a list ordered by (time, id) descending: the rows older than the cursor row
 * (its own values read in SQL) and than `until` (exclusive), either of them null; null when
 * both are. With both, one row comparison holds the older of the two: given as two
 * conditions, the index scan starts at the cursor and walks every entry down to `until` when
 * the cursor is the newer one (half the table for a cursor half a year back and a range before
 * it: 4,100 index pages at one million payments, docs/performance.md). `cursor` and `until`
 * are placed parameters; `row` prefixes the listed row's columns (`p.` or nothing).
 */
export function olderThan(o: {
  table: string;
  time: string;
  row: string;
  cursor: string | null;
  until: string | null;
}): string | null {
  const { table, time, row, cursor, until } = o;
  if (cursor === null) return until === null ? null : `${row}${time} < ${until}`;
  const key = `(${row}${time}, ${row}id)`;
  const cursorRow = `FROM ${table} c WHERE c.id = ${cursor}`;
  if (until === null) return `${key} < (SELECT c.${time}, c.id ${cursorRow})`;
  const older = `c.${time} < ${until}`;
  return `${key} < (SELECT CASE WHEN ${older} THEN c.${time} ELSE ${until} END,
    CASE WHEN ${older} THEN c.id ELSE '' END ${cursorRow})`;
}

/** olderThan's bound for a cursor and created_to, read as values: the time as ISO 8601 text (µs). */
interface CursorAt {
  time: string;
  id: string;
}

/**
 * Whether a page is a rarer status's scan from a cursor with created_from. Its bound is then
 * read first and given as constants: with the cursor's time known only when the statement runs,
 * the planner estimated `created_at <= (the cursor's)` and `>= created_from` as a narrow range
 * (its default for a range with an unknown end), which the date index alone could use as a
 * pair, and chose it over the status index (1,400 pages for a page of initiated payments,
 * 40,000 with a rare amount, at one million payments; docs/performance.md).
 */
function statusDrivesFrom(f: PaymentListFilter): boolean {
  const s = f.search;
  return (
    f.before !== null &&
    !!s?.createdFrom &&
    !s.q &&
    !s.appId &&
    f.status !== null &&
    f.status !== 'succeeded'
  );
}

interface ScanRow extends PaymentListRow {
  scan_n: number;
  scan_match: boolean;
  scan_branch: number;
}

/** The statement of a page: its scans, the refund of each row, all rows newest first. */
function pageStatement(
  f: PaymentListFilter,
  cursorAt: CursorAt | null = null,
): { text: string; values: unknown[] } {
  const s = f.search;
  const p = new Params();
  const n = p.add(SCAN_ROWS);
  const cut = p.add(f.limit + 1);
  // The date order's bounds: the cursor row (its own created_at, in SQL: a JavaScript Date
  // keeps milliseconds, timestamptz microseconds) and the created range.
  const dated: string[] = [];
  if (cursorAt) {
    // The bound read beforehand (statusDrivesFrom): constants the planner can estimate.
    dated.push(
      `(p.created_at, p.id) < (${p.add(cursorAt.time)}::timestamptz, ${p.add(cursorAt.id)})`,
    );
  } else {
    const older = olderThan({
      table: 'payments',
      time: 'created_at',
      row: 'p.',
      cursor: f.before === null ? null : p.add(f.before),
      until: s?.createdTo ? p.add(s.createdTo) : null,
    });
    if (older !== null) dated.push(older);
  }
  if (s?.createdFrom) dated.push(`p.created_at >= ${p.add(s.createdFrom)}`);
  // The most selective first, as the first drives: an app's payments are a part of one
  // mode's; most payments are succeeded.
  const equal: string[] = [];
  if (s?.appId) equal.push(`p.app_id = ${p.add(s.appId)}`);
  // A rarer status drives through payments_unsucceeded_created_id_idx; its value comes from a
  // subquery so that the condition cannot imply the reconciler's partial indexes (STATUS_DRIVE).
  let statusDrive: [string, string] | null = null;
  if (f.status && f.status !== 'succeeded') {
    const status = p.add(f.status);
    statusDrive = [`p.status = ${status}`, STATUS_DRIVE(status)];
    equal.push(statusDrive[0]);
  }
  if (f.mode) equal.push(`p.mode = ${p.add(f.mode)}`);
  if (f.status === 'succeeded') equal.push(`p.status = ${p.add(f.status)}`);
  const amount: string[] = [];
  if (s && s.amountMin !== null) amount.push(`p.amount_minor >= ${p.add(s.amountMin)}`);
  if (s && s.amountMax !== null) amount.push(`p.amount_minor <= ${p.add(s.amountMax)}`);

  let body: string;
  if (s?.q) {
    const q = p.add(s.q);
    const branches = [
      `p.external_user_id = ${q}`,
      `p.email = ${q}`,
      `p.invoice_number = ${q}`,
      `p.provider = ANY('{${PROVIDERS.join(',')}}'::text[]) AND p.provider_ref = ${q}`,
    ];
    if (s.idRange) branches.push(`p.id BETWEEN ${p.add(s.idRange[0])} AND ${p.add(s.idRange[1])}`);
    body = branches
      .map((b, i) => `(${scan([b, ...dated], [...equal, ...amount], n, cut, i)})`)
      .join(' UNION ALL ');
  } else {
    const [first, ...rest] = equal;
    const drive = statusDrive && first === statusDrive[0] ? statusDrive[1] : first;
    const ordered = scan(drive ? [drive, ...dated] : dated, [...rest, ...amount], n, cut, 0);
    if (amount.length === 0) {
      body = ordered;
    } else {
      // When the page read in date order stopped at its bound before filling, and the amount
      // range holds at most SCAN_ROWS payments in all, the amount index drives instead: all of
      // the range's rows, sorted (one-time filters: only one of the two scans answers).
      const few = `(SELECT count(*) <= ${n} FROM (SELECT 1 FROM payments p WHERE ${all(amount)}
        ORDER BY p.amount_minor LIMIT ${n} + 1) x)`;
      const go = '(SELECT go FROM gate)';
      body = `WITH ordered AS (${ordered}),
        gate AS (SELECT (SELECT count(*) FILTER (WHERE scan_match) FROM ordered) < ${cut} - 1
          AND EXISTS (SELECT 1 FROM ordered WHERE scan_n = ${n}) AND ${few} AS go)
        SELECT * FROM ordered WHERE NOT ${go}
        UNION ALL (${scan([...amount, ...dated], equal, n, cut, 0, go)})`;
    }
  }
  return {
    text: `SELECT p.*, rf.status AS refund_status, rf.amount_minor AS refund_amount_minor
     FROM (${body}) p ${REFUND_STATUS} ORDER BY p.created_at DESC, p.id DESC, p.scan_branch`,
    values: p.values,
  };
}

/**
 * The page from the scans' rows. Each scan is complete down to its boundary: its last row
 * when it was cut at limit + 1 rows or stopped at the bound, else the end. The page holds the
 * matching rows (once each) down to the newest boundary, at most `limit` of them.
 */
export function pageOf(rows: ScanRow[], limit: number): PaymentPage {
  const last = new Map<number, { index: number; row: ScanRow }>();
  const count = new Map<number, number>();
  rows.forEach((row, index) => {
    last.set(row.scan_branch, { index, row });
    count.set(row.scan_branch, (count.get(row.scan_branch) ?? 0) + 1);
  });
  let boundary = rows.length;
  for (const [branch, { index, row }] of last) {
    const stopped = count.get(branch) === limit + 1 || row.scan_n === SCAN_ROWS;
    if (stopped && index < boundary) boundary = index;
  }
  const page: PaymentListRow[] = [];
  const seen = new Set<string>();
  for (const row of rows.slice(0, boundary + 1)) {
    if (!row.scan_match || seen.has(row.id)) continue;
    seen.add(row.id);
    const out: Partial<ScanRow> = { ...row };
    delete out.scan_n;
    delete out.scan_match;
    delete out.scan_branch;
    page.push(out as PaymentListRow);
  }
  if (page.length > limit) return { rows: page.slice(0, limit), nextBefore: page[limit - 1]!.id };
  return { rows: page, nextBefore: boundary < rows.length ? rows[boundary]!.id : null };
}

/** A page of the admin payment list and the cursor of the next. */
export async function listPaymentPage(db: Queryable, f: PaymentListFilter): Promise<PaymentPage> {
  let cursorAt: CursorAt | null = null;
  if (statusDrivesFrom(f)) {
    const res = await db.query<CursorAt>(
      // The time in ISO 8601, UTC, to the microsecond: read back the same under any DateStyle.
      `SELECT to_char(CASE WHEN $2::timestamptz IS NULL OR created_at < $2 THEN created_at
           ELSE $2 END AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS time,
         CASE WHEN $2::timestamptz IS NULL OR created_at < $2 THEN id ELSE '' END AS id
       FROM payments WHERE id = $1`,
      [f.before, f.search?.createdTo ?? null],
    );
    // A cursor that names no payment: no row is older than it (as in the one statement).
    if (res.rows.length === 0) return { rows: [], nextBefore: null };
    cursorAt = res.rows[0]!;
  }
  const { text, values } = pageStatement(f, cursorAt);
  const res = await db.query<ScanRow>(text, values);
  return pageOf(res.rows, f.limit);
}

/** The rows of a page (tests and benchmarks that check a page's rows and plan). */
export async function listPaymentRows(
  db: Queryable,
  f: PaymentListFilter,
): Promise<PaymentListRow[]> {
  return (await listPaymentPage(db, f)).rows;
}
