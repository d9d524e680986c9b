import { storableText } from '../domain/storableText.js';
import type { Mode } from '../domain/types.js';
import type { Queryable } from './pool.js';

export type DisputeStatus = 'open' | 'won' | 'lost';
export const DISPUTE_STATUSES: readonly DisputeStatus[] = ['open', 'won', 'lost'];

export interface DisputeRow {
  id: string;
  payment_id: string;
  app_id: string;
  provider: string;
  provider_ref: string;
  mode: Mode;
  status: DisputeStatus;
  amount_minor: number;
  currency: string;
  reason: string;
  evidence_due_by: Date | null;
  opened_at: Date;
  closed_at: Date | null;
  updated_at: Date;
}

const COLUMNS = `id, payment_id, app_id, provider, provider_ref, mode, status,
  amount_minor, currency, reason, evidence_due_by, opened_at, closed_at,
  updated_at`;

export interface DisputeFacts {
  id: string;
  payment_id: string;
  app_id: string;
  provider: string;
  provider_ref: string;
  mode: Mode;
  status: DisputeStatus;
  amount_minor: number;
  currency: string;
  reason: string;
  evidence_due_by: Date | null;
  opened_at: Date | null;
}

/**
 * What one provider confirmation did to its dispute: `inserted` (first heard of), `closed`
 * (open -> won | lost), `amount` (the provider now reports another amount: a further partial
 * chargeback, a changed case), `refreshed` (still open, a new evidence deadline), or
 * `unchanged`.
 */
export type DisputeChange = 'inserted' | 'closed' | 'amount' | 'refreshed' | 'unchanged';

/**
 * One statement: the dispute of this provider case is created, or moved to the provider's
 * confirmed state. Its status only moves from open to won or lost, never back, so a late or
 * replayed "open" finds it closed and changes nothing, and duplicated or reordered events
 * leave one dispute in its latest state. Its amount follows the provider while the dispute
 * is open; a lost one only grows (chargebacks add up: a confirmation read before another
 * that grew it never shrinks it back); a won dispute's amount is final. An open
 * one also takes a new evidence deadline. The caller books the ledger from the row
 * (services/disputes.ts) and holds the payment's lock.
 */
export async function upsertDispute(
  tx: Queryable,
  d: DisputeFacts,
): Promise<{ row: DisputeRow; change: DisputeChange }> {
  const res = await tx.query<
    DisputeRow & { inserted: boolean; prior_status: DisputeStatus | null; prior_amount: number }
  >({
    name: 'disputes_upsert',
    text: `WITH prior AS (
         SELECT status AS prior_status, amount_minor AS prior_amount FROM disputes
         WHERE provider = $4 AND provider_ref = $5
       ), up AS (
         INSERT INTO disputes AS d (id, payment_id, app_id, provider, provider_ref, mode, status,
           amount_minor, currency, reason, evidence_due_by, opened_at, closed_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, COALESCE($12, now()),
           CASE WHEN $7 = 'open' THEN NULL ELSE now() END)
         ON CONFLICT (provider, provider_ref) DO UPDATE SET
           status = CASE WHEN d.status = 'open' THEN EXCLUDED.status ELSE d.status END,
           closed_at = CASE WHEN d.status = 'open' THEN EXCLUDED.closed_at ELSE d.closed_at END,
           amount_minor = EXCLUDED.amount_minor,
           evidence_due_by = CASE WHEN d.status = 'open'
             THEN COALESCE(EXCLUDED.evidence_due_by, d.evidence_due_by) ELSE d.evidence_due_by END,
           updated_at = now()
         WHERE (d.status = 'open'
                AND (EXCLUDED.status <> 'open'
                     OR EXCLUDED.amount_minor <> d.amount_minor
                     OR (EXCLUDED.evidence_due_by IS NOT NULL
                         AND EXCLUDED.evidence_due_by IS DISTINCT FROM d.evidence_due_by)))
            OR (d.status = 'lost' AND EXCLUDED.status = 'lost'
                AND EXCLUDED.amount_minor > d.amount_minor)
         RETURNING ${COLUMNS}, (xmax = 0) AS inserted
       )
       SELECT up.*, prior.prior_status, prior.prior_amount FROM up LEFT JOIN prior ON true`,
    values: [
      d.id,
      d.payment_id,
      d.app_id,
      d.provider,
      d.provider_ref,
      d.mode,
      d.status,
      d.amount_minor,
      d.currency,
      // The provider's own words: text PostgreSQL cannot hold never fails the event.
      storableText(d.reason).slice(0, 500),
      d.evidence_due_by,
      d.opened_at,
    ],
  });
  const changed = res.rows[0];
  if (changed) {
    const { inserted, prior_status, prior_amount, ...row } = changed;
    const change: DisputeChange = inserted
      ? 'inserted'
      : prior_status === 'open' && row.status !== 'open'
        ? 'closed'
        : prior_amount !== row.amount_minor
          ? 'amount'
          : 'refreshed';
    return { row, change };
  }
  const current = await findDisputeByRef(tx, d.provider, d.provider_ref);
  if (!current) throw new Error('dispute vanished after a conflicting insert');
  return { row: current, change: 'unchanged' };
}

