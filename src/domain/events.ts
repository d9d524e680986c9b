import type { PaymentStatus } from './types.js';

/** Outbound event kinds (docs/api.md#event-kinds). */
export type OutboundEventType =
  | 'payment.succeeded'
  | 'payment.failed'
  | 'payment.canceled'
  | 'subscription.canceled'
  | 'subscription.revoked'
  | 'refund.succeeded'
  | 'refund.failed'
  | 'dispute.opened'
  | 'dispute.closed';

/** The closed list of event kinds an endpoint may subscribe to (docs/api.md#event-kinds). */
export const EVENT_TYPES: readonly OutboundEventType[] = [
  'payment.succeeded',
  'payment.failed',
  'payment.canceled',
  'subscription.canceled',
  'subscription.revoked',
  'refund.succeeded',
  'refund.failed',
  'dispute.opened',
  'dispute.closed',
];

/**
 * Kinds stored and listed (GET /v1/events) but sent to no URL: an app's webhook_url receives
 * the specification's kinds only, so an app built to it never gets a kind it does not know.
 * They go to the webhook endpoints that subscribe to them (docs/api.md#webhook-endpoints).
 */
export const UNDELIVERED_EVENT_TYPES: readonly OutboundEventType[] = [
  'dispute.opened',
  'dispute.closed',
];

export function isDeliveredEventType(t: string): boolean {
  return !(UNDELIVERED_EVENT_TYPES as readonly string[]).includes(t);
}

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

interface DisputeFacts {
  id: string;
  payment_id: string;
  status: string;
  amount_minor: number;
  currency: string;
  provider: string;
  provider_ref: string;
  reason: string;
}

/** docs/api.md#event-bodies: dispute event body (D16); metadata is the payment's. */
export function disputeEventBody(
  event: 'dispute.opened' | 'dispute.closed',
  d: DisputeFacts,
  paymentMetadata: Record<string, unknown>,
  at: Date,
): string {
  return JSON.stringify({
    event,
    dispute_id: d.id,
    payment_id: d.payment_id,
    status: d.status,
    amount: d.amount_minor,
    currency: d.currency,
    provider: d.provider,
    provider_ref: d.provider_ref,
    reason: d.reason,
    timestamp: at.toISOString(),
    metadata: paymentMetadata,
  });
}
