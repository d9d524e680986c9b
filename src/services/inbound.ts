import type { IncomingHttpHeaders } from 'node:http';
import type { WebhookLimitsConfig } from '../config.js';
import { archiveInbound, recordInboundOutcome, restoreFullBody } from '../db/inbound.js';
import { findPayment, type PaymentRow } from '../db/payments.js';
import { rememberTransmission } from '../db/transmissions.js';
import { apiError } from '../domain/errors.js';
import type { Mode, ProviderSlug } from '../domain/types.js';
import {
  BadReference,
  ProviderError,
  type InboundAction,
  type InboundEvent,
  type PaymentProvider,
} from '../providers/types.js';
import { webhooksRateLimited } from '../metrics.js';
import { applyDispute } from './disputes.js';
import { locatePayment, ownPayment, paymentIdHint } from './inboundPayment.js';
import { applyPaymentOutcome } from './payments/finalize.js';
import { captureApproved } from './payments/capture.js';
import {
  ALREADY_FINALIZED,
  applied,
  EventRejected,
  type Applied,
  type ProviderEventDeps,
} from './providerEvent.js';
import { applyProviderRefund } from './refunds/providerEvents.js';
import type { SourceRateLimiter } from './sourceRateLimit.js';
import { applyRenewal, applySubscriptionEvent } from './subscriptions.js';

/**
 * How long a provider's transmission id is remembered: longer than any age a provider's
 * verification accepts (wallet_psp: four days), so a replay is always recognised.
 */
export const TRANSMISSION_MEMORY_DAYS = 5;

/** How soon a provider should redeliver an event the gateway could not confirm. */
const UNCONFIRMED_RETRY_AFTER_SECONDS = 60;
/** How long the payment read with the archive is trusted as current (see its use). */
const FRESH_PAYMENT_MS = 5;

/**
 * The request's last write (the outcome record, or the finalization that records it) commits
 * synchronously (db/pool.ts).
 */
export type InboundDeps = ProviderEventDeps;

/** What an unauthenticated sender may cost: archived bytes and bad signatures per source. */
export interface WebhookGuard {
  limits: Pick<WebhookLimitsConfig, 'rejectedBodyBytes'>;
  unverified: SourceRateLimiter;
}

/** The 200 bodies of docs/api.md#provider-webhooks. */
export type Ack =
  | { acknowledged: true }
  | { acknowledged: true; action: 'none' }
  | { acknowledged: true; action: 'already_finalized' };

const NONE: Ack = { acknowledged: true, action: 'none' };

const ACKS: Record<Applied['effect'], Ack> = {
  changed: { acknowledged: true },
  none: NONE,
  already_finalized: { acknowledged: true, action: 'already_finalized' },
};

/**
 * docs/api.md#provider-webhooks in its order: archive the raw body, verify the provider's
 * signature, take the event (parsed once before the archive, its error raised only here),
 * locate its payment, dispatch it to the use case that owns the action (which changes state
 * and enqueues the outbound delivery in one transaction). A rejected
 * body is archived truncated with its size and hash; a source that has used up its
 * bad-signature allowance is verified first and, if it fails, answered 429 unarchived.
 */
