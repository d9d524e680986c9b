import { newDeliveryId } from '../domain/ids.js';
import type { Queryable } from './pool.js';

/** NOTIFY channel that wakes the delivery workers when a delivery commits. */
export const DELIVERY_CHANNEL = 'paygate_delivery';

/** A fresh delivery of an event; call in the transaction that writes the event or asks for it. */
export async function insertDelivery(
  tx: Queryable,
  eventId: string,
  appId: string,
  paymentId: string | null,
): Promise<string> {
  const deliveryId = newDeliveryId();
  await tx.query({
    name: 'outbox_insert_delivery',
    text: `INSERT INTO deliveries (id, event_id, app_id, payment_id) VALUES ($1, $2, $3, $4)`,
    values: [deliveryId, eventId, appId, paymentId],
  });
  await tx.query(`NOTIFY ${DELIVERY_CHANNEL}`);
  return deliveryId;
}

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  id: string;
  attempts: number;
  event_id: string;
  app_id: string;
  body: string;
  webhook_url: string | null;
  webhook_secret_enc: string;
  mode: string;
}

const CLAIM_SQL = `
WITH due AS (
  SELECT id FROM deliveries
  WHERE status = 'pending' AND next_attempt_at <= now()
    AND (locked_until IS NULL OR locked_until < now())
  ORDER BY next_attempt_at
  LIMIT $1
  FOR UPDATE SKIP LOCKED)
UPDATE deliveries d
SET locked_until = now() + $2 * interval '1 millisecond', attempts = d.attempts + 1, updated_at = now()
FROM due, outbound_events e, apps a
WHERE d.id = due.id AND e.id = d.event_id AND a.id = d.app_id
RETURNING d.id, d.attempts, d.event_id, d.app_id, e.body, a.webhook_url, a.webhook_secret_enc, a.mode`;

/**
 * Claims up to `limit` due deliveries for one attempt each under a lease of `leaseMs`:
 * SKIP LOCKED keeps instances apart, and a worker that dies loses its claim with the lease.
 */
export async function claimDueDeliveries(
  db: Queryable,
  limit: number,
  leaseMs: number,
): Promise<ClaimedDelivery[]> {
  return (await db.query<ClaimedDelivery>(CLAIM_SQL, [limit, leaseMs])).rows;
}

// One statement: the attempt row and the delivery's new state commit together.
const RECORD_SQL = `
WITH upd AS (
  UPDATE deliveries SET
    status = CASE $2 WHEN 'delivered' THEN 'delivered' WHEN 'dead' THEN 'dead' ELSE 'pending' END,
    last_status_code = $3, last_error = $4, last_response_body = $9, locked_until = NULL,
    next_attempt_at = CASE WHEN $2 = 'retry' THEN now() + $5 * interval '1 millisecond' ELSE next_attempt_at END,
    delivered_at = CASE WHEN $2 = 'delivered' THEN now() END,
    updated_at = now()
  WHERE id = $1 AND status = 'pending'
  RETURNING id)
INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error, outcome, response_body)
SELECT id, $6, $7, $8, $3, $4, $2, $9 FROM upd`;

export interface DeliveryAttempt {
  deliveryId: string;
  verdict: 'delivered' | 'dead' | 'retry';
  statusCode: number | null;
  error: string | null;
  /** The receiver's answer, first 1 KiB (delivery/sender.ts); null when none came. */
  responseBody: string | null;
  /** Delay before the next attempt when the verdict is retry. */
  delayMs: number;
  attempt: number;
  startedAt: Date;
  durationMs: number;
}

export async function recordDeliveryAttempt(db: Queryable, a: DeliveryAttempt): Promise<void> {
  await db.query(RECORD_SQL, [
    a.deliveryId,
    a.verdict,
    a.statusCode,
    a.error,
    a.delayMs,
    a.attempt,
    a.startedAt,
    a.durationMs,
    a.responseBody,
  ]);
}

export interface DeliveryListRow {
  id: string;
  event_id: string;
  event_type: string;
  app_id: string;
  payment_id: string | null;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  last_response_body: string | null;
  next_attempt_at: Date;
  created_at: Date;
  updated_at: Date;
}

/** Deliveries newest first, optionally of one status. */
export async function listDeliveryRows(
  db: Queryable,
  status: string | null,
  limit: number,
): Promise<DeliveryListRow[]> {
  const res = await db.query<DeliveryListRow>(
    `SELECT d.id, d.event_id, e.event_type, d.app_id, d.payment_id, d.status, d.attempts,
       d.last_status_code, d.last_error, d.last_response_body, d.next_attempt_at, d.created_at, d.updated_at
     FROM deliveries d JOIN outbound_events e ON e.id = d.event_id
     WHERE ($1::text IS NULL OR d.status = $1)
     ORDER BY d.updated_at DESC, d.id DESC LIMIT $2`,
    [status, limit],
  );
  return res.rows;
}
