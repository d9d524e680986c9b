import { isDeliveredEventType, UNDELIVERED_EVENT_TYPES } from '../domain/events.js';
import { newDeliveryId, newEventId } from '../domain/ids.js';
import { DELIVERY_CHANNEL } from './deliveries.js';
import { packEventBody } from './eventBody.js';
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
 * The SQL expressions an outbox write takes, each a parameter, a column of the source row or
 * a literal; `from` is the relation of at most one row the event is written for (the state
 * change's RETURNING), or null for one row.
 */
export interface OutboxWriteSql {
  from: string | null;
  eventId: string;
  appId: string;
  paymentId: string;
  refundId: string;
  eventType: string;
  /** The body as db/eventBody.ts packEventBody stores it: codec, size in bytes, bytes. */
  bodyCodec: string;
  bodySize: string;
  bodyPacked: string;
  dedupeKey: string;
  createdAt: string;
  deliveryId: string;
  /** True for the kinds sent to a URL (domain/events.ts): those get their first delivery. */
  delivered: string;
}

/**
 * The one outbox writer (ADR 0004): the common table expressions `ev` (the outbound event,
 * none when its dedupe key exists) and `dl` (its first delivery) that every statement writing
 * an event embeds, so the event commits with the state change it reports, in its statement
 * or its transaction (transactional outbox, docs/api.md#delivery-and-retries). The
 * statement ends with `SELECT pg_notify(DELIVERY_CHANNEL, '') FROM dl`: NOTIFY inside a
 * transaction is sent at commit, so workers wake exactly when the row becomes visible.
 */
export function outboxWrite(e: OutboxWriteSql): string {
  return `ev AS (
  INSERT INTO outbound_events (id, app_id, payment_id, refund_id, event_type, body_codec,
    body_size, body_packed, dedupe_key, created_at)
  SELECT ${e.eventId}, ${e.appId}, ${e.paymentId}, ${e.refundId}, ${e.eventType},
    ${e.bodyCodec}::smallint, ${e.bodySize}::int, ${e.bodyPacked}::bytea,
    ${e.dedupeKey}, ${e.createdAt}${e.from === null ? '' : ` FROM ${e.from}`}
  ON CONFLICT (dedupe_key) WHERE dedupe_key IS NOT NULL DO NOTHING
  RETURNING id, app_id, payment_id),
dl AS (
  INSERT INTO deliveries (id, event_id, app_id)
  SELECT ${e.deliveryId}, id, app_id FROM ev WHERE ${e.delivered}
  RETURNING id)`;
}

const ENQUEUE_SQL = `WITH ${outboxWrite({
  from: null,
  eventId: '$1',
  appId: '$2',
  paymentId: '$3',
  refundId: '$4',
  eventType: '$5',
  bodyCodec: '$6',
  bodySize: '$11',
  bodyPacked: '$12',
  dedupeKey: '$7',
  createdAt: "now() + $8::int * interval '1 microsecond'",
  deliveryId: '$9',
  delivered: '$10::boolean',
})}
SELECT (SELECT id FROM ev) AS event_id, (SELECT id FROM dl) AS delivery_id,
  (SELECT pg_notify('${DELIVERY_CHANNEL}', '') FROM dl) AS notified`;

/**
 * Writes an outbound event and its first delivery (none for the kinds sent to no URL,
 * domain/events.ts UNDELIVERED_EVENT_TYPES: deliveryId null), in one statement. Call inside
 * the transaction that makes the state change. Returns null when an event with the same
 * dedupe key already exists.
 */
export async function enqueueEvent(
  tx: Queryable,
  e: NewOutboundEvent,
): Promise<{ eventId: string; deliveryId: string | null } | null> {
  const body = packEventBody(e.eventType, e.body);
  const res = await tx.query<{ event_id: string | null; delivery_id: string | null }>({
    name: 'outbox_enqueue_event',
    text: ENQUEUE_SQL,
    values: [
      newEventId(),
      e.appId,
      e.paymentId,
      e.refundId ?? null,
      e.eventType,
      body.codec,
      e.dedupeKey ?? null,
      e.sequence ?? 0,
      newDeliveryId(),
      isDeliveredEventType(e.eventType),
      body.size,
      body.bytes,
    ],
  });
  const row = res.rows[0];
  if (!row?.event_id) return null;
  return { eventId: row.event_id, deliveryId: row.delivery_id };
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
