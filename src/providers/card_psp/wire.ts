/**
 * card_psp wire format, modelled on Polar (polar.sh), a merchant-of-record checkout API:
 * checkout sessions (POST /v1/checkouts/), orders, subscriptions and refunds, with webhooks
 * under the Standard Webhooks scheme. Field names are the provider's; nothing here leaves the
 * card_psp folder except through the adapter and the simulator that speaks the same protocol.
 */

/** Every checkout status the provider documents; the mapping switch covers each one. */
export const CHECKOUT_STATUSES = ['open', 'expired', 'confirmed', 'succeeded', 'failed'] as const;
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];

export const BILLING_REASONS = [
  'purchase',
  'subscription_create',
  'subscription_cycle',
  'subscription_update',
] as const;
export type BillingReason = (typeof BILLING_REASONS)[number];

export const ORDER_STATUSES = ['pending', 'paid', 'refunded', 'partially_refunded'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const SUBSCRIPTION_STATUSES = [
  'incomplete',
  'incomplete_expired',
  'trialing',
  'active',
  'past_due',
  'canceled',
  'unpaid',
] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const REFUND_STATUSES = ['pending', 'succeeded', 'failed', 'canceled'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** Metadata values the provider accepts (flat: strings, numbers, booleans). */
export type WireMetadata = Record<string, string | number | boolean>;

/** An ad-hoc price for one product of a checkout (amounts in cents, lowercase currency). */
export interface AdHocPrice {
  amount_type: 'fixed';
  price_amount: number;
  price_currency: string;
}

/** POST /v1/checkouts/ body (the fields we send). */
export interface CheckoutCreate {
  products: string[];
  /** Off: a buyer's discount code would make the provider take less than the payment. */
  allow_discount_codes: boolean;
  /** Off: a product's trial would start the subscription without taking the payment. */
  allow_trial: boolean;
  prices?: Record<string, AdHocPrice[]>;
  customer_email?: string;
  external_customer_id: string;
  success_url: string;
  metadata: WireMetadata;
}

export interface Checkout {
  id: string;
  status: CheckoutStatus;
  url: string;
  created_at: string;
  modified_at: string | null;
  expires_at: string;
  success_url: string;
  product_id: string;
  amount: number;
  /** The amount after discount, before tax: what the merchant asked for, net of discounts. */
  net_amount?: number;
  total_amount: number;
  currency: string;
  customer_email: string | null;
  external_customer_id: string | null;
  metadata: WireMetadata;
  subscription_id: string | null;
  /**
   * Why the payment attempt failed (card declined...). Not in Polar's public schema, which
   * only reports status failed; the simulator sends it and the adapter reports it verbatim.
   */
  failure_reason?: string | null;
}

export interface Subscription {
  id: string;
  status: SubscriptionStatus;
  amount: number;
  currency: string;
  recurring_interval: 'month' | 'year';
  current_period_start: string;
  current_period_end: string | null;
  cancel_at_period_end: boolean;
  canceled_at: string | null;
  ended_at: string | null;
  product_id: string;
  checkout_id: string | null;
  metadata: WireMetadata;
}

export interface Order {
  id: string;
  created_at: string;
  status: OrderStatus;
  paid: boolean;
  billing_reason: BillingReason;
  subtotal_amount: number;
  tax_amount: number;
  total_amount: number;
  net_amount: number;
  refunded_amount: number;
  currency: string;
  product_id: string;
  checkout_id: string | null;
  subscription_id: string | null;
  subscription: Subscription | null;
  metadata: WireMetadata;
  /** What the provider (merchant of record) kept of the order. */
  platform_fee_amount?: number;
}

/** A page of a list endpoint (GET /v1/orders/, GET /v1/refunds/). */
export interface ListResource<T> {
  items: T[];
  pagination: { total_count: number; max_page: number };
}

export interface Refund {
  id: string;
  /** In the list endpoint's answers (reconciliation). */
  created_at?: string;
  tax_amount?: number;
  status: RefundStatus;
  amount: number;
  currency: string;
  order_id: string;
  subscription_id: string | null;
  reason: string;
  metadata: WireMetadata;
  /** As failure_reason on Checkout: the simulator's verbatim failure text, if any. */
  failure_reason?: string | null;
}

/**
 * Event types, grouped by the object their data carries. The informational ones carry no
 * payment state change and map to { kind: 'none' } (docs/providers/card_psp.md lists them).
 */
export const CHECKOUT_EVENTS = [
  'checkout.created',
  'checkout.updated',
  'checkout.expired',
] as const;
export const ORDER_EVENTS = [
  'order.created',
  'order.updated',
  'order.paid',
  'order.refunded',
] as const;
export const SUBSCRIPTION_EVENTS = [
  'subscription.created',
  'subscription.updated',
  'subscription.active',
  'subscription.uncanceled',
  'subscription.past_due',
  'subscription.canceled',
  'subscription.revoked',
] as const;
export const REFUND_EVENTS = ['refund.created', 'refund.updated'] as const;
export const INFORMATIONAL_EVENTS = [
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'customer.state_changed',
  'benefit.created',
  'benefit.updated',
  'benefit_grant.created',
  'benefit_grant.updated',
  'benefit_grant.cycled',
  'benefit_grant.revoked',
  'product.created',
  'product.updated',
  'organization.updated',
] as const;

export type CheckoutEventType = (typeof CHECKOUT_EVENTS)[number];
export type OrderEventType = (typeof ORDER_EVENTS)[number];
export type SubscriptionEventType = (typeof SUBSCRIPTION_EVENTS)[number];
export type RefundEventType = (typeof REFUND_EVENTS)[number];
export type InformationalEventType = (typeof INFORMATIONAL_EVENTS)[number];

/**
 * A decoded webhook body: {type, timestamp, data}. Only the fields the mapping reads are
 * guaranteed (decoders in webhook.ts); the rest of a real payload is ignored.
 */
export type CardPspEvent =
  | { type: CheckoutEventType; timestamp: string; data: DecodedCheckout }
  | { type: OrderEventType; timestamp: string; data: DecodedOrder }
  | { type: SubscriptionEventType; timestamp: string; data: DecodedSubscription }
  | { type: RefundEventType; timestamp: string; data: DecodedRefund }
  | { type: InformationalEventType; timestamp: string; data: DecodedOther };

export type DecodedCheckout = Pick<Checkout, 'id' | 'status'> &
  Partial<Pick<Checkout, 'metadata' | 'subscription_id' | 'failure_reason'>>;

export type DecodedSubscription = Pick<Subscription, 'id'> &
  Partial<Pick<Subscription, 'status' | 'current_period_end' | 'checkout_id' | 'metadata'>>;

export type DecodedOrder = Pick<Order, 'id'> &
  Partial<
    Pick<
      Order,
      | 'status'
      | 'total_amount'
      | 'net_amount'
      | 'refunded_amount'
      | 'currency'
      | 'checkout_id'
      | 'subscription_id'
      | 'metadata'
    >
  > & {
    /** Null when the provider sent a reason this adapter does not know. */
    billing_reason: BillingReason | null;
    subscription: DecodedSubscription | null;
  };

export type DecodedRefund = Pick<Refund, 'id' | 'status'> &
  Partial<Pick<Refund, 'amount' | 'order_id' | 'subscription_id' | 'metadata' | 'failure_reason'>>;

/** Informational events: only what can tie them to a payment. */
export interface DecodedOther {
  metadata?: WireMetadata;
}

/** 422 validation error, FastAPI style, as the provider answers it. */
export interface ValidationError {
  error: 'RequestValidationError';
  detail: { loc: (string | number)[]; msg: string; type: string }[];
}

/** 401/403/404 and other errors. */
export interface ApiErrorBody {
  error: string;
  detail?: string;
  error_description?: string;
}
