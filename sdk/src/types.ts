/**
 * The gateway's wire shapes, field for field (snake_case as on the wire), under the names
 * this SDK has always exported. The shapes themselves are generated from the gateway's
 * OpenAPI document into contract.gen.ts (`npm run types`); nothing here restates a field.
 * Amounts are integers in the currency's smallest unit: cents for USD, EUR and GBP, whole
 * rupiah for IDR.
 */
import type { components } from './contract.gen.js';

/**
 * The document leaves `currency` and `method` open strings (the gateway answers a code it
 * does not route with 422, not 400); the SDK closes them to the ones the gateway routes, so
 * a typo fails at compile time. These two lists are the SDK's only hand-written shapes.
 */
export type Currency = 'IDR' | 'USD' | 'EUR' | 'GBP';
export type PaymentMethod =
  'qris' | 'va_bca' | 'va_mandiri' | 'va_bni' | 'va_bri' | 'va_permata' | 'card_psp' | 'wallet_psp';

/** A generated shape with `currency` and `method` closed; every other field as generated. */
type Closed<T> = {
  [K in keyof T]: K extends 'currency' ? Currency : K extends 'method' ? PaymentMethod : T[K];
};
type Schemas = { [K in keyof components['schemas']]: Closed<components['schemas'][K]> };

/** Body of POST /v1/payments. */
export type CreatePaymentParams = Schemas['CreatePaymentParams'];
/** 201 answer of POST /v1/payments. */
export type CreatedPayment = Schemas['CreatedPayment'];
/** GET /v1/payments/{payment_id}. */
export type Payment = Schemas['Payment'];
/** Body of POST /v1/refunds. */
export type CreateRefundParams = Schemas['CreateRefundParams'];
/** 201 answer of POST /v1/refunds. */
export type Refund = Schemas['Refund'];
/** payment.succeeded, payment.failed, payment.canceled. Note `amount`, not `amount_minor`. */
export type PaymentEvent = Schemas['PaymentEvent'];
/** refund.succeeded, refund.failed; metadata is the payment's. */
export type RefundEvent = Schemas['RefundEvent'];
/** subscription.canceled, subscription.revoked; payment_id is the subscription's first charge. */
export type SubscriptionEvent = Schemas['SubscriptionEvent'];
/**
 * dispute.opened, dispute.closed: sent only to webhook endpoints subscribed to them, never
 * to the app's webhook_url. amount is what the provider took back; metadata is the payment's.
 */
export type DisputeEvent = Schemas['DisputeEvent'];

export type PaymentStatus = Payment['status'];
export type FinalPaymentStatus = Exclude<PaymentStatus, 'initiated'>;
export type RefundStatus = Refund['status'];
export type Metadata = Payment['metadata'];

/**
 * Every body the app's webhook_url receives; switch on `event` to narrow it. Dispute events
 * go only to webhook endpoints subscribed to them: verify those with `{ allowDisputes: true }`.
 */
export type WebhookEvent = PaymentEvent | RefundEvent | SubscriptionEvent;
export type WebhookEventType = WebhookEvent['event'];

/** A payment in a terminal status: it never changes again. */
export type FinalPayment = Payment & { status: FinalPaymentStatus };
