/**
 * The gateway's wire shapes, field for field (snake_case as on the wire). Amounts are
 * integers in the currency's smallest unit: cents for USD, EUR and GBP, whole rupiah for IDR.
 */

export type PaymentStatus = 'initiated' | 'succeeded' | 'failed' | 'canceled';
export type FinalPaymentStatus = Exclude<PaymentStatus, 'initiated'>;
export type RefundStatus = 'initiated' | 'succeeded' | 'failed';
export type Currency = 'IDR' | 'USD' | 'EUR' | 'GBP';
export type PaymentMethod =
  'qris' | 'va_bca' | 'va_mandiri' | 'va_bni' | 'va_bri' | 'va_permata' | 'card_psp' | 'wallet_psp';
export type Metadata = Record<string, unknown>;

/** Body of POST /v1/payments. */
export interface CreatePaymentParams {
  /** Stable per-buyer id from your app; no personal data. */
  external_user_id: string;
  /** Buyer email; the IDR provider refuses QR and virtual-account payments without it. */
  email?: string;
  amount_minor: number;
  currency: Currency;
  method: PaymentMethod;
  /** Where the provider sends the buyer afterwards (its query string proves nothing). */
  return_url: string;
  /** Echoed on webhooks; card payments need `card_psp_product_id`. */
  metadata?: Metadata;
  /** 1 to 12 chars: an uppercase letter, then uppercase letters, digits or dashes. */
  invoice_prefix?: string;
}

/** 201 answer of POST /v1/payments. */
export interface CreatedPayment {
  payment_id: string;
  status: PaymentStatus;
  /** Send the buyer here unless you render the QR yourself (qr_string present). */
  checkout_url: string;
  /** Only when invoice_prefix was given. */
  invoice_number?: string;
  /** Only for qris when the operator enabled direct QR registration. */
  qr_string?: string;
  /** Same condition as qr_string. */
  qr_image_url?: string;
}

/** GET /v1/payments/{payment_id}. */
export interface Payment {
  payment_id: string;
  status: PaymentStatus;
  amount_minor: number;
  currency: Currency;
  method: PaymentMethod;
  provider: string;
  provider_ref: string;
  metadata: Metadata;
  /** `""` when the payment has none. */
  invoice_number: string;
  /** The provider's text of the last failure; `""` when none. */
  last_error: string;
  /** RFC 3339, UTC. */
  created_at: string;
  updated_at: string;
}

/** Body of POST /v1/refunds. */
export interface CreateRefundParams {
  payment_id: string;
  /** Omit for a full refund; never more than the payment's amount. */
  amount_minor?: number;
  reason?: string;
}

/** 201 answer of POST /v1/refunds. */
export interface Refund {
  refund_id: string;
  payment_id: string;
  status: RefundStatus;
  amount_minor: number;
  currency: Currency;
  provider_ref: string;
  reason: string;
  created_at: string;
}

/** payment.succeeded, payment.failed, payment.canceled. Note `amount`, not `amount_minor`. */
export interface PaymentEvent {
  event: 'payment.succeeded' | 'payment.failed' | 'payment.canceled';
  payment_id: string;
  status: FinalPaymentStatus;
  amount: number;
  currency: Currency;
  method: PaymentMethod;
  provider: string;
  provider_ref: string;
  /** RFC 3339, UTC: order events by this, not by arrival. */
  timestamp: string;
  metadata: Metadata;
}

/** refund.succeeded, refund.failed; metadata is the payment's. */
export interface RefundEvent {
  event: 'refund.succeeded' | 'refund.failed';
  refund_id: string;
  payment_id: string;
  status: RefundStatus;
  amount: number;
  currency: Currency;
  provider: string;
  provider_ref: string;
  reason: string;
  timestamp: string;
  metadata: Metadata;
}

/** subscription.canceled, subscription.revoked; payment_id is the subscription's first charge. */
export interface SubscriptionEvent {
  event: 'subscription.canceled' | 'subscription.revoked';
  payment_id: string;
  subscription_id: string;
  status: 'canceled' | 'revoked';
  provider: string;
  timestamp: string;
  metadata: Metadata;
}

/**
 * dispute.opened, dispute.closed: sent only to webhook endpoints subscribed to them, never
 * to the app's webhook_url. amount is what the provider took back; metadata is the payment's.
 */
export interface DisputeEvent {
  event: 'dispute.opened' | 'dispute.closed';
  dispute_id: string;
  payment_id: string;
  status: 'open' | 'won' | 'lost';
  amount: number;
  currency: Currency;
  provider: string;
  provider_ref: string;
  reason: string;
  timestamp: string;
  metadata: Metadata;
}

/**
 * Every body the app's webhook_url receives; switch on `event` to narrow it. Dispute events
 * go only to webhook endpoints subscribed to them: verify those with `{ allowDisputes: true }`.
 */
export type WebhookEvent = PaymentEvent | RefundEvent | SubscriptionEvent;
export type WebhookEventType = WebhookEvent['event'];

/** A payment in a terminal status: it never changes again. */
export type FinalPayment = Payment & { status: FinalPaymentStatus };
