import type { LEDGER_TYPES, Mode } from '../domain/types.js';
import { newId } from '../domain/ids.js';
import { olderThan, SCAN_ROWS } from './paymentScan.js';
import type { Queryable } from './pool.js';

/** docs/api.md#ledger: each kind of movement of money. */
export type LedgerType = (typeof LEDGER_TYPES)[number];

export interface LedgerEntry {
  id: string;
  type: LedgerType;
  payment_id: string;
  refund_id: string | null;
  dispute_id: string | null;
  exception_id: string | null;
  app_id: string;
  provider: string;
  mode: Mode;
  currency: string;
  /** Signed: money in positive, money out negative. */
  amount_minor: number;
  fee_minor: number | null;
  occurred_at: Date;
}

export type NewLedgerEntry = Omit<
  LedgerEntry,
  'id' | 'occurred_at' | 'refund_id' | 'dispute_id' | 'exception_id' | 'fee_minor'
> &
  Partial<
    Pick<LedgerEntry, 'refund_id' | 'dispute_id' | 'exception_id' | 'fee_minor' | 'occurred_at'>
  >;

export const LEDGER_COLUMNS = `id, type, payment_id, refund_id, dispute_id, exception_id, app_id,
  provider, mode, currency, amount_minor, fee_minor, occurred_at`;

/**
 * Books one movement of money, in the caller's transaction (the change it records). A
 * movement already on record (the same charge, refund, late charge or dispute step) is not
 * booked again: null then.
 */
export async function recordLedgerEntry(
  tx: Queryable,
  e: NewLedgerEntry,
): Promise<LedgerEntry | null> {
  const res = await tx.query<LedgerEntry>({
    name: 'ledger_insert',
    text: `INSERT INTO ledger_entries (id, type, payment_id, refund_id, dispute_id, exception_id,
       app_id, provider, mode, currency, amount_minor, fee_minor, occurred_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, COALESCE($13, now()))
     ON CONFLICT DO NOTHING RETURNING ${LEDGER_COLUMNS}`,
    values: [
      newId(),
      e.type,
      e.payment_id,
      e.refund_id ?? null,
      e.dispute_id ?? null,
      e.exception_id ?? null,
      e.app_id,
      e.provider,
      e.mode,
      e.currency,
      e.amount_minor,
      e.fee_minor ?? null,
      e.occurred_at ?? null,
    ],
  });
  return res.rows[0] ?? null;
}

/**
 * What the ledger holds for one dispute: the money taken back (the sum of its `dispute`
 * entries, negative) and whether it was given back (a `dispute_reversal`).
 */
export async function disputeBooked(
  tx: Queryable,
  disputeId: string,
): Promise<{ taken: number; givenBack: boolean }> {
  const res = await tx.query<{ taken: number; given_back: boolean }>({
    name: 'ledger_dispute_booked',
    text: `SELECT coalesce(sum(amount_minor) FILTER (WHERE type = 'dispute'), 0)::bigint AS taken,
       bool_or(type = 'dispute_reversal') IS TRUE AS given_back
     FROM ledger_entries WHERE dispute_id = $1`,
    values: [disputeId],
  });
  const r = res.rows[0];
  return { taken: r?.taken ?? 0, givenBack: r?.given_back ?? false };
}

export interface LedgerFilter {
  provider: string | null;
  currency: string | null;
  appId: string | null;
  mode: Mode | null;
  type: LedgerType | null;
  since: Date | null;
  until: Date | null;
  /** The id of the last entry of the previous page, known to exist. */
  before: string | null;
  limit: number;
}

export async function ledgerEntryExists(db: Queryable, id: string): Promise<boolean> {
  const res = await db.query('SELECT 1 FROM ledger_entries WHERE id = $1', [id]);
  return res.rowCount !== 0;
}

export interface LedgerPage {
  entries: LedgerEntry[];
  /** The cursor of the next page; null when the list reached the end (docs/api.md#ledger). */
  nextBefore: string | null;
}

/**
 * Newest first, filtered, bounded as the payment search is (db/paymentScan.ts,
 * docs/api.md#ledger): a page reads at most SCAN_ROWS entries of the index that drives it
 * (`type` other than charge, else `app_id`, else `type=charge`, else every entry; since,
 * until and the cursor narrowing it, as the date is its order), checks the other filters
 * (provider, currency, mode, ...) on them, and answers the matching ones with `nextBefore`:
 * the page's last entry when more follow, the last entry examined when it stopped at the
 * bound, null at the end. Paged by (occurred_at, id) against the cursor row's own values in
 * SQL (a Date read into JavaScript would lose the microseconds, see reports.ts Cursor).
 */
export async function listLedgerPage(db: Queryable, f: LedgerFilter): Promise<LedgerPage> {
  const values: unknown[] = [];
  const param = (v: unknown) => {
    values.push(v);
    return `$${values.length}`;
  };
  const n = param(SCAN_ROWS);
  const cut = param(f.limit + 1);
  const drive: string[] = [];
  const check: string[] = [];
  // The most selective first, as the first drives: most entries are charges.
  if (f.type !== null && f.type !== 'charge') drive.push(`type = ${param(f.type)}`);
  if (f.appId !== null) (drive.length ? check : drive).push(`app_id = ${param(f.appId)}`);
  if (f.type === 'charge') (drive.length ? check : drive).push(`type = ${param(f.type)}`);
  if (f.provider !== null) check.push(`provider = ${param(f.provider)}`);
  if (f.currency !== null) check.push(`currency = ${param(f.currency)}`);
  if (f.mode !== null) check.push(`mode = ${param(f.mode)}`);
  if (f.since !== null) drive.push(`occurred_at >= ${param(f.since)}`);
  const cursor = f.before === null ? null : param(f.before);
  const older = olderThan({
    table: 'ledger_entries',
    time: 'occurred_at',
    row: '',
    cursor,
    until: f.until === null ? null : param(f.until),
  });
  if (older !== null) drive.push(older);
  const all = (conds: string[]) => (conds.length ? conds.join(' AND ') : 'true');
  const order = 'ORDER BY occurred_at DESC, id DESC';
  const res = await db.query<LedgerEntry & { scan_n: string; scan_match: boolean }>(
    `SELECT s.* FROM (
       SELECT e.*, row_number() OVER (${order}) AS scan_n, (${all(check)}) AS scan_match
       FROM (SELECT ${LEDGER_COLUMNS} FROM ledger_entries WHERE ${all(drive)} ${order} LIMIT ${n}) e
     ) s WHERE s.scan_match OR s.scan_n = ${n}
     ${order} LIMIT ${cut}`,
    values,
  );
  const entries: LedgerEntry[] = [];
  for (const row of res.rows) {
    if (!row.scan_match) continue;
    const entry: Partial<typeof row> = { ...row };
    delete entry.scan_n;
    delete entry.scan_match;
    entries.push(entry as LedgerEntry);
  }
  if (entries.length > f.limit) {
    return { entries: entries.slice(0, f.limit), nextBefore: entries[f.limit - 1]!.id };
  }
  const last = res.rows[res.rows.length - 1];
  return { entries, nextBefore: last && Number(last.scan_n) === SCAN_ROWS ? last.id : null };
}
