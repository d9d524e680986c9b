import type { IncomingHttpHeaders } from 'node:http';
import type { WebhookLimitsConfig } from '../config.js';
import { archiveInbound, recordInboundOutcome, restoreFullBody } from '../db/inbound.js';
import { markRefunded, refundLateChargeException } from '../db/exceptions.js';
import { enqueueEvent } from '../db/outbox.js';
import { PAYMENT_COLUMNS, type PaymentRow } from '../db/payments.js';
import { withTransaction, type Pool, type Queryable } from '../db/pool.js';
import { ApiError } from '../domain/errors.js';
import { paymentEventBody, refundEventBody, subscriptionEventBody } from '../domain/events.js';
import { isPaymentId, newId } from '../domain/ids.js';
import type { Mode, ProviderSlug } from '../domain/types.js';
import type { ProviderRegistry } from '../providers/registry.js';
import {
  BadReference,
  ProviderError,
  type InboundAction,
  type InboundEvent,
} from '../providers/types.js';
import { lateChargeKind, recordException } from './exceptions.js';
import { finalizePayment } from './finalize.js';
import { refundLateCharge } from './refunds.js';
import { webhooksRateLimited } from '../metrics.js';
import type { SourceRateLimiter } from './sourceRateLimit.js';

export interface InboundDeps {
  pool: Pool;
  /** The outcome record is the request's last write: committed synchronously (db/pool.ts). */
  durablePool: Pool;
  providers: ProviderRegistry;
  providerTimeoutMs: number;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

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

const ACK: Ack = { acknowledged: true };
const NONE: Ack = { acknowledged: true, action: 'none' };
const ALREADY: Ack = { acknowledged: true, action: 'already_finalized' };

class Rejection extends ApiError {
  constructor(
    status: number,
    body: string,
    readonly outcome: string,
  ) {
    super(status, body);
  }
}

/**
 * docs/api.md#provider-webhooks in its order: archive the raw body, verify the provider's signature, map the
 * event, finalize atomically, enqueue the outbound delivery (same transaction). A rejected
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
      if (await provider.verifyWebhook(endpoint, headers, rawBody)) modes.push(mode);
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
      throw new ApiError(429, 'too many unverified webhooks', {
        'Retry-After': String(deps.unverified.retryAfterSeconds(source)),
      });
    }
  }

  const archived = await archiveInbound(
    deps.pool,
    slug,
    headers,
    rawBody,
    deps.limits.rejectedBodyBytes,
  );
  const archiveId = archived.id;
  verifiedModes ??= await verify();
  if (verifiedModes.length === 0) {
    await recordInboundOutcome(deps.durablePool, archiveId, {
      signatureValid: false,
      outcome: 'bad_signature',
    });
    throw new ApiError(401, 'bad signature');
  }
  if (allowance === 'taken') deps.unverified.giveBack(source);
  // The provider's own body is kept whole.
  if (archived.truncated) await restoreFullBody(deps.pool, archiveId, rawBody);

  let event: InboundEvent | undefined;
  let paymentId: string | null = null;
  try {
    event = provider.parseWebhook(headers, rawBody);
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
    const payment = await locatePayment(deps.pool, slug, event);
    paymentId = payment.id;
    // A signature made with one mode's secret never touches another mode's payment.
    if (!verifiedModes.includes(payment.mode))
      throw new Rejection(401, 'bad signature', 'mode_mismatch');
    const { ack, outcome } = await apply(deps, slug, payment, event);
    await recordInboundOutcome(deps.durablePool, archiveId, {
      signatureValid: true,
      outcome,
      mode: payment.mode,
      eventType: event.eventType,
      paymentId,
    });
    return ack;
  } catch (err) {
    const rejection =
      err instanceof Rejection
        ? err
        : err instanceof BadReference
          ? new Rejection(400, `bad reference: ${err.message}`, 'bad_reference')
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

const LOCATE = {
  subscription: `SELECT ${PAYMENT_COLUMNS} FROM payments
    WHERE provider = $1 AND subscription_id = $2 AND parent_payment_id IS NULL ORDER BY created_at LIMIT 1`,
  id: `SELECT ${PAYMENT_COLUMNS} FROM payments WHERE id = $1`,
  providerRef: `SELECT ${PAYMENT_COLUMNS} FROM payments WHERE provider = $1 AND provider_ref = $2`,
};

async function findOne(
  db: Queryable,
  by: keyof typeof LOCATE,
  values: unknown[],
): Promise<PaymentRow | null> {
  const res = await db.query<PaymentRow>({ name: `locate_${by}`, text: LOCATE[by], values });
  return res.rows[0] ?? null;
}

/** Our id when the provider echoes it (unknown: 404), else its reference (unknown: 400). */
async function locatePayment(
  db: Queryable,
  slug: ProviderSlug,
  ev: InboundEvent,
): Promise<PaymentRow> {
  const subscriptionScoped = ev.action.kind === 'renewal' || ev.action.kind === 'subscription';
  if (subscriptionScoped && ev.subscriptionId) {
    const first = await findOne(db, 'subscription', [slug, ev.subscriptionId]);
    if (first) return first;
  }
  if (ev.paymentId !== undefined) {
    if (!isPaymentId(ev.paymentId))
      throw new BadReference(`malformed payment id ${JSON.stringify(ev.paymentId)}`);
    const p = await findOne(db, 'id', [ev.paymentId]);
    if (!p) throw new Rejection(404, 'unknown payment', 'unknown_payment');
    if (p.provider !== slug) throw new BadReference(`payment ${p.id} belongs to another provider`);
    return p;
  }
  if (ev.providerRef !== undefined) {
    const p = await findOne(db, 'providerRef', [slug, ev.providerRef]);
    if (!p) throw new BadReference(`unknown provider reference ${JSON.stringify(ev.providerRef)}`);
    return p;
  }
  if (subscriptionScoped)
    throw new BadReference(`unknown subscription ${JSON.stringify(ev.subscriptionId)}`);
  throw new BadReference('event carries no payment reference');
}

async function apply(
  deps: InboundDeps,
  slug: ProviderSlug,
  payment: PaymentRow,
  ev: InboundEvent,
): Promise<{ ack: Ack; outcome: string }> {
  const action: InboundAction = ev.action;
  switch (action.kind) {
    case 'none':
      return payment.status === 'initiated'
        ? { ack: NONE, outcome: 'none' }
        : { ack: ALREADY, outcome: 'already_finalized' };
    case 'payment': {
      const done = await finalizePayment(deps.pool, payment, {
        outcome: action.outcome,
        errorText: action.errorText,
        enrichment: action.enrichment,
        subscriptionId: ev.subscriptionId,
      });
      if (done) return { ack: ACK, outcome: `finalized_${action.outcome}` };
      if (action.outcome === 'succeeded') await lateCharge(deps, payment, ev);
      return { ack: ALREADY, outcome: 'already_finalized' };
    }
    case 'capture_required':
      return capture(deps, slug, payment);
    case 'renewal':
      return renewal(deps, slug, payment, action);
    case 'subscription': {
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
      return queued ? { ack: ACK, outcome: action.event } : { ack: NONE, outcome: 'duplicate' };
    }
    case 'refund':
      return refundEvent(deps, slug, payment, action);
  }
}

/** wallet_psp: the buyer approved; capture now, the provider's capture event settles it. */
async function capture(
  deps: InboundDeps,
  slug: ProviderSlug,
  payment: PaymentRow,
): Promise<{ ack: Ack; outcome: string }> {
  if (payment.status !== 'initiated') return { ack: ALREADY, outcome: 'already_finalized' };
  const provider = deps.providers.get(slug);
  const endpoint = deps.providers.endpoint(slug, payment.mode);
  if (!provider.capture || !endpoint) return { ack: NONE, outcome: 'none' };
  try {
    await provider.capture(
      { mode: payment.mode, endpoint, timeoutMs: deps.providerTimeoutMs },
      { paymentId: payment.id, providerRef: payment.provider_ref },
    );
    return { ack: NONE, outcome: 'captured' };
  } catch (err) {
    if (err instanceof ProviderError && err.kind === 'rejected') {
      // The provider refused the capture: the payment cannot complete.
      const done = await finalizePayment(deps.pool, payment, {
        outcome: 'failed',
        errorText: err.providerText,
      });
      return done
        ? { ack: ACK, outcome: 'finalized_failed' }
        : { ack: ALREADY, outcome: 'already_finalized' };
    }
    // Unknown outcome: answer 5xx so the provider redelivers the approval and we try again.
    deps.log.warn({ err, payment_id: payment.id }, 'capture indeterminate');
    throw new Rejection(503, 'service unavailable', 'capture_indeterminate');
  }
}

/**
 * The provider reports a charge on a payment that is already terminal. A succeeded one is a
 * duplicate; a canceled or failed one keeps its status (a terminal payment never moves) but
 * the money the provider moved is put on record as an exception for the operator.
 */
async function lateCharge(deps: InboundDeps, payment: PaymentRow, ev: InboundEvent): Promise<void> {
  const now = await findOne(deps.pool, 'id', [payment.id]);
  const kind = now ? lateChargeKind(now) : null;
  if (!now || !kind) return;
  const exception = await recordException(deps.pool, deps.log, now, {
    kind,
    providerRef: now.provider_ref ?? ev.providerRef ?? '',
    amountMinor: now.amount_minor,
    currency: now.currency,
  });
  // Once per exception: where the provider refunds by API, the money goes back at once.
  if (!exception) return;
  const refund = await refundLateCharge(deps, now);
  if (refund && (refund.status === 'succeeded' || refund.status === 'initiated')) {
    await markRefunded(deps.pool, exception.id);
  }
}

/**
 * card_psp renewal: a new succeeded payment, once per provider order (docs/api.md#subscriptions).
 * A renewal of a subscription whose first payment was canceled or failed is money the
 * provider moved without a payment that may show it: an exception, never a succeeded child.
 */
async function renewal(
  deps: InboundDeps,
  slug: ProviderSlug,
  first: PaymentRow,
  action: Extract<InboundAction, { kind: 'renewal' }>,
): Promise<{ ack: Ack; outcome: string }> {
  const kind = lateChargeKind(first);
  if (kind) {
    const recorded = await recordException(deps.pool, deps.log, first, {
      kind,
      providerRef: action.providerRef,
      amountMinor: action.amountMinor,
      currency: action.currency,
    });
    return { ack: ALREADY, outcome: recorded ? `exception_${kind}` : 'already_finalized' };
  }
  const created = await withTransaction(deps.pool, async (tx) => {
    const res = await tx.query<PaymentRow>(
      `INSERT INTO payments (id, app_id, mode, status, amount_minor, currency, method, provider, provider_ref,
         external_user_id, email, return_url, metadata, subscription_id, parent_payment_id, finalized_at)
       VALUES ($1, $2, $3, 'succeeded', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, now())
       ON CONFLICT (provider, provider_ref) WHERE provider_ref IS NOT NULL DO NOTHING
       RETURNING ${PAYMENT_COLUMNS}`,
      [
        newId(),
        first.app_id,
        first.mode,
        action.amountMinor,
        action.currency,
        first.method,
        slug,
        action.providerRef,
        first.external_user_id,
        first.email,
        first.return_url,
        JSON.stringify({ ...first.metadata, ...action.enrichment }),
        action.subscriptionId,
        first.id,
      ],
    );
    const p = res.rows[0];
    if (!p) return null;
    await enqueueEvent(tx, {
      appId: p.app_id,
      paymentId: p.id,
      eventType: 'payment.succeeded',
      body: paymentEventBody('payment.succeeded', p, p.created_at),
    });
    return p;
  });
  return created
    ? { ack: ACK, outcome: 'renewal_created' }
    : { ack: ALREADY, outcome: 'already_finalized' };
}

interface RefundRow {
  id: string;
  payment_id: string;
  status: string;
  amount_minor: number;
  currency: string;
  provider: string;
  provider_ref: string | null;
  reason: string;
}

/**
 * A provider's refund event: settles a refund we started (matched by the provider's refund
 * id, or our initiated refund awaiting one), or records a refund made at the provider.
 */
async function refundEvent(
  deps: InboundDeps,
  slug: ProviderSlug,
  payment: PaymentRow,
  action: Extract<InboundAction, { kind: 'refund' }>,
): Promise<{ ack: Ack; outcome: string }> {
  const result = await withTransaction(deps.pool, async (tx) => {
    const cols = 'id, payment_id, status, amount_minor, currency, provider, provider_ref, reason';
    let refund =
      (
        await tx.query<RefundRow>(
          `SELECT ${cols} FROM refunds WHERE provider = $1 AND provider_ref = $2 FOR UPDATE`,
          [slug, action.providerRefundRef],
        )
      ).rows[0] ??
      (
        await tx.query<RefundRow>(
          `SELECT ${cols} FROM refunds WHERE payment_id = $1 AND status = 'initiated' FOR UPDATE`,
          [payment.id],
        )
      ).rows[0];
    // A provider event is applied only to the payment it names: another payment's refund is
    // a bad reference, never settled or answered already_finalized (docs/api.md#provider-webhooks).
    if (refund && refund.payment_id !== payment.id) {
      throw new BadReference(
        `refund ${JSON.stringify(action.providerRefundRef)} belongs to another payment`,
      );
    }
    if (refund && refund.status !== 'initiated') return null;
    let created = false;
    if (refund) {
      refund = (
        await tx.query<RefundRow>(
          `UPDATE refunds SET status = $2, provider_ref = $3, last_error = COALESCE($4, last_error),
             succeeded_at = CASE WHEN $2 = 'succeeded' THEN now() END, updated_at = now()
           WHERE id = $1 RETURNING ${cols}`,
          [refund.id, action.outcome, action.providerRefundRef, action.errorText ?? null],
        )
      ).rows[0];
    } else {
      created = true;
      refund = (
        await tx.query<RefundRow>(
          `INSERT INTO refunds (id, payment_id, app_id, mode, status, amount_minor, currency, provider,
             provider_ref, last_error, succeeded_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, CASE WHEN $5 = 'succeeded' THEN now() END)
           ON CONFLICT DO NOTHING RETURNING ${cols}`,
          [
            newId(),
            payment.id,
            payment.app_id,
            payment.mode,
            action.outcome,
            action.amountMinor ?? payment.amount_minor,
            payment.currency,
            slug,
            action.providerRefundRef,
            action.errorText ?? '',
          ],
        )
      ).rows[0];
    }
    if (!refund) return null;
    if (created && refund.status === 'succeeded')
      await unrequestedRefund(tx, deps, payment, refund);
    const eventType = action.outcome === 'succeeded' ? 'refund.succeeded' : 'refund.failed';
    await enqueueEvent(tx, {
      appId: payment.app_id,
      paymentId: payment.id,
      refundId: refund.id,
      eventType,
      body: refundEventBody(eventType, refund, payment.metadata, new Date()),
    });
    return refund;
  });
  return result
    ? { ack: ACK, outcome: `refund_${action.outcome}` }
    : { ack: ALREADY, outcome: 'already_finalized' };
}

/**
 * A refund made at the provider on a payment that never succeeded: it gives back a late
 * charge waiting for the operator (that exception is then refunded), or else it is money the
 * gateway did not ask to move, an unrequested_refund exception. Runs in the refund's
 * transaction.
 */
async function unrequestedRefund(
  tx: Queryable,
  deps: InboundDeps,
  payment: PaymentRow,
  refund: RefundRow,
): Promise<void> {
  const now = await findOne(tx, 'id', [payment.id]);
  if (!now || now.status === 'succeeded') return;
  if (await refundLateChargeException(tx, payment.id)) return;
  await recordException(tx, deps.log, now, {
    kind: 'unrequested_refund',
    providerRef: refund.provider_ref ?? '',
    amountMinor: refund.amount_minor,
    currency: refund.currency,
  });
}
