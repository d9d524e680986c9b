/**
 * The one place card_psp events and checkout statuses become canonical actions. Both switches
 * are exhaustive over the provider's documented values (a new value fails to compile), and the
 * table in docs/providers/card_psp.md mirrors them row for row.
 */
import { BadReference, type InboundAction, type InboundEvent, type Money } from '../types.js';
import type {
  CardPspEvent,
  CheckoutStatus,
  DecodedOrder,
  DecodedSubscription,
  WireMetadata,
} from './wire.js';

/** Used when the provider reports a failed checkout without saying why. */
export const DEFAULT_FAILURE_TEXT = 'checkout failed';
export const DEFAULT_REFUND_FAILURE_TEXT = 'refund failed';

function unreachable(v: never): never {
  throw new Error(`unmapped card_psp value ${String(v)}`);
}

/** Provider timestamps normalised to RFC 3339 UTC (docs/api.md#metadata-enrichment); unparseable ones are dropped. */
export function rfc3339(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

/** Metadata enrichment (docs/api.md#metadata-enrichment): subscription id, next renewal, the provider's event name. */
export function enrichment(
  eventType: string,
  subscriptionId: string | null | undefined,
  currentPeriodEnd: string | null | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (subscriptionId) out.card_psp_subscription_id = subscriptionId;
  const end = rfc3339(currentPeriodEnd);
  if (end) out.current_period_end = end;
  out.card_psp_event_type = eventType;
  return out;
}

/**
 * A checkout's status. Delivered as an event, succeeded changes nothing (order.paid carries
 * the subscription and settles the payment); read by a status poll it is the only signal left.
 */
export function checkoutStatusAction(
  status: CheckoutStatus,
  failureReason: string | null | undefined,
  via: 'event' | 'poll',
  poll: { enrichment: Record<string, unknown>; paid: Money | null } = {
    enrichment: {},
    paid: null,
  },
): InboundAction {
  switch (status) {
    case 'open':
    case 'confirmed':
      return { kind: 'none' };
    case 'succeeded':
      if (via === 'event') return { kind: 'none' };
      if (!poll.paid) throw new BadReference('succeeded checkout carries no amount');
      return {
        kind: 'payment',
        outcome: 'succeeded',
        paid: poll.paid,
        enrichment: poll.enrichment,
      };
    case 'failed':
      return {
        kind: 'payment',
        outcome: 'failed',
        errorText: failureReason || DEFAULT_FAILURE_TEXT,
      };
    case 'expired':
      // The buyer never paid before the session ended: abandoned, not a PSP failure.
      return { kind: 'payment', outcome: 'canceled' };
    default:
      return unreachable(status);
  }
}

function paymentIdOf(metadata: WireMetadata | undefined): string | undefined {
  const v = metadata?.payment_id;
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function orderPaid(type: string, order: DecodedOrder): InboundAction {
  const subscriptionId = order.subscription_id ?? order.subscription?.id ?? null;
  const extra = enrichment(type, subscriptionId, order.subscription?.current_period_end);
  const reason = order.billing_reason;
  switch (reason) {
    case 'subscription_cycle': {
      if (!subscriptionId) throw new BadReference(`${type} renewal carries no subscription_id`);
      if (order.total_amount === undefined || !order.currency) {
        throw new BadReference(`${type} renewal ${order.id} carries no amount or currency`);
      }
      return {
        kind: 'renewal',
        subscriptionId,
        providerRef: order.id,
        amountMinor: order.total_amount,
        currency: order.currency.toUpperCase(),
        enrichment: extra,
      };
    }
    case 'subscription_update':
      // A proration charge for a plan change: no payment of ours starts or ends with it.
      return { kind: 'none' };
    case 'purchase':
    case 'subscription_create':
    case null:
      // An unknown reason on a paid order tied to our payment still means it was paid.
      return {
        kind: 'payment',
        outcome: 'succeeded',
        paid: orderNet(type, order),
        enrichment: extra,
      };
    default:
      return unreachable(reason);
  }
}

/**
 * What the order charged for the payment: its net amount (after any discount, before the tax
 * the provider adds as merchant of record), in its currency.
 */
function orderNet(type: string, order: DecodedOrder): Money {
  if (order.net_amount === undefined || !order.currency) {
    throw new BadReference(`${type} ${order.id} carries no net_amount or currency`);
  }
  return { amountMinor: order.net_amount, currency: order.currency.toUpperCase() };
}

function subscriptionAction(
  event: 'subscription.canceled' | 'subscription.revoked',
  sub: DecodedSubscription,
): InboundAction {
  return {
    kind: 'subscription',
    event,
    subscriptionId: sub.id,
    enrichment: enrichment(event, sub.id, sub.current_period_end),
  };
}

/** A decoded webhook -> what it means to the gateway, and how to find the payment. */
export function mapEvent(ev: CardPspEvent): InboundEvent {
  const out: InboundEvent = { eventType: ev.type, action: { kind: 'none' } };
  switch (ev.type) {
    case 'checkout.created':
    case 'checkout.updated':
    case 'checkout.expired': {
      out.paymentId = paymentIdOf(ev.data.metadata);
      out.providerRef = ev.data.id;
      out.action =
        ev.type === 'checkout.created'
          ? { kind: 'none' }
          : ev.type === 'checkout.expired'
            ? checkoutStatusAction('expired', null, 'event')
            : checkoutStatusAction(ev.data.status, ev.data.failure_reason, 'event');
      break;
    }
    case 'order.created':
    case 'order.updated':
    case 'order.paid':
    case 'order.refunded': {
      const order = ev.data;
      out.paymentId = paymentIdOf(order.metadata);
      out.providerRef = order.checkout_id ?? undefined;
      out.subscriptionId = order.subscription_id ?? order.subscription?.id ?? undefined;
      if (ev.type === 'order.paid') out.action = orderPaid(ev.type, order);
      else if (ev.type === 'order.refunded') {
        if (order.billing_reason === 'subscription_cycle') {
          // A renewal order is its own payment (provider_ref = the order id), while its
          // metadata still names the first charge: refund the renewal, not the first charge.
          out.paymentId = undefined;
          out.providerRef = order.id;
        }
        // The order's first refund is named by the order id; refunded_amount is the running
        // total, so a later refund of the same order is the difference (services/refunds/providerEvents.ts).
        out.action = {
          kind: 'refund',
          outcome: 'succeeded',
          providerRefundRef: order.id,
          amountMinor: order.refunded_amount || order.total_amount,
          ...(order.refunded_amount ? { refundedTotalMinor: order.refunded_amount } : {}),
        };
      }
      break;
    }
    case 'subscription.created':
    case 'subscription.updated':
    case 'subscription.active':
    case 'subscription.uncanceled':
    case 'subscription.past_due':
    case 'subscription.canceled':
    case 'subscription.revoked': {
      const sub = ev.data;
      out.subscriptionId = sub.id;
      out.paymentId = paymentIdOf(sub.metadata);
      out.providerRef = sub.checkout_id ?? undefined;
      if (ev.type === 'subscription.canceled' || ev.type === 'subscription.revoked') {
        out.action = subscriptionAction(ev.type, sub);
      }
      break;
    }
    case 'refund.created':
    case 'refund.updated': {
      const refund = ev.data;
      out.paymentId = paymentIdOf(refund.metadata);
      // A refund carries its own metadata, not the checkout's: one made in the provider's
      // dashboard names no payment of ours (empty metadata in the provider's documented
      // payload). order.refunded reports that refund with the checkout, so this copy is
      // acknowledged without effect rather than refused and redelivered.
      if (!out.paymentId) return out;
      const status = refund.status;
      switch (status) {
        case 'succeeded':
          out.action = {
            kind: 'refund',
            outcome: 'succeeded',
            providerRefundRef: refund.id,
            amountMinor: refund.amount,
          };
          break;
        case 'failed':
          out.action = {
            kind: 'refund',
            outcome: 'failed',
            providerRefundRef: refund.id,
            amountMinor: refund.amount,
            errorText: refund.failure_reason || DEFAULT_REFUND_FAILURE_TEXT,
          };
          break;
        case 'pending':
        case 'canceled':
          break;
        default:
          unreachable(status);
      }
      break;
    }
    case 'customer.created':
    case 'customer.updated':
    case 'customer.deleted':
    case 'customer.state_changed':
    case 'benefit.created':
    case 'benefit.updated':
    case 'benefit_grant.created':
    case 'benefit_grant.updated':
    case 'benefit_grant.cycled':
    case 'benefit_grant.revoked':
    case 'product.created':
    case 'product.updated':
    case 'organization.updated':
      out.paymentId = paymentIdOf(ev.data.metadata);
      break;
    default:
      unreachable(ev);
  }
  if (!out.paymentId && !out.providerRef && !out.subscriptionId) {
    throw new BadReference(`card_psp ${ev.type} carries no payment_id, checkout or subscription`);
  }
  return out;
}
