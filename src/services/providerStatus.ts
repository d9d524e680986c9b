/**
 * Asking a provider for a payment's status: the reconciler's safety net for a lost webhook
 * and the operator's sync use this one call, and describe what they asked and learned the
 * same way, for the stuck list.
 */
import { findPayment, type PaymentRow } from '../db/payments.js';
import type { ProviderSlug } from '../domain/types.js';
import type { ProviderRegistry } from '../providers/registry.js';
import {
  ProviderError,
  type InboundAction,
  type PaymentProvider,
  type ProviderContext,
  type ProviderPaymentRef,
} from '../providers/types.js';
import { applyDispute } from './disputes.js';
import type { ProviderEventDeps } from './providerEvent.js';
import { applyProviderRefund } from './refunds/providerEvents.js';

export interface StatusDeps {
  providers: ProviderRegistry;
  providerTimeoutMs: number;
  /** The gateway's clock, which the adapter reads (ProviderContext.now). */
  now(): number;
}

export interface StatusCall {
  provider: PaymentProvider;
  ctx: ProviderContext;
  ref: ProviderPaymentRef;
}

/** Where and how to ask about the payment; null when its provider has no endpoint for its mode. */
export function statusCall(deps: StatusDeps, payment: PaymentRow): StatusCall | null {
  const slug = payment.provider as ProviderSlug;
  const endpoint = deps.providers.endpoint(slug, payment.mode);
  if (!endpoint) return null;
  return {
    provider: deps.providers.get(slug),
    ctx: { mode: payment.mode, endpoint, timeoutMs: deps.providerTimeoutMs, now: () => deps.now() },
    ref: paymentRef(payment),
  };
}

/** How a provider call names the payment (its ids, and when and how it was made). */
export function paymentRef(payment: PaymentRow): ProviderPaymentRef {
  return {
    paymentId: payment.id,
    providerRef: payment.provider_ref,
    createdAt: payment.created_at,
    method: payment.method,
  };
}

export function paymentQuestion(payment: PaymentRow): string {
  return `payment status at ${payment.provider} (ref ${payment.provider_ref ?? 'none'})`;
}

export function describeAction(action: InboundAction): string {
  switch (action.kind) {
    case 'none':
      return 'pending';
    case 'payment':
      if (action.outcome === 'succeeded') {
        return `succeeded: ${action.paid.amountMinor} ${action.paid.currency}`;
      }
      return action.errorText ? `${action.outcome}: ${action.errorText}` : action.outcome;
    case 'capture_required':
      return 'approved, capture required';
    case 'renewal':
      return 'renewal';
    case 'subscription':
      return action.event;
    case 'refund':
      return `refund ${action.outcome}`;
    case 'dispute':
      return `dispute ${action.status}: ${action.amountMinor} ${action.currency}`;
  }
}

/**
 * Everything the provider's answer confirms about the payment, in the order to apply it: its
 * outcome first, then the money it shows moved since (refunds, chargebacks, reversals and
 * cases), as the provider's confirmation of a webhook would (docs/providers). A provider whose
 * webhooks need no confirmation answers its status alone.
 */
export async function fetchConfirmedStatus(call: StatusCall): Promise<InboundAction[]> {
  if (!call.provider.confirmEvent) return [await call.provider.fetchStatus(call.ctx, call.ref)];
  return call.provider.confirmEvent(call.ctx, call.ref, {
    eventType: 'status',
    action: { kind: 'none' },
  });
}

/**
 * The money movements of a status answer (its refunds and disputes; the outcome is the
 * caller's), each through the use case that owns it as for a confirmed webhook, the payment
 * read again before each. Answers what each did, for the record of the check.
 */
export async function applyMovements(
  deps: Pick<ProviderEventDeps, 'pool' | 'log'>,
  slug: ProviderSlug,
  paymentId: string,
  actions: InboundAction[],
): Promise<string[]> {
  const done: string[] = [];
  for (const action of actions) {
    if (action.kind !== 'refund' && action.kind !== 'dispute') continue;
    const payment = await findPayment(deps.pool, paymentId);
    if (!payment) break;
    const result =
      action.kind === 'refund'
        ? await applyProviderRefund(deps, slug, payment, action)
        : await applyDispute(deps, slug, payment, action);
    done.push(result.outcome);
  }
  return done;
}

export function describeError(err: unknown): string {
  if (err instanceof ProviderError) return `${err.kind}: ${err.providerText}`;
  return 'error: provider unreachable';
}
