/** SQL of the operator's payment detail (docs/api.md#payment-detail): the row, its refund, its deliveries. */
import { REFUND_LIST_COLUMNS, type RefundListRow } from './reportLists.js';
import { PAYMENT_COLUMNS, type PaymentRow } from './payments.js';
import type { Queryable } from './pool.js';

export interface PaymentDetailRow extends PaymentRow {
  inbound_events_count: number;
}

export async function paymentDetail(db: Queryable, id: string): Promise<PaymentDetailRow | null> {
  const res = await db.query<PaymentDetailRow>(
    `SELECT ${PAYMENT_COLUMNS},
       (SELECT count(*)::int FROM inbound_events i WHERE i.payment_id = payments.id) AS inbound_events_count
     FROM payments WHERE id = $1`,
    [id],
  );
  return res.rows[0] ?? null;
}

/** The payment's refund in the order of paymentScan.ts REFUND_STATUS: active first, else the latest. */
export async function paymentRefund(
  db: Queryable,
  paymentId: string,
): Promise<RefundListRow | null> {
  const res = await db.query<RefundListRow>(
    `SELECT ${REFUND_LIST_COLUMNS} FROM refunds r WHERE r.payment_id = $1
     ORDER BY (r.status <> 'failed') DESC, r.created_at DESC, r.id DESC LIMIT 1`,
    [paymentId],
  );
  return res.rows[0] ?? null;
}

export interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  endpoint_id: string | null;
  status: string;
  attempts: number;
  last_status_code: number | null;
  next_attempt_at: Date;
  delivered_at: Date | null;
  created_at: Date;
}

/**
 * Through the payment's events (outbound_events_payment_idx) and their deliveries
 * (deliveries_event_idx): a delivery's payment is its event's (migration 0034).
 */
export async function paymentDeliveries(db: Queryable, paymentId: string): Promise<DeliveryRow[]> {
  const res = await db.query<DeliveryRow>(
    `SELECT d.id, d.event_id, e.event_type, d.endpoint_id, d.status, d.attempts,
       d.last_status_code, d.next_attempt_at, d.delivered_at, d.created_at
     FROM outbound_events e JOIN deliveries d ON d.event_id = e.id
     WHERE e.payment_id = $1 ORDER BY d.created_at, d.id`,
    [paymentId],
  );
  return res.rows;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  response_body: string | null;
  duration_ms: number;
  started_at: Date;
  outcome: string;
}

export async function deliveryAttempts(
  db: Queryable,
  deliveryIds: string[],
): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  const res = await db.query<AttemptRow>(
    `SELECT delivery_id, attempt, status_code, response_body, error, duration_ms, started_at, outcome
     FROM delivery_attempts WHERE delivery_id = ANY($1::text[]) ORDER BY delivery_id, attempt, id`,
    [deliveryIds],
  );
  return res.rows;
}
