import { newId } from '../domain/ids.js';
import type { Queryable } from './pool.js';

export type ExceptionKind =
  | 'paid_after_cancel'
  | 'paid_after_failure'
  | 'unrequested_refund'
  | 'amount_mismatch'
  | 'reconciliation';

export interface ExceptionRow {
  id: string;
  /** Null only for a reconciliation item that names no payment of the gateway. */
  payment_id: string | null;
  app_id: string | null;
  kind: ExceptionKind;
  provider: string;
  provider_ref: string;
  amount_minor: number;
  currency: string;
  detected_at: Date;
  resolution: 'manual' | 'refunded' | 'resolved';
  note: string | null;
  resolved_at: Date | null;
}

const COLUMNS = `id, payment_id, app_id, kind, provider, provider_ref, amount_minor,
  currency, detected_at, resolution, note, resolved_at`;

export interface NewException {
  id: string;
  paymentId: string;
  appId: string;
  kind: ExceptionKind;
  provider: string;
  providerRef: string;
  amountMinor: number;
  currency: string;
}

/**
 * Records an exception once; null when the same money was already on record. A charge the
 * provider took (every kind but unrequested_refund) is booked in the ledger as a late_charge
 * in the same statement (docs/api.md#ledger).
 */
export async function insertException(
  db: Queryable,
  e: NewException,
): Promise<ExceptionRow | null> {
  const res = await db.query<ExceptionRow>(
    `WITH ex AS (
       INSERT INTO payment_exceptions (id, payment_id, app_id, kind, provider, provider_ref,
         amount_minor, currency, resolution)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'manual')
       ON CONFLICT (payment_id, kind, provider_ref) WHERE kind <> 'reconciliation' DO NOTHING
       RETURNING ${COLUMNS}),
     late AS (
       INSERT INTO ledger_entries (id, type, payment_id, exception_id, app_id, provider, mode,
         currency, amount_minor, occurred_at)
       SELECT $9::text, 'late_charge', ex.payment_id, ex.id, ex.app_id, ex.provider, p.mode,
         ex.currency, ex.amount_minor, ex.detected_at
       FROM ex JOIN payments p ON p.id = ex.payment_id
       WHERE ex.kind IN ('paid_after_cancel', 'paid_after_failure', 'amount_mismatch')
         AND ex.amount_minor > 0
       ON CONFLICT DO NOTHING)
     SELECT * FROM ex`,
    [
      e.id,
      e.paymentId,
      e.appId,
      e.kind,
      e.provider,
      e.providerRef,
      e.amountMinor,
      e.currency,
      newId(),
    ],
  );
  return res.rows[0] ?? null;
}

/** Newest first; `before` is the id of the last row of the previous page. */
export async function listExceptions(
  db: Queryable,
  limit: number,
  before: string | null,
): Promise<ExceptionRow[] | null> {
  if (before !== null) {
    const cursor = await db.query('SELECT 1 FROM payment_exceptions WHERE id = $1', [before]);
    if (cursor.rowCount === 0) return null;
  }
  const res = await db.query<ExceptionRow>(
    `SELECT ${COLUMNS} FROM payment_exceptions
     WHERE $2::text IS NULL
        OR (detected_at, id) < (SELECT detected_at, id FROM payment_exceptions WHERE id = $2)
     ORDER BY detected_at DESC, id DESC LIMIT $1`,
    [limit, before],
  );
  return res.rows;
}

export async function findException(db: Queryable, id: string): Promise<ExceptionRow | null> {
  const res = await db.query<ExceptionRow>(
    `SELECT ${COLUMNS} FROM payment_exceptions WHERE id = $1`,
    [id],
  );
  return res.rows[0] ?? null;
}

/** A payment's exception of one kind (the first, if several). */
export async function findPaymentException(
  db: Queryable,
  paymentId: string,
  kind: ExceptionKind,
): Promise<ExceptionRow | null> {
  const res = await db.query<ExceptionRow>(
    `SELECT ${COLUMNS} FROM payment_exceptions WHERE payment_id = $1 AND kind = $2
     ORDER BY detected_at, id LIMIT 1`,
    [paymentId, kind],
  );
  return res.rows[0] ?? null;
}

/** manual -> resolved, once: a conditional update, so two operators cannot both resolve it. */
export async function resolveException(
  db: Queryable,
  id: string,
  note: string,
): Promise<ExceptionRow | null> {
  const res = await db.query<ExceptionRow>(
    `UPDATE payment_exceptions SET resolution = 'resolved', note = $2, resolved_at = now()
     WHERE id = $1 AND resolution = 'manual' RETURNING ${COLUMNS}`,
    [id, note],
  );
  return res.rows[0] ?? null;
}

/** The late charge was given back by the gateway itself. */
export async function markRefunded(db: Queryable, id: string): Promise<ExceptionRow | null> {
  const res = await db.query<ExceptionRow>(
    `UPDATE payment_exceptions SET resolution = 'refunded', resolved_at = now()
     WHERE id = $1 AND resolution = 'manual' RETURNING ${COLUMNS}`,
    [id],
  );
  return res.rows[0] ?? null;
}

/** The oldest late charge of a payment still waiting for the operator, now refunded. */
export async function refundLateChargeException(
  db: Queryable,
  paymentId: string,
): Promise<ExceptionRow | null> {
  const res = await db.query<ExceptionRow>(
    `UPDATE payment_exceptions SET resolution = 'refunded', resolved_at = now(),
       note = 'refunded at the provider'
     WHERE id = (SELECT id FROM payment_exceptions
                 WHERE payment_id = $1 AND resolution = 'manual'
                   AND kind IN ('paid_after_cancel', 'paid_after_failure')
                 ORDER BY detected_at, id LIMIT 1 FOR UPDATE)
     RETURNING ${COLUMNS}`,
    [paymentId],
  );
  return res.rows[0] ?? null;
}