export async function findDisputeByRef(
  db: Queryable,
  provider: string,
  providerRef: string,
): Promise<DisputeRow | null> {
  const res = await db.query<DisputeRow>(
    `SELECT ${COLUMNS} FROM disputes WHERE provider = $1 AND provider_ref = $2`,
    [provider, providerRef],
  );
  return res.rows[0] ?? null;
}

/**
 * The case a reversal of the payment's capture may belong to: the newest other dispute of
 * the same provider that still holds money (open or lost). A won case gave its money back,
 * so a reversal after it is money of its own.
 */
export async function caseHoldingMoney(
  db: Queryable,
  paymentId: string,
  provider: string,
  providerRef: string,
): Promise<DisputeRow | null> {
  const res = await db.query<DisputeRow>(
    `SELECT ${COLUMNS} FROM disputes
     WHERE payment_id = $1 AND provider = $2 AND provider_ref <> $3
       AND status IN ('open', 'lost')
     ORDER BY opened_at DESC, id DESC LIMIT 1`,
    [paymentId, provider, providerRef],
  );
  return res.rows[0] ?? null;
}

/**
 * What a reversal on record for the payment (the dispute named by the reversed capture)
 * took back, as a positive amount; 0 when there is none.
 */
export async function takenByReversal(
  db: Queryable,
  paymentId: string,
  provider: string,
  captureRef: string,
): Promise<number> {
  const res = await db.query<{ taken: number }>(
    `SELECT (-coalesce(sum(l.amount_minor), 0))::bigint AS taken
     FROM disputes d JOIN ledger_entries l ON l.dispute_id = d.id AND l.type = 'dispute'
     WHERE d.payment_id = $1 AND d.provider = $2 AND d.provider_ref = $3`,
    [paymentId, provider, captureRef],
  );
  return res.rows[0]?.taken ?? 0;
}

export async function findDispute(db: Queryable, id: string): Promise<DisputeRow | null> {
  const res = await db.query<DisputeRow>(`SELECT ${COLUMNS} FROM disputes WHERE id = $1`, [id]);
  return res.rows[0] ?? null;
}

export async function paymentDisputes(db: Queryable, paymentId: string): Promise<DisputeRow[]> {
  const res = await db.query<DisputeRow>(
    `SELECT ${COLUMNS} FROM disputes WHERE payment_id = $1 ORDER BY opened_at DESC, id DESC`,
    [paymentId],
  );
  return res.rows;
}

/** The dispute that refuses a refund: an open or a lost one (the newest, if several). */
export async function blockingDispute(
  db: Queryable,
  paymentId: string,
): Promise<DisputeRow | null> {
  const res = await db.query<DisputeRow>(
    `SELECT ${COLUMNS} FROM disputes WHERE payment_id = $1 AND status IN ('open', 'lost')
     ORDER BY opened_at DESC, id DESC LIMIT 1`,
    [paymentId],
  );
  return res.rows[0] ?? null;
}

export async function disputeExists(db: Queryable, id: string): Promise<boolean> {
  const res = await db.query('SELECT 1 FROM disputes WHERE id = $1', [id]);
  return res.rowCount === 1;
}

export interface DisputeFilter {
  status: DisputeStatus | null;
  provider: string | null;
  appId: string | null;
  mode: Mode | null;
  before: string | null;
  limit: number;
}

/** Newest first; `before` is the id of the last row of the previous page. */
export async function listDisputeRows(db: Queryable, f: DisputeFilter): Promise<DisputeRow[]> {
  const res = await db.query<DisputeRow>(
    `SELECT ${COLUMNS} FROM disputes
     WHERE ($2::text IS NULL OR status = $2)
       AND ($3::text IS NULL OR provider = $3)
       AND ($4::text IS NULL OR app_id = $4)
       AND ($5::text IS NULL OR mode = $5)
       AND ($6::text IS NULL
            OR (opened_at, id) < (SELECT opened_at, id FROM disputes WHERE id = $6))
     ORDER BY opened_at DESC, id DESC LIMIT $1`,
    [f.limit, f.status, f.provider, f.appId, f.mode, f.before],
  );
  return res.rows;
}
