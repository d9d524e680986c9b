/** The operator's payment detail (docs/api.md#payment-detail). */
import type { RefundListRow } from '../../db/reportLists.js';
import {
  deliveryAttempts,
  paymentDeliveries,
  paymentDetail,
  paymentRefund,
} from '../../db/reportDetail.js';
import { paymentDisputes } from '../../db/disputes.js';
import type { Queryable } from '../../db/pool.js';
import { notFoundPayment } from '../../domain/errors.js';
import { isPaymentId } from '../../domain/ids.js';
import type { Mode } from '../../domain/types.js';
import { toDisputeView, type DisputeView } from '../disputes.js';

export interface PaymentDetail {
  id: string;
  app_id: string;
  mode: Mode;
  status: string;
  amount_minor: number;
  currency: string;
  method: string;
  provider: string;
  provider_ref: string | null;
  external_user_id: string;
  email: string | null;
  return_url: string;
  metadata: Record<string, unknown>;
  invoice_number: string;
  last_error: string;
  checkout_url: string | null;
  qr_string: string | null;
  qr_image_url: string | null;
  provider_deadline: string | null;
  finalized_at: string | null;
  subscription_id: string | null;
  parent_payment_id: string | null;
  created_at: string;
  updated_at: string;
  /** As stored: written by the AdminRefund schema (the route serializes PaymentDetail). */
  refund: RefundListRow | null;
  /** D16: the payment's disputes, newest first. */
  disputes: DisputeView[];
  inbound_events_count: number;
  deliveries: {
    delivery_id: string;
    event_id: string;
    event_type: string;
    /** The webhook endpoint, null for the app's webhook_url (docs/api.md#webhook-endpoints). */
    endpoint_id: string | null;
    status: string;
    attempts_count: number;
    last_status_code: number | null;
    next_attempt_at: string | null;
    delivered_at: string | null;
    created_at: string;
    attempts: {
      attempt: number;
      status_code: number | null;
      /** The receiver's answer: its first 1 KiB as text (docs/api.md#payment-detail). */
      response_body: string | null;
      error: string | null;
      duration_ms: number;
      started_at: string;
      outcome: string;
    }[];
  }[];
}

/** docs/api.md#payment-detail: the full row plus app_id, its refund, its inbound events count and its deliveries. */
export async function getPaymentDetail(db: Queryable, id: string): Promise<PaymentDetail> {
  if (!isPaymentId(id)) throw notFoundPayment();
  const p = await paymentDetail(db, id);
  if (!p) throw notFoundPayment();
  const [refund, deliveries, disputes] = await Promise.all([
    paymentRefund(db, id),
    paymentDeliveries(db, id),
    paymentDisputes(db, id),
  ]);
  const attempts = await deliveryAttempts(
    db,
    deliveries.map((d) => d.id),
  );
  return {
    id: p.id,
    app_id: p.app_id,
    mode: p.mode,
    status: p.status,
    amount_minor: p.amount_minor,
    currency: p.currency,
    method: p.method,
    provider: p.provider,
    provider_ref: p.provider_ref,
    external_user_id: p.external_user_id,
    email: p.email,
    return_url: p.return_url,
    metadata: p.metadata,
    invoice_number: p.invoice_number ?? '',
    last_error: p.last_error,
    checkout_url: p.checkout_url,
    qr_string: p.qr_string,
    qr_image_url: p.qr_image_url,
    provider_deadline: p.provider_deadline?.toISOString() ?? null,
    finalized_at: p.finalized_at?.toISOString() ?? null,
    subscription_id: p.subscription_id,
    parent_payment_id: p.parent_payment_id,
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
    refund,
    disputes: disputes.map(toDisputeView),
    inbound_events_count: p.inbound_events_count,
    deliveries: deliveries.map((d) => ({
      delivery_id: d.id,
      event_id: d.event_id,
      event_type: d.event_type,
      endpoint_id: d.endpoint_id,
      status: d.status,
      attempts_count: d.attempts,
      last_status_code: d.last_status_code,
      next_attempt_at: d.status === 'pending' ? d.next_attempt_at.toISOString() : null,
      delivered_at: d.delivered_at?.toISOString() ?? null,
      created_at: d.created_at.toISOString(),
      attempts: attempts
        .filter((a) => a.delivery_id === d.id)
        .map((a) => ({
          attempt: a.attempt,
          status_code: a.status_code,
          response_body: a.response_body,
          error: a.error,
          duration_ms: a.duration_ms,
          started_at: a.started_at.toISOString(),
          outcome: a.outcome,
        })),
    })),
  };
}