export async function handleProviderWebhook(
  deps: InboundDeps & WebhookGuard,
  slug: ProviderSlug,
  headers: IncomingHttpHeaders,
  rawBody: Buffer,
  source: string,
): Promise<Ack> {
  const provider = deps.providers.get(slug);
  const verify = async (): Promise<Mode[]> => {
    const modes: Mode[] = [];
    for (const { mode, endpoint } of deps.providers.configuredModes(slug)) {
      if (await provider.verifyWebhook(endpoint, headers, rawBody, deps.now())) modes.push(mode);
    }
    return modes;
  };

  // A source out of bad-signature allowance is heard only once its signature holds: the
  // provider's own traffic is never limited, an impostor's is not archived.
  let verifiedModes: Mode[] | undefined;
  const allowance = deps.unverified.take(source);
  if (allowance !== 'taken') {
    verifiedModes = await verify();
    if (verifiedModes.length === 0) {
      webhooksRateLimited.inc({ provider: slug });
      if (allowance === 'newly_limited') {
        deps.log.warn({ provider: slug, source }, 'unverified webhooks over the limit');
      }
      throw apiError('too_many_unverified_webhooks').withHeaders({
        'Retry-After': String(deps.unverified.retryAfterSeconds(source)),
      });
    }
  }

  // Parsing is a pure function of the request: done once here, its result (or its error,
  // raised where the event is parsed below) names the payment the archive's statement reads.
  const parsed = parseOnce(provider, headers, rawBody);
  const hinted = 'event' in parsed ? paymentIdHint(parsed.event) : null;
  const archived = await archiveInbound(
    deps.pool,
    slug,
    headers,
    rawBody,
    deps.limits.rejectedBodyBytes,
    hinted,
  );
  // Measured from the archive's answer, not from its start: the time the statement waited for
  // a connection or for the CPU is the same as a read of its own would wait (under load it
  // was most of 5 ms, and 93 % of events read their payment a second time); what this bound
  // keeps out is the time a verification after the archive spends (on the network).
  const archivedAt = performance.now();
  const archiveId = archived.id;
  verifiedModes ??= await verify();
  if (verifiedModes.length === 0) {
    await recordInboundOutcome(deps.durablePool, archiveId, {
      signatureValid: false,
      outcome: 'bad_signature',
    });
    throw apiError('bad_signature');
  }
  if (allowance === 'taken') deps.unverified.giveBack(source);
  // The provider's own body is kept whole.
  if (archived.truncated) await restoreFullBody(deps.pool, archiveId, rawBody);

  let event: InboundEvent | undefined;
  let paymentId: string | null = null;
  try {
    await checkTransmission(deps, provider, headers, archived.bodySha256);
    if ('error' in parsed) throw parsed.error;
    event = parsed.event;
    if (
      event.action.kind === 'none' &&
      !event.paymentId &&
      !event.providerRef &&
      !event.subscriptionId
    ) {
      // Informational events tied to no payment (a customer created...): acknowledge, or the
      // provider would redeliver them forever.
      await recordInboundOutcome(deps.durablePool, archiveId, {
        signatureValid: true,
        outcome: 'none',
        mode: verifiedModes[0],
        eventType: event.eventType,
      });
      return NONE;
    }
    // The row read with the archive is used only while fresh: a verification that went to the
    // network (a PayPal certificate, its verify API) leaves time for the payment to change.
    const payment =
      archived.payment && performance.now() - archivedAt < FRESH_PAYMENT_MS
        ? ownPayment(archived.payment, slug)
        : await locatePayment(deps.pool, slug, event);
    paymentId = payment.id;
    // A signature made with one mode's secret never touches another mode's payment.
    if (!verifiedModes.includes(payment.mode))
      throw new EventRejected(apiError('bad_signature'), 'mode_mismatch');
    const actions = await confirmedActions(deps, provider, payment, event);
    // One payment outcome to apply: its finalization records the archived outcome in the
    // same statement (a synchronous commit, the request's last write).
    const single = actions.length === 1 && actions[0]?.kind === 'payment';
    const applyDeps = single
      ? { ...deps, inboundArchive: { id: archiveId, eventType: event.eventType } }
      : deps;
    const { effect, outcome, recorded } = await applyAll(applyDeps, slug, payment, event, actions);
    if (!recorded) {
      await recordInboundOutcome(deps.durablePool, archiveId, {
        signatureValid: true,
        outcome,
        mode: payment.mode,
        eventType: event.eventType,
        paymentId,
      });
    }
    return ACKS[effect];
  } catch (err) {
    const rejection =
      err instanceof EventRejected
        ? err
        : err instanceof BadReference
          ? new EventRejected(apiError('bad_reference', err.message), 'bad_reference')
          : null;
    await recordInboundOutcome(deps.durablePool, archiveId, {
      signatureValid: rejection?.outcome !== 'mode_mismatch',
      outcome: rejection?.outcome ?? 'error',
      eventType: event?.eventType ?? null,
      paymentId,
    }).catch(() => undefined);
    throw rejection ?? err;
  }
}

/**
 * Where the provider's scheme names each delivery (a transmission id), the id is remembered
 * with a hash of the body: the same id with another body is a signature replayed over an
 * edited body, refused as a bad signature.
 */
async function checkTransmission(
  deps: InboundDeps,
  provider: PaymentProvider,
  headers: IncomingHttpHeaders,
  bodySha256: Buffer,
): Promise<void> {
  const transmission = provider.transmission?.(headers);
  if (!transmission) return;
  const seen = await rememberTransmission(deps.pool, provider.slug, transmission.id, bodySha256);
  if (seen === 'other_body') {
    deps.log.warn(
      { provider: provider.slug, transmission_id: transmission.id },
      'provider transmission replayed with another body',
    );
    throw new EventRejected(apiError('bad_signature'), 'replayed_transmission');
  }
}

/** Actions that move money: never applied on a body the signature does not fully cover. */
const MONEY_KINDS: ReadonlySet<InboundAction['kind']> = new Set([
  'payment',
  'capture_required',
  'refund',
  'dispute',
]);

