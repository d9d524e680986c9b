/**
 * The card_psp simulator's state and the provider objects it answers with. Every object is
 * built in full, with every field Polar always sends (checked in tests against Polar's own
 * SDK schemas), so that a client written against Polar reads the simulator's answers and
 * webhook bodies unchanged. Fields the simulator has no notion of (taxes, discounts, trials,
 * custom fields, meters) carry Polar's values for "none": null, 0, false or empty.
 */
import { createHash } from 'node:crypto';

// Polar's enumerations as its API reference lists them (polar.sh/docs/api-reference), for
// the values the simulator produces.
/** A checkout session's status. */
export type CheckoutStatus = 'open' | 'expired' | 'confirmed' | 'succeeded' | 'failed';
/** Why an order was made. */
export type BillingReason =
  'purchase' | 'subscription_create' | 'subscription_cycle' | 'subscription_update';
/** An order's status. */
export type OrderStatus = 'pending' | 'paid' | 'refunded' | 'partially_refunded';
/** Polar's metadata: string keys to strings, integers, floats or booleans. */
export type Metadata = Record<string, string | number | boolean>;

export interface SimOrder {
  id: string;
  created_at: string;
  billing_reason: BillingReason;
  amount: number;
  refunded_amount: number;
  /** When the refund was made (absent on orders refunded before refunds were listed). */
  refunded_at?: string;
}

export interface SimSubscription {
  id: string;
  status: 'active' | 'canceled';
  current_period_start: string;
  current_period_end: string;
  cancel_at_period_end: boolean;
  canceled_at: string | null;
  ended_at: string | null;
}

/** One checkout and everything it led to; updated under a row lock (SimStore.update). */
export interface SimCheckout {
  id: string;
  status: CheckoutStatus;
  created_at: string;
  modified_at: string | null;
  expires_at: string;
  success_url: string;
  product_id: string;
  amount: number;
  currency: string;
  customer_email: string | null;
  external_customer_id: string | null;
  customer_id: string;
  metadata: Metadata;
  failure_reason: string | null;
  order: SimOrder | null;
  renewals: SimOrder[];
  subscription: SimSubscription | null;
  /** As requested at create; the provider's default is true for both. */
  allow_discount_codes?: boolean;
  allow_trial?: boolean;
  /** Stored since the objects were built in full; derived for rows written before. */
  client_secret?: string;
  price_id?: string;
  /** Faults of the test_scenario already played (simulators/faults.ts). */
  faults_played?: string[];
}

/** What every object of one simulator shares: its organization and page URLs. */
export interface SimContext {
  organizationId: string;
  checkoutUrl(checkoutId: string): string;
  nowMs: number;
}

