import { insertDelivery, listDeliveryRows } from '../db/deliveries.js';
import { latestPaymentEvent } from '../db/outbox.js';
import { findPayment } from '../db/payments.js';
import { withTransaction, type Pool } from '../db/pool.js';
import { apiError, notFoundPayment } from '../domain/errors.js';
import { isPaymentId } from '../domain/ids.js';
import type { Audit } from './audit.js';

/**
 * docs/api.md#webhook-retry: a fresh delivery of the payment's latest event, same event id and same body, for
 * when the app's endpoint was down. 202 with the delivery id.
 */
export async function retryWebhook(
  pool: Pool,
  paymentId: string,
  audit: Audit,
): Promise<{ delivery_id: string }> {
  if (!isPaymentId(paymentId) || !(await findPayment(pool, paymentId))) throw notFoundPayment();
  const event = await latestPaymentEvent(pool, paymentId);
  if (!event) throw apiError('no_webhook_event');
  const deliveryId = await withTransaction(pool, async (tx) => {
    const id = await insertDelivery(tx, event.id, event.app_id);
    await audit(tx, {
      targetType: 'payment',
      targetId: paymentId,
      outcome: 'enqueued',
      details: { delivery_id: id, event_id: event.id },
    });
    return id;
  });
  return { delivery_id: deliveryId };
}

export interface DeliveryView {
  delivery_id: string;
  event_id: string;
  event_type: string;
  app_id: string;
  endpoint_id: string | null;
  payment_id: string | null;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  last_response_body: string | null;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Deliveries for the operator, newest first; status 'dead' lists the ones given up. */
export async function listDeliveries(
  pool: Pool,
  status: string | null,
  limit: number,
): Promise<DeliveryView[]> {
  const rows = await listDeliveryRows(pool, status, limit);
  return rows.map((r) => ({
    delivery_id: r.id,
    event_id: r.event_id,
    event_type: r.event_type,
    app_id: r.app_id,
    endpoint_id: r.endpoint_id,
    payment_id: r.payment_id,
    status: r.status,
    attempts: r.attempts,
    last_status_code: r.last_status_code,
    last_error: r.last_error,
    last_response_body: r.last_response_body,
    next_attempt_at: r.status === 'pending' ? r.next_attempt_at.toISOString() : null,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  }));
}
