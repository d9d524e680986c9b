import { enqueueEvent } from '../db/outbox.js';
import { findPayment, type PaymentRow } from '../db/payments.js';
import { insertRenewalPayment } from '../db/paymentRenewals.js';
import { withTransaction } from '../db/pool.js';
import { paymentEventBody, subscriptionEventBody } from '../domain/events.js';
import { apiError } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import type { ProviderSlug } from '../domain/types.js';
import type { InboundAction } from '../providers/types.js';
import { lateChargeKind, recordException } from './exceptions.js';
import { outcomeOf, settleOutcome } from './payments/finalize.js';
import {
  ALREADY_FINALIZED,
  applied,
  EventRejected,
  type Applied,
  type ProviderEventDeps,
} from './providerEvent.js';
import { describeError, statusCall } from './providerStatus.js';

/**
 * card_psp renewal: a new succeeded payment, once per provider order (docs/api.md#subscriptions).
 * A renewal of a subscription whose first payment was canceled or failed is money the
 * provider moved without a payment that may show it: an exception, never a succeeded child.
 *
 * The provider may deliver a renewal before the first checkout's own event (deliveries are
 * not ordered). A first payment still initiated is then settled from the provider's answer
 * first, as the reconciler would settle it; if the provider cannot say yet, the event is
 * refused with 503 and Retry-After, so the provider redelivers it (docs/api.md#exceptions).
 */
export async function applyRenewal(
  deps: ProviderEventDeps,
  slug: ProviderSlug,
  first: PaymentRow,
  action: Extract<InboundAction, { kind: 'renewal' }>,
): Promise<Applied> {
  const settled =
    first.status === 'initiated' ? await settleFirstPayment(deps, first, action) : first;
  const kind = lateChargeKind(settled);
  if (kind) {
    const recorded = await recordException(deps.pool, deps.log, settled, {
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
      first: settled,
      amountMinor: action.amountMinor,
      currency: action.currency,
      provider: slug,
      providerRef: action.providerRef,
      metadata: { ...settled.metadata, ...action.enrichment },
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

/** How long the provider is asked to wait before redelivering a renewal it sent too early. */
export const RENEWAL_RETRY_AFTER_SECONDS = 60;

/**
 * The first payment as the provider knows it: asks the provider for its status and applies
 * the answer with the same conditional finalization as its own event, so a first-payment
 * event racing this renewal finalizes it once. Throws a retryable refusal while the answer
 * leaves it initiated (provider unreachable, or still pending there).
 */
async function settleFirstPayment(
  deps: ProviderEventDeps,
  first: PaymentRow,
  action: Extract<InboundAction, { kind: 'renewal' }>,
): Promise<PaymentRow> {
  const call = statusCall(deps, first);
  let status: InboundAction | null = null;
  if (call) {
    try {
      status = await call.provider.fetchStatus(call.ctx, call.ref);
    } catch (err) {
      deps.log.warn(
        { payment_id: first.id, err: describeError(err) },
        'renewal before its first payment: provider status unavailable',
      );
    }
  }
  if (status?.kind === 'payment') {
    await settleOutcome(deps, first, {
      ...outcomeOf(status),
      subscriptionId: status.outcome === 'succeeded' ? action.subscriptionId : undefined,
    });
  }
  const now = await findPayment(deps.pool, first.id);
  if (now && now.status !== 'initiated') return now;
  throw new EventRejected(
    apiError('unavailable').withHeaders({ 'Retry-After': String(RENEWAL_RETRY_AFTER_SECONDS) }),
    'renewal_before_first_payment',
  );
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