/** A stable UUID-shaped id from a seed (objects the simulator does not store separately). */
export function derivedId(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** An open checkout past its expiry reads as expired, as the provider would report it. */
export function effectiveStatus(c: SimCheckout, nowMs: number): CheckoutStatus {
  return c.status === 'open' && nowMs > Date.parse(c.expires_at) ? 'expired' : c.status;
}

function priceId(c: SimCheckout): string {
  return c.price_id ?? derivedId(`price:${c.id}`);
}

/** The ad-hoc monthly price the checkout was created with. */
function wirePrice(c: SimCheckout) {
  return {
    created_at: c.created_at,
    modified_at: null,
    id: priceId(c),
    source: 'ad_hoc',
    amount_type: 'fixed',
    price_currency: c.currency,
    tax_behavior: null,
    is_archived: false,
    product_id: c.product_id,
    price_amount: c.amount,
  };
}

/** The product as orders carry it (no prices or benefits). */
function wireProductBase(c: SimCheckout, ctx: SimContext) {
  return {
    metadata: {},
    id: c.product_id,
    created_at: c.created_at,
    modified_at: null,
    trial_interval: null,
    trial_interval_count: null,
    name: c.product_id,
    description: null,
    visibility: 'private',
    recurring_interval: 'month',
    recurring_interval_count: 1,
    meter_interval: null,
    meter_interval_count: null,
    is_recurring: true,
    is_archived: false,
    organization_id: ctx.organizationId,
  };
}

/** The product as checkouts and subscriptions carry it. */
function wireProduct(c: SimCheckout, ctx: SimContext) {
  return {
    ...wireProductBase(c, ctx),
    prices: [wirePrice(c)],
    benefits: [],
    medias: [],
    attached_custom_fields: [],
  };
}

function wireCustomer(c: SimCheckout, ctx: SimContext) {
  return {
    id: c.customer_id,
    created_at: c.created_at,
    modified_at: null,
    metadata: {},
    external_id: c.external_customer_id,
    email: c.customer_email,
    email_verified: false,
    type: 'individual',
    name: null,
    billing_name: null,
    billing_address: null,
    tax_id: null,
    locale: null,
    organization_id: ctx.organizationId,
    default_payment_method_id: null,
    deleted_at: null,
    avatar_url: null,
  };
}

/** The subscription fields every form of it carries (alone, and inside an order). */
function wireSubscriptionBase(c: SimCheckout, s: SimSubscription) {
  return {
    metadata: c.metadata,
    created_at: c.order?.created_at ?? c.created_at,
    modified_at: s.canceled_at ?? null,
    id: s.id,
    amount: c.amount,
    currency: c.currency,
    recurring_interval: 'month',
    recurring_interval_count: 1,
    status: s.status,
    current_period_start: s.current_period_start,
    current_period_end: s.current_period_end,
    current_meter_period_start: null,
    current_meter_period_end: null,
    trial_start: null,
    trial_end: null,
    cancel_at_period_end: s.cancel_at_period_end,
    canceled_at: s.canceled_at,
    started_at: c.order?.created_at ?? c.created_at,
    ends_at: s.ended_at ?? (s.cancel_at_period_end ? s.current_period_end : null),
    ended_at: s.ended_at,
    past_due_at: null,
    pause_at_period_end: false,
    paused_at: null,
    resumes_at: null,
    customer_id: c.customer_id,
    product_id: c.product_id,
    discount_id: null,
    checkout_id: c.id,
    seats: null,
    customer_cancellation_reason: null,
    customer_cancellation_comment: null,
  };
}

/** GET /v1/subscriptions/{id}, and the data of subscription.* events. */
export function wireSubscription(c: SimCheckout, s: SimSubscription, ctx: SimContext) {
  return {
    ...wireSubscriptionBase(c, s),
    custom_field_data: {},
    customer: wireCustomer(c, ctx),
    product: wireProduct(c, ctx),
    discount: null,
    prices: [wirePrice(c)],
    meters: [],
    pending_update: null,
  };
}

/** POST /v1/checkouts/, GET /v1/checkouts/{id}, and the data of checkout.* events. */
export function wireCheckout(c: SimCheckout, ctx: SimContext) {
  const status = effectiveStatus(c, ctx.nowMs);
  const price = wirePrice(c);
  const product = wireProduct(c, ctx);
  return {
    id: c.id,
    created_at: c.created_at,
    modified_at: c.modified_at,
    custom_field_data: {},
    payment_processor: 'stripe',
    status,
    client_secret: c.client_secret ?? `polar_c_${derivedId(`secret:${c.id}`).replace(/-/g, '')}`,
    url: ctx.checkoutUrl(c.id),
    expires_at: c.expires_at,
    success_url: c.success_url,
    return_url: null,
    embed_origin: null,
    amount: c.amount,
    seats: null,
    min_seats: null,
    max_seats: null,
    discount_amount: 0,
    net_amount: c.amount,
    tax_amount: 0,
    tax_behavior: null,
    total_amount: c.amount,
    currency: c.currency,
    allow_trial: c.allow_trial ?? true,
    active_trial_interval: null,
    active_trial_interval_count: null,
    trial_end: null,
    organization_id: ctx.organizationId,
    product_id: c.product_id,
    product_price_id: price.id,
    discount_id: null,
    allow_discount_codes: c.allow_discount_codes ?? true,
    require_billing_address: false,
    is_discount_applicable: false,
    is_free_product_price: false,
    is_payment_required: true,
    is_payment_setup_required: true,
    is_payment_form_required: true,
    // The buyer becomes a customer when the checkout is paid.
    customer_id: status === 'succeeded' ? c.customer_id : null,
    is_business_customer: false,
    customer_name: null,
    customer_email: c.customer_email,
    customer_ip_address: null,
    customer_billing_name: null,
    customer_billing_address: null,
    customer_tax_id: null,
    locale: null,
    payment_processor_metadata: {},
    billing_address_fields: {
      country: 'required',
      state: 'disabled',
      city: 'disabled',
      postal_code: 'disabled',
      line1: 'disabled',
      line2: 'disabled',
    },
    trial_interval: null,
    trial_interval_count: null,
    metadata: c.metadata,
    external_customer_id: c.external_customer_id,
    products: [product],
    product,
    product_price: price,
    prices: { [c.product_id]: [price] },
    discount: null,
    subscription_id: c.subscription?.id ?? null,
    attached_custom_fields: [],
    customer_metadata: {},
    /**
     * Why the payment attempt failed. Not in Polar's schema (it reports status failed only);
     * the simulator adds it and the adapter reports it verbatim.
     */
    failure_reason: c.failure_reason,
  };
}

function orderStatus(o: SimOrder): OrderStatus {
  if (o.refunded_amount === 0) return 'paid';
  return o.refunded_amount < o.amount ? 'partially_refunded' : 'refunded';
}

/** The data of order.* events. */
export function wireOrder(c: SimCheckout, o: SimOrder, ctx: SimContext) {
  const renewal = o.billing_reason === 'subscription_cycle';
  const refunded = o.refunded_amount;
  return {
    id: o.id,
    created_at: o.created_at,
    modified_at: refunded > 0 ? new Date(ctx.nowMs).toISOString() : null,
    status: orderStatus(o),
    paid: true,
    subtotal_amount: o.amount,
    discount_amount: 0,
    net_amount: o.amount,
    tax_amount: 0,
    total_amount: o.amount,
    applied_balance_amount: 0,
    due_amount: 0,
    refunded_amount: refunded,
    refunded_tax_amount: 0,
    currency: c.currency,
    billing_reason: o.billing_reason,
    billing_name: null,
    billing_address: null,
    invoice_number: null,
    is_invoice_generated: false,
    receipt_number: null,
    seats: null,
    customer_id: c.customer_id,
    product_id: c.product_id,
    discount_id: null,
    subscription_id: c.subscription?.id ?? null,
    // Renewal orders are not bought through a checkout.
    checkout_id: renewal ? null : c.id,
    next_payment_attempt_at: null,
    metadata: c.metadata,
    custom_field_data: {},
    platform_fee_amount: 0,
    platform_fee_currency: null,
    customer: wireCustomer(c, ctx),
    product: wireProductBase(c, ctx),
    discount: null,
    subscription: c.subscription ? wireSubscriptionBase(c, c.subscription) : null,
    items: [
      {
        created_at: o.created_at,
        modified_at: null,
        id: derivedId(`item:${o.id}`),
        label: c.product_id,
        amount: o.amount,
        tax_amount: 0,
        proration: false,
        product_price_id: priceId(c),
      },
    ],
    description: c.product_id,
    refundable_amount: o.amount - refunded,
    refundable_tax_amount: 0,
  };
}
