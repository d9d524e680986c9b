import { enqueueEvent } from '../db/outbox.js';
import { insertRenewalPayment, type PaymentRow } from '../db/payments.js';
import { withTransaction } from '../db/pool.js';
import { paymentEventBody, subscriptionEventBody } from '../domain/events.js';
import { newId } from '../domain/ids.js';
import type { ProviderSlug } from '../domain/types.js';
import type { InboundAction } from '../providers/types.js';
import { lateChargeKind, recordException } from './exceptions.js';
import {
  ALREADY_FINALIZED,
  applied,
  type Applied,
  type ProviderEventDeps,
} from './providerEvent.js';

/**
 * card_psp renewal: a new succeeded payment, once per provider order (docs/api.md#subscriptions).
 * A renewal of a subscription whose first payment was canceled or failed is money the
 * provider moved without a payment that may show it: an exception, never a succeeded child.
 */
export async function applyRenewal(
  deps: Pick<ProviderEventDeps, 'pool' | 'log'>,
  slug: ProviderSlug,
  first: PaymentRow,
  action: Extract<InboundAction, { kind: 'renewal' }>,
): Promise<Applied> {
  const kind = lateChargeKind(first);
  if (kind) {
    const recorded = await recordException(deps.pool, deps.log, first, {
      kind,
      providerRef: action.providerRef,
      amountMinor: action.amountMinor,
      currency: action.currency,
    });
    return recorded ? applied('already_finalized', `exception_${kind}`) : ALREADY_FINALIZED;
  }
  const created = await withTransaction(deps.pool, async (tx) => {
    const p = await insertRenewalPayment(tx, {
      id: newId(),
      first,
      amountMinor: action.amountMinor,
      currency: action.currency,
      provider: slug,
      providerRef: action.providerRef,
      metadata: { ...first.metadata, ...action.enrichment },
      subscriptionId: action.subscriptionId,
    });
    if (!p) return null;
    await enqueueEvent(tx, {
      appId: p.app_id,
      paymentId: p.id,
      eventType: 'payment.succeeded',
      body: paymentEventBody('payment.succeeded', p, p.created_at),
    });
    return p;
  });
  return created ? applied('changed', 'renewal_created') : ALREADY_FINALIZED;
}

/** A subscription's own event (canceled, revoked): sent to the app once per subscription. */
export async function applySubscriptionEvent(
  deps: Pick<ProviderEventDeps, 'pool'>,
  slug: ProviderSlug,
  payment: PaymentRow,
  action: Extract<InboundAction, { kind: 'subscription' }>,
): Promise<Applied> {
  const body = subscriptionEventBody(
    action.event,
    payment.id,
    action.subscriptionId,
    slug,
    { ...payment.metadata, ...action.enrichment },
    new Date(),
  );
  const queued = await withTransaction(deps.pool, (tx) =>
    enqueueEvent(tx, {
      appId: payment.app_id,
      paymentId: payment.id,
      eventType: action.event,
      body,
      dedupeKey: `${action.event}:${slug}:${action.subscriptionId}`,
    }),
  );
  return queued ? applied('changed', action.event) : applied('none', 'duplicate');
}
