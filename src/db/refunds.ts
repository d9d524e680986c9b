import type { Mode } from '../domain/types.js';
import type { Queryable } from './pool.js';
import { storableText } from '../domain/storableText.js';
import { newId } from '../domain/ids.js';
import { STILL_INITIATED } from './payments.js';

export interface RefundRow {
  id: string;
  payment_id: string;
  app_id: string;
  mode: Mode;
  status: 'initiated' | 'succeeded' | 'failed';
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

export const REFUND_COLUMNS = `id, payment_id, app_id, mode, status, amount_minor, currency, provider,
  provider_ref, reason, last_error, succeeded_at, created_at, updated_at`;

/**
 * Inserts an initiated refund. The partial unique index (one initiated or succeeded refund
 * per payment, docs/api.md#create-a-refund) makes concurrent requests race in the database: null for the losers.
 */
export async function insertInitiatedRefund(
  db: Queryable,
  r: Pick<
    RefundRow,
    'id' | 'payment_id' | 'app_id' | 'mode' | 'amount_minor' | 'currency' | 'provider' | 'reason'
  >,
): Promise<RefundRow | null> {
  const res = await db.query<RefundRow>({
    name: 'refunds_insert',
    text: `INSERT INTO refunds (id, payment_id, app_id, mode, status, amount_minor, currency, provider, reason)
       VALUES ($1, $2, $3, $4, 'initiated', $5, $6, $7, $8)
       ON CONFLICT (payment_id) WHERE status IN ('initiated', 'succeeded') AND NOT additional
       DO NOTHING
       RETURNING ${REFUND_COLUMNS}`,
    values: [
      r.id,
      r.payment_id,
      r.app_id,
      r.mode,
      r.amount_minor,
      r.currency,
      r.provider,
      r.reason,
    ],
  });
  return res.rows[0] ?? null;
}

export async function findRefund(db: Queryable, id: string): Promise<RefundRow | null> {
  const res = await db.query<RefundRow>(`SELECT ${REFUND_COLUMNS} FROM refunds WHERE id = $1`, [
    id,
  ]);
  return res.rows[0] ?? null;
}

export async function activeRefundFor(db: Queryable, paymentId: string): Promise<RefundRow | null> {
  const res = await db.query<RefundRow>(
    `SELECT ${REFUND_COLUMNS} FROM refunds WHERE payment_id = $1 AND status IN ('initiated', 'succeeded')`,
    [paymentId],
  );
  return res.rows[0] ?? null;
}

/**
 * The ledger entry of a refund that succeeded in this statement (CTE `r`), booked with it
 * (docs/api.md#ledger): money out. A refund of a payment that never succeeded gives back a
 * late charge (linked to the payment's oldest one), so it is a late_charge_refund and the
 * two net to zero in the reports.
 */
const BOOK_REFUND = (idParam: string) => `
  booked AS (
    INSERT INTO ledger_entries (id, type, payment_id, refund_id, exception_id, app_id, provider,
      mode, currency, amount_minor, occurred_at)
    SELECT ${idParam}::text,
      CASE WHEN p.status = 'succeeded' THEN 'refund' ELSE 'late_charge_refund' END,
      r.payment_id, r.id,
      CASE WHEN p.status <> 'succeeded' THEN
        (SELECT e.id FROM payment_exceptions e
         WHERE e.payment_id = r.payment_id
           AND e.kind IN ('paid_after_cancel', 'paid_after_failure', 'amount_mismatch')
         ORDER BY e.detected_at, e.id LIMIT 1) END,
      r.app_id, r.provider, r.mode, r.currency, -r.amount_minor, r.succeeded_at
    FROM r JOIN payments p ON p.id = r.payment_id
    WHERE r.status = 'succeeded'
    ON CONFLICT DO NOTHING)`;

/** Moves an initiated refund to its outcome; null when something else settled it first. */
export async function settleRefund(
  db: Queryable,
  id: string,
  s: {
    status: 'initiated' | 'succeeded' | 'failed';
    providerRef: string | null;
    lastError?: string;
  },
): Promise<RefundRow | null> {
  // STILL_INITIATED: by primary key only; refunds_initiated_created_idx could be chosen on stale statistics.
  const res = await db.query<RefundRow>(
    `WITH r AS (
       UPDATE refunds SET status = $2, provider_ref = COALESCE($3, provider_ref),
         last_error = COALESCE($4, last_error),
         succeeded_at = CASE WHEN $2 = 'succeeded' THEN now() ELSE succeeded_at END,
         updated_at = now()
       WHERE id = $1 AND ${STILL_INITIATED} RETURNING ${REFUND_COLUMNS}),
     ${BOOK_REFUND('$5')}
     SELECT * FROM r`,
    [
      id,
      s.status,
      s.providerRef,
      s.lastError === undefined ? null : storableText(s.lastError),
      newId(),
    ],
  );
  return res.rows[0] ?? null;
}

/**
 * Initiated refunds whose provider call never answered, quiet for five minutes; the claim
 * moves updated_at, so instances never resend one at the same time.
 */
export async function claimUnansweredRefunds(db: Queryable, limit: number): Promise<RefundRow[]> {
  // Due on the database's clock, the one that stamped updated_at: an instance whose own clock
  // runs ahead must never resend a refund whose first call may still be waiting on the
  // provider. (Tests backdate the row instead of moving the gateway's clock.)
  const res = await db.query<RefundRow>(
    `UPDATE refunds SET updated_at = now()
     WHERE id IN (
       SELECT id FROM refunds
       WHERE status = 'initiated' AND provider_ref IS NULL
         AND updated_at < now() - interval '5 minutes'
       ORDER BY updated_at LIMIT $1 FOR UPDATE SKIP LOCKED)
     RETURNING ${REFUND_COLUMNS}`,
    [limit],
  );
  return res.rows;
}

/**
 * The refund a provider's refund event is about, locked for the rest of the transaction:
 * the one with the provider's refund id, else the payment's initiated refund awaiting one.
 */
export async function lockRefundForProviderEvent(
  tx: Queryable,
  provider: string,
  providerRefundRef: string,
  paymentId: string,
  orAwaiting: boolean,
): Promise<RefundRow | null> {
  const byRef = await tx.query<RefundRow>(
    `SELECT ${REFUND_COLUMNS} FROM refunds WHERE provider = $1 AND provider_ref = $2 FOR UPDATE`,
    [provider, providerRefundRef],
  );
  if (byRef.rows[0]) return byRef.rows[0];
  // Providers that take our refund id as their key (idr_psp's refund_key) name it directly.
  const byOurId = await tx.query<RefundRow>(
    `SELECT ${REFUND_COLUMNS} FROM refunds WHERE id = $1 AND payment_id = $2 FOR UPDATE`,
    [providerRefundRef, paymentId],
  );
  if (byOurId.rows[0]) return byOurId.rows[0];
  if (!orAwaiting) return null;
  const initiated = await tx.query<RefundRow>(
    `SELECT ${REFUND_COLUMNS} FROM refunds
     WHERE payment_id = $1 AND status = 'initiated' AND provider_ref IS NULL FOR UPDATE`,
    [paymentId],
  );
  return initiated.rows[0] ?? null;
}

/** Serialises a payment's provider refund events to the end of the transaction. */
export async function lockPaymentRefunds(tx: Queryable, paymentId: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('refunds:' || $1, 0))`, [
    paymentId,
  ]);
}

/** What the payment's succeeded refunds add up to. */
export async function succeededRefundTotal(tx: Queryable, paymentId: string): Promise<number> {
  const res = await tx.query<{ total: string }>(
    `SELECT COALESCE(sum(amount_minor), 0)::text AS total FROM refunds
     WHERE payment_id = $1 AND status = 'succeeded'`,
    [paymentId],
  );
  return Number(res.rows[0]?.total ?? 0);
}

/**
 * A refund made at the provider, recorded as it reported it; `additional` when the payment
 * already has its one active refund. Null when this provider reference is on record.
 */
export async function insertProviderRefund(
  tx: Queryable,
  r: Pick<
    RefundRow,
    'id' | 'payment_id' | 'app_id' | 'mode' | 'amount_minor' | 'currency' | 'provider'
  > & { status: 'succeeded' | 'failed'; provider_ref: string; last_error: string },
): Promise<RefundRow | null> {
  const res = await tx.query<RefundRow>(
    `WITH r AS (
       INSERT INTO refunds (id, payment_id, app_id, mode, status, amount_minor, currency,
         provider, provider_ref, last_error, succeeded_at, additional)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, CASE WHEN $5 = 'succeeded' THEN now() END,
         EXISTS (SELECT 1 FROM refunds WHERE payment_id = $2
                   AND status IN ('initiated', 'succeeded') AND NOT additional))
       ON CONFLICT DO NOTHING RETURNING ${REFUND_COLUMNS}),
     ${BOOK_REFUND('$11')}
     SELECT * FROM r`,
    [
      r.id,
      r.payment_id,
      r.app_id,
      r.mode,
      r.status,
      r.amount_minor,
      r.currency,
      r.provider,
      r.provider_ref,
      storableText(r.last_error),
      newId(),
    ],
  );
  return res.rows[0] ?? null;
}
