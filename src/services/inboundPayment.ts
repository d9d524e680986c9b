/** Finding the payment a provider event is about (services/inbound.ts). */
import { findPayment, findPaymentByProviderRef, type PaymentRow } from '../db/payments.js';
import { findFirstSubscriptionPayment } from '../db/paymentRenewals.js';
import type { Queryable } from '../db/pool.js';
import { apiError } from '../domain/errors.js';
import { isPaymentId } from '../domain/ids.js';
import type { ProviderSlug } from '../domain/types.js';
import { BadReference, type InboundEvent } from '../providers/types.js';
import { EventRejected } from './providerEvent.js';

/**
 * The payment id locatePayment looks up first for this event, when it is a well-formed one
 * and no subscription lookup comes before it; otherwise null (locatePayment reads alone).
 */
export function paymentIdHint(ev: InboundEvent): string | null {
  if (subscriptionScoped(ev) && ev.subscriptionId) return null;
  return ev.paymentId !== undefined && isPaymentId(ev.paymentId) ? ev.paymentId : null;
}

/** A renewal or subscription event names its payment by the subscription first. */
function subscriptionScoped(ev: InboundEvent): boolean {
  return ev.action.kind === 'renewal' || ev.action.kind === 'subscription';
}

/** locatePayment's checks on a payment found by our id. */
export function ownPayment(p: PaymentRow, slug: ProviderSlug): PaymentRow {
  if (p.provider !== slug) throw new BadReference(`payment ${p.id} belongs to another provider`);
  return p;
}

/** Our id when the provider echoes it (unknown: 404), else its reference (unknown: 400). */
export async function locatePayment(
  db: Queryable,
  slug: ProviderSlug,
  ev: InboundEvent,
): Promise<PaymentRow> {
  const bySubscription = subscriptionScoped(ev);
  if (bySubscription && ev.subscriptionId) {
    const first = await findFirstSubscriptionPayment(db, slug, ev.subscriptionId);
    if (first) return first;
  }
  if (ev.paymentId !== undefined) {
    if (!isPaymentId(ev.paymentId))
      throw new BadReference(`malformed payment id ${JSON.stringify(ev.paymentId)}`);
    const p = await findPayment(db, ev.paymentId);
    if (!p) throw new EventRejected(apiError('unknown_payment'), 'unknown_payment');
    return ownPayment(p, slug);
  }
  if (ev.providerRef !== undefined) {
    const p = await findPaymentByProviderRef(db, slug, ev.providerRef);
    if (!p) throw new BadReference(`unknown provider reference ${JSON.stringify(ev.providerRef)}`);
    return p;
  }
  if (bySubscription)
    throw new BadReference(`unknown subscription ${JSON.stringify(ev.subscriptionId)}`);
  throw new BadReference('event carries no payment reference');
}
