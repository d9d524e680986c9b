import { randomBytes } from 'node:crypto';
import { DELIVERY_CHANNEL } from '../db/outbox.js';
import type { PaymentRow } from '../db/payments.js';
import type { Queryable } from '../db/pool.js';
import { paymentEventBody, paymentEventType } from '../domain/events.js';
import type { TerminalStatus } from '../domain/types.js';

export interface FinalizeInput {
  outcome: TerminalStatus;
  /** Verbatim provider error text; kept as last_error for failed payments. */
  errorText?: string;
  /** Provider enrichment merged into metadata (docs/api.md#metadata-enrichment). */
  enrichment?: Record<string, unknown>;
  subscriptionId?: string;
  /**
   * The reconciler failing a payment the provider has no registration for: only while it is
   * still unregistered and still under the reconciler's claim (deadline set to this value).
   */
  onlyIfUnregisteredUntil?: Date;
}

// One statement: the conditional status change, the outbox event and its first delivery
// commit together or not at all (transactional outbox, docs/api.md#delivery-and-retries); the NOTIFY that wakes the
// delivery workers is sent with that commit.
const FINALIZE_SQL = `
WITH upd AS (
  UPDATE payments SET status = $2,
    last_error = CASE WHEN $2 = 'failed' THEN $3 ELSE last_error END,
    metadata = $4::jsonb,
    subscription_id = COALESCE($5, subscription_id),
    finalized_at = $6, updated_at = $6
  WHERE id = $1 AND status = 'initiated'
    AND ($11::timestamptz IS NULL OR (provider_ref IS NULL AND provider_deadline = $11))
  RETURNING id, app_id),
ev AS (
  INSERT INTO outbound_events (id, app_id, payment_id, event_type, body)
  SELECT $7, app_id, id, $8, $9 FROM upd
  RETURNING id, app_id, payment_id),
dl AS (
  INSERT INTO deliveries (id, event_id, app_id, payment_id)
  SELECT $10, id, app_id, payment_id FROM ev
  RETURNING id)
SELECT pg_notify('${DELIVERY_CHANNEL}', '') FROM dl`;

/**
 * The one way a payment leaves initiated (docs/api.md#payment-states): a conditional UPDATE, so of
 * any number of concurrent events exactly one moves it, with the outbound event enqueued
 * in the same statement. `payment` is the row as read before (an initiated payment's
 * fields do not change until this statement). Returns the finalized row, or null when the
 * payment was already terminal.
 */
export async function finalizePayment(
  db: Queryable,
  payment: PaymentRow,
  input: FinalizeInput,
): Promise<PaymentRow | null> {
  const at = new Date();
  const finalized: PaymentRow = {
    ...payment,
    status: input.outcome,
    last_error: input.outcome === 'failed' ? (input.errorText ?? '') : payment.last_error,
    metadata: { ...payment.metadata, ...input.enrichment },
    finalized_at: at,
    updated_at: at,
  };
  const eventType = paymentEventType(input.outcome);
  const res = await db.query({
    name: 'payments_finalize',
    text: FINALIZE_SQL,
    values: [
      payment.id,
      input.outcome,
      input.errorText ?? '',
      JSON.stringify(finalized.metadata),
      input.subscriptionId ?? null,
      at,
      'evt_' + randomBytes(12).toString('hex'),
      eventType,
      paymentEventBody(eventType, finalized, at),
      'dlv_' + randomBytes(12).toString('hex'),
      input.onlyIfUnregisteredUntil ?? null,
    ],
  });
  return res.rowCount === 1 ? finalized : null;
}
