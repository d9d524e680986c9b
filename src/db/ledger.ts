import type { LEDGER_TYPES, Mode } from '../domain/types.js';
import { newId } from '../domain/ids.js';
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

/**
 * Newest first, filtered; paged by (occurred_at, id) against the cursor row's own values in
 * SQL (a Date read into JavaScript would lose the microseconds, see reports.ts Cursor).
 */
export async function listLedgerEntries(db: Queryable, f: LedgerFilter): Promise<LedgerEntry[]> {
  const conds: string[] = [];
  const values: unknown[] = [];
  const bound = (sql: string, v: unknown) => {
    values.push(v);
    conds.push(sql.replace('?', `$${values.length}`));
  };
  if (f.provider !== null) bound('provider = ?', f.provider);
  if (f.currency !== null) bound('currency = ?', f.currency);
  if (f.appId !== null) bound('app_id = ?', f.appId);
  if (f.mode !== null) bound('mode = ?', f.mode);
  if (f.type !== null) bound('type = ?', f.type);
  if (f.since !== null) bound('occurred_at >= ?', f.since);
  if (f.until !== null) bound('occurred_at < ?', f.until);
  if (f.before !== null) {
    bound(
      '(occurred_at, id) < (SELECT c.occurred_at, c.id FROM ledger_entries c WHERE c.id = ?)',
      f.before,
    );
  }
  values.push(f.limit);
  const res = await db.query<LedgerEntry>(
    `SELECT ${LEDGER_COLUMNS} FROM ledger_entries
     ${conds.length ? `WHERE ${conds.join(' AND ')}` : ''}
     ORDER BY occurred_at DESC, id DESC LIMIT $${values.length}`,
    values,
  );
  return res.rows;
}
