import type { PaymentStatus } from './types.js';

/** Outbound event kinds (docs/api.md#event-kinds). */
export type OutboundEventType =
  | 'payment.succeeded'
  | 'payment.failed'
  | 'payment.canceled'
  | 'subscription.canceled'
  | 'subscription.revoked'
  | 'refund.succeeded'
  | 'refund.failed';

export function paymentEventType(status: Exclude<PaymentStatus, 'initiated'>): OutboundEventType {
  return `payment.${status}`;
}

interface PaymentFacts {
  id: string;
  status: string;
  amount_minor: number;
  currency: string;
  method: string;
  provider: string;
  provider_ref: string | null;
  metadata: Record<string, unknown>;
}

/** docs/api.md#event-bodies, field for field. The amount is named `amount` here, not amount_minor. */
export function paymentEventBody(event: OutboundEventType, p: PaymentFacts, at: Date): string {
  return JSON.stringify({
    event,
    payment_id: p.id,
    status: p.status,
    amount: p.amount_minor,
    currency: p.currency,
    method: p.method,
    provider: p.provider,
    provider_ref: p.provider_ref ?? '',
    timestamp: at.toISOString(),
    metadata: p.metadata,
  });
}

interface RefundFacts {
  id: string;
  payment_id: string;
  status: string;
  amount_minor: number;
  currency: string;
  provider: string;
  provider_ref: string | null;
  reason: string;
}

/** docs/api.md#event-bodies: refund event body; metadata is the payment's. */
export function refundEventBody(
  event: OutboundEventType,
  r: RefundFacts,
  paymentMetadata: Record<string, unknown>,
  at: Date,
): string {
  return JSON.stringify({
    event,
    refund_id: r.id,
    payment_id: r.payment_id,
    status: r.status,
    amount: r.amount_minor,
    currency: r.currency,
    provider: r.provider,
    provider_ref: r.provider_ref ?? '',
    reason: r.reason,
    timestamp: at.toISOString(),
    metadata: paymentMetadata,
  });
}

/** docs/api.md#event-bodies: subscription event body; payment_id is the subscription's first charge. */
export function subscriptionEventBody(
  event: 'subscription.canceled' | 'subscription.revoked',
  firstPaymentId: string,
  subscriptionId: string,
  provider: string,
  metadata: Record<string, unknown>,
  at: Date,
): string {
  return JSON.stringify({
    event,
    payment_id: firstPaymentId,
    subscription_id: subscriptionId,
    status: event === 'subscription.canceled' ? 'canceled' : 'revoked',
    provider,
    timestamp: at.toISOString(),
    metadata,
  });
}