/**
 * What to apply for an event. Where the provider's signature covers the whole body, the
 * event itself. Where it does not (docs/providers: what each notification is trusted for),
 * an event that would move money is a hint: the provider's API is asked about the payment
 * and its answer is applied; an answer it cannot give now is a 503 with Retry-After, so the
 * provider redelivers and nothing is finalized on an unconfirmed body.
 */
async function confirmedActions(
  deps: InboundDeps,
  provider: PaymentProvider,
  payment: PaymentRow,
  event: InboundEvent,
): Promise<InboundAction[]> {
  if (!provider.confirmEvent || !MONEY_KINDS.has(event.action.kind)) return [event.action];
  const endpoint = deps.providers.endpoint(provider.slug, payment.mode);
  if (!endpoint) throw unconfirmed();
  try {
    const actions = await provider.confirmEvent(
      { mode: payment.mode, endpoint, timeoutMs: deps.providerTimeoutMs, now: () => deps.now() },
      {
        paymentId: payment.id,
        providerRef: payment.provider_ref,
        createdAt: payment.created_at,
        method: payment.method,
      },
      event,
    );
    if (actions.every((a) => a.kind === 'none')) {
      deps.log.warn(
        { provider: provider.slug, payment_id: payment.id, event_type: event.eventType },
        'provider event not confirmed by the provider: nothing applied',
      );
    }
    return actions;
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    deps.log.warn(
      { provider: provider.slug, payment_id: payment.id, err: err.providerText },
      'provider event could not be confirmed now: the provider redelivers it',
    );
    throw unconfirmed();
  }
}

const unconfirmed = () =>
  new EventRejected(
    apiError('unavailable').withHeaders({
      'Retry-After': String(UNCONFIRMED_RETRY_AFTER_SECONDS),
    }),
    'unconfirmed',
  );

/**
 * Applies the confirmed actions in order (the payment's outcome, then each refund), each
 * through the use case that owns it; the payment is read again after a change, so a refund
 * event carries the metadata the finalization stored.
 */
async function applyAll(
  deps: InboundDeps,
  slug: ProviderSlug,
  payment: PaymentRow,
  event: InboundEvent,
  actions: InboundAction[],
): Promise<Applied> {
  const results: Applied[] = [];
  let current = payment;
  for (const action of actions) {
    const result = await dispatch(deps, slug, current, { ...event, action });
    results.push(result);
    if (result.effect === 'changed' && actions.length > 1) {
      current = (await findPayment(deps.pool, payment.id)) ?? current;
    }
  }
  const changed = results.some((r) => r.effect === 'changed');
  const effect = changed
    ? 'changed'
    : results.some((r) => r.effect === 'already_finalized')
      ? 'already_finalized'
      : 'none';
  const claimed = MONEY_KINDS.has(event.action.kind);
  const contradicted = claimed && actions.every((a) => a.kind === 'none');
  // The archive names what changed; an event that changed nothing is named by its effect.
  const outcome = contradicted
    ? 'not_confirmed'
    : results.length === 1
      ? (results[0] as Applied).outcome
      : changed
        ? results
            .filter((r) => r.effect === 'changed')
            .map((r) => r.outcome)
            .join('+')
        : effect;
  const only = results.length === 1 ? results[0] : undefined;
  return { ...applied(effect, outcome), recorded: only?.recorded === true };
}

type Parsed = { event: InboundEvent } | { error: unknown };

function parseOnce(
  provider: PaymentProvider,
  headers: IncomingHttpHeaders,
  rawBody: Buffer,
): Parsed {
  try {
    return { event: provider.parseWebhook(headers, rawBody) };
  } catch (error) {
    return { error };
  }
}

/** Each action to the use case that owns it. */
async function dispatch(
  deps: InboundDeps,
  slug: ProviderSlug,
  payment: PaymentRow,
  ev: InboundEvent,
): Promise<Applied> {
  const action = ev.action;
  switch (action.kind) {
    case 'none':
      return payment.status === 'initiated' ? applied('none', 'none') : ALREADY_FINALIZED;
    case 'payment':
      return applyPaymentOutcome(deps, payment, ev, action);
    case 'capture_required':
      return captureApproved(deps, slug, payment);
    case 'renewal':
      return applyRenewal(deps, slug, payment, action);
    case 'subscription':
      return applySubscriptionEvent(deps, slug, payment, action);
    case 'refund':
      return applyProviderRefund(deps, slug, payment, action);
    case 'dispute':
      return applyDispute(deps, slug, payment, action);
  }
}
