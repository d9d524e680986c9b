import { isDeliveredEventType, UNDELIVERED_EVENT_TYPES } from '../domain/events.js';
import { newEventId } from '../domain/ids.js';
import { insertDelivery } from './deliveries.js';
import type { Queryable } from './pool.js';

export interface NewOutboundEvent {
  appId: string;
  paymentId: string | null;
  refundId?: string | null;
  eventType: string;
  body: string;
  dedupeKey?: string | null;
  /**
   * Events written in one transaction share its now(): a later one of them says how many
   * microseconds after, so feeds that order by created_at keep the order they happened in.
   */
  sequence?: number;
}

/**
 * Writes an outbound event and its first delivery (none for the kinds sent to no URL,
 * domain/events.ts UNDELIVERED_EVENT_TYPES: deliveryId null). Call inside the transaction that makes
 * the state change (transactional outbox, docs/api.md#delivery-and-retries). NOTIFY inside a transaction is sent at
 * commit, so workers wake exactly when the row becomes visible. Returns null when an
 * event with the same dedupe key already exists.
 */
export async function enqueueEvent(
  tx: Queryable,
  e: NewOutboundEvent,
): Promise<{ eventId: string; deliveryId: string | null } | null> {
  const eventId = newEventId();
  const inserted = await tx.query({
    name: 'outbox_insert_event',
    text: `INSERT INTO outbound_events (id, app_id, payment_id, refund_id, event_type, body, dedupe_key,
         created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, now() + $8::int * interval '1 microsecond')
       ON CONFLICT (dedupe_key) DO NOTHING`,
    values: [
      eventId,
      e.appId,
      e.paymentId,
      e.refundId ?? null,
      e.eventType,
      e.body,
      e.dedupeKey ?? null,
      e.sequence ?? 0,
    ],
  });
  if (inserted.rowCount !== 1) return null;
  if (!isDeliveredEventType(e.eventType)) return { eventId, deliveryId: null };
  const deliveryId = await insertDelivery(tx, eventId, e.appId, e.paymentId);
  return { eventId, deliveryId };
}

/**
 * The payment's most recent event that goes to the app's URL, for the operator's retry-webhook
 * (docs/api.md#webhook-retry).
 */
export async function latestPaymentEvent(
  db: Queryable,
  paymentId: string,
): Promise<{ id: string; app_id: string } | null> {
  const res = await db.query<{ id: string; app_id: string }>(
    `SELECT id, app_id FROM outbound_events
     WHERE payment_id = $1 AND event_type <> ALL ($2::text[])
     ORDER BY created_at DESC, id DESC LIMIT 1`,
    [paymentId, UNDELIVERED_EVENT_TYPES],
  );
  return res.rows[0] ?? null;
}
