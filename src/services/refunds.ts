import type { AppRow } from '../db/apps.js';
import * as idem from '../db/idempotency.js';
import { recordRefundCheck } from '../db/checks.js';
import { enqueueEvent } from '../db/outbox.js';
import { blockingDispute } from '../db/disputes.js';
import { findPayment, lockPayment, type PaymentRow } from '../db/payments.js';
import { refundLateChargeException } from '../db/exceptions.js';
import { durable, withTransaction, type Pool, type Queryable } from '../db/pool.js';
import * as refundsDb from '../db/refunds.js';
import type { RefundRow } from '../db/refunds.js';
import { apiError, ApiError, notFoundPayment, notConfigured } from '../domain/errors.js';
import { refundEventBody } from '../domain/events.js';
import { isPaymentId, newId } from '../domain/ids.js';
import { isIntegerIn, optionalString, parseJsonObject } from '../domain/paymentRequest.js';
import { CREATE_REFUND, missingRequired, notStringMessage } from '../domain/schemas.js';
import type { ProviderSlug } from '../domain/types.js';
import type { ProviderRegistry } from '../providers/registry.js';
import { BadReference, ProviderError, type InboundAction } from '../providers/types.js';
import type { Audit, AuditChange } from './audit.js';
import { recordException } from './exceptions.js';
import { refundLearned, refundQuestion } from './refundCheck.js';
import { idempotencyScope, runIdempotent, type Claim, type StoredResponse } from './idempotency.js';
import {
  ALREADY_FINALIZED,
  applied,
  type Applied,
  type ProviderEventDeps,
} from './providerEvent.js';

export interface RefundServiceDeps {
  pool: Pool;
  durablePool: Pool;
  providers: ProviderRegistry;
  providerTimeoutMs: number;
  log: { error(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** Admin requests: writes their audit entry in the transaction that creates the refund. */
  audit?: Audit;
}

export interface RefundRequest {
  amountMinor: number | null;
  reason: string;
}

/** The shape of the POST /v1/refunds 201 (docs/api.md#refund-object). */
export function toRefundView(r: RefundRow) {
  return {
    refund_id: r.id,
    payment_id: r.payment_id,
    status: r.status,
    amount_minor: r.amount_minor,
    currency: r.currency,
    provider_ref: r.provider_ref ?? '',
    reason: r.reason,
    created_at: r.created_at.toISOString(),
  };
}

const bad = (reason: string) => apiError('invalid', reason);

/** The rules of the CREATE_REFUND and ADMIN_REFUND schemas (src/domain/schemas.ts). */
function parseRefundFields(body: Record<string, unknown>): RefundRequest {
  const amount = body.amount_minor;
  if (
    amount !== undefined &&
    amount !== null &&
    !isIntegerIn(CREATE_REFUND.schema.properties.amount_minor, amount)
  ) {
    throw bad(CREATE_REFUND.messages.amount_minor);
  }
  const reason = optionalString(CREATE_REFUND, body, 'reason') ?? '';
  return { amountMinor: (amount as number | null | undefined) ?? null, reason };
}

/** POST /v1/refunds: tenant-scoped, idempotent (docs/api.md#idempotency), one refund per payment (docs/api.md#create-a-refund). */
export async function createRefund(
  deps: RefundServiceDeps,
  app: AppRow,
  rawBody: Buffer,
  idempotencyKey: string | undefined,
): Promise<StoredResponse> {
  const scope = idempotencyScope(app.id, 'POST /v1/refunds', idempotencyKey);
  return runIdempotent(deps.pool, deps.durablePool, scope, rawBody, async (claim) => {
    const body = parseJsonObject(rawBody);
    const missing = missingRequired(CREATE_REFUND, body);
    if (missing.length > 0) throw apiError('missing_fields', missing.join(', '));
    const paymentId = body.payment_id;
    if (typeof paymentId !== 'string') throw bad(notStringMessage('payment_id'));
    const req = parseRefundFields(body);
    const payment = isPaymentId(paymentId) ? await findPayment(deps.pool, paymentId) : null;
    if (!payment || payment.app_id !== app.id) throw notFoundPayment();
    return refundPayment(deps, payment, req, claim);
  });
}

/** POST /admin/payments/{id}/refund: the same rules without tenant scope (docs/api.md#admin-refund). */
export async function adminRefund(
  deps: RefundServiceDeps,
  paymentId: string,
  rawBody: Buffer,
  idempotencyKey: string | undefined,
): Promise<StoredResponse> {
  // The payment is part of the endpoint: the operator's one key on another payment is a new
  // request, never a replay of this payment's refund (the operator has no app to scope by).
  const scope = idempotencyScope(
    'admin',
    `POST /admin/payments/${paymentId}/refund`,
    idempotencyKey,
  );
  return runIdempotent(deps.pool, deps.durablePool, scope, rawBody, async (claim) => {
    const req = parseRefundFields(rawBody.length === 0 ? {} : parseJsonObject(rawBody));
    const payment = isPaymentId(paymentId) ? await findPayment(deps.pool, paymentId) : null;
    if (!payment) throw notFoundPayment();
    return refundPayment(deps, payment, req, claim);
  });
}

/**
 * The refund use case. The initiated refund row is the lock: the partial unique index lets
 * exactly one of any number of concurrent requests insert it, and only that one calls the
 * provider. A retry with the same Idempotency-Key resumes the refund it created.
 */
export async function refundPayment(
  deps: RefundServiceDeps,
  payment: PaymentRow,
  req: RefundRequest,
  claim: Claim = { scope: null, resumeId: null },
): Promise<StoredResponse> {
  if (claim.resumeId) {
    const resumed = await refundsDb.findRefund(deps.pool, claim.resumeId);
    if (resumed?.status === 'initiated' && resumed.payment_id === payment.id) {
      if (resumed.provider_ref) return created(resumed);
      return callProvider(deps, payment, resumed);
    }
    // The provider's event settled it while the first answer was lost: the retry answers
    // with that refund, as the lost answer would have, instead of 'already has a refund'.
    if (resumed?.status === 'succeeded' && resumed.payment_id === payment.id) {
      return created(resumed);
    }
  }
  if (payment.status !== 'succeeded') {
    throw apiError('refund_needs_succeeded', payment.status);
  }
  const amount = req.amountMinor ?? payment.amount_minor;
  if (amount > payment.amount_minor) throw apiError('refund_exceeds_amount');
  await refuseIfDisputed(deps.pool, payment.id);
  if (await refundsDb.activeRefundFor(deps.pool, payment.id)) {
    throw apiError('already_refunded');
  }
  const slug = payment.provider as ProviderSlug;
  if (!deps.providers.get(slug).refund) {
    // docs/api.md#refunds-per-provider: card_psp has no refund API; its own refund event creates the record later.
    throw apiError('refund_failed', `${slug} refunds are made at the provider`);
  }
  const refund = await withTransaction(deps.pool, async (tx) => {
    // The payment row is the turn a dispute being recorded takes too (services/disputes.ts):
    // a dispute committed first refuses this refund; one committed after sees the refund.
    await lockPayment(tx, payment.id);
    await refuseIfDisputed(tx, payment.id);
    const row = await refundsDb.insertInitiatedRefund(tx, {
      id: newId(),
      payment_id: payment.id,
      app_id: payment.app_id,
      mode: payment.mode,
      amount_minor: amount,
      currency: payment.currency,
      provider: payment.provider,
      reason: req.reason,
    });
    if (row && claim.scope) await idem.setResource(tx, claim.scope, row.id);
    if (row && deps.audit) await deps.audit(tx, refundAuditChange(row));
    return row;
  });
  if (!refund) throw apiError('already_refunded');
  return callProvider(deps, payment, refund);
}

/**
 * docs/api.md#disputes: the money of a payment with an open dispute is held by the provider,
 * that of a lost one is gone; refunding either would pay the buyer twice.
 */
async function refuseIfDisputed(db: Queryable, paymentId: string): Promise<void> {
  const dispute = await blockingDispute(db, paymentId);
  if (dispute) throw apiError('payment_disputed', dispute.status);
}

const LATE_CHARGE_REASON = 'charged after the payment was final';

/**
 * The refund of a charge the provider reported on a canceled or failed payment, or of one
 * for another amount than the payment's (docs/api.md#exceptions), where the provider refunds
 * by API: the amount it took, in full. Recorded like any refund (row, refund event); returns
 * it as stored afterwards, or null when the provider has no refund operation or the payment
 * already has a refund.
 */
export async function refundLateCharge(
  deps: RefundServiceDeps,
  payment: PaymentRow,
  amountMinor: number,
): Promise<RefundRow | null> {
  if (!deps.providers.get(payment.provider as ProviderSlug).refund) return null;
  const refund = await withTransaction(deps.pool, (tx) =>
    refundsDb.insertInitiatedRefund(tx, {
      id: newId(),
      payment_id: payment.id,
      app_id: payment.app_id,
      mode: payment.mode,
      amount_minor: amountMinor,
      currency: payment.currency,
      provider: payment.provider,
      reason: LATE_CHARGE_REASON,
    }),
  );
  if (!refund) return null;
  try {
    await callProvider(deps, payment, refund);
  } catch (err) {
    // Refused or unanswered: stored failed, or initiated and resent later; the exception
    // stays for the operator.
    deps.log.warn({ err, refund_id: refund.id }, 'refund of a late charge did not complete');
  }
  return refundsDb.findRefund(deps.pool, refund.id);
}

function refundAuditChange(r: RefundRow): AuditChange {
  return {
    targetType: 'payment',
    targetId: r.payment_id,
    outcome: 'refund_initiated',
    details: { refund_id: r.id, amount_minor: r.amount_minor, reason: r.reason },
  };
}

function created(r: RefundRow): StoredResponse {
  return { status: 201, body: JSON.stringify(toRefundView(r)) };
}

async function callProvider(
  deps: RefundServiceDeps,
  payment: PaymentRow,
  refund: RefundRow,
): Promise<StoredResponse> {
  const slug = payment.provider as ProviderSlug;
  const provider = deps.providers.get(slug);
  const endpoint = deps.providers.endpoint(slug, payment.mode);
  if (!provider.refund || !endpoint) {
    await settleWithEvent(deps, payment, refund.id, {
      status: 'failed',
      providerRef: null,
      lastError: notConfigured(slug, payment.mode),
    });
    throw apiError('refund_failed', notConfigured(slug, payment.mode));
  }
  // Money moves at the provider next: the refund row that blocks a second one must be on disk.
  await durable(deps.pool);
  let result;
  try {
    result = await provider.refund(
      { mode: payment.mode, endpoint, timeoutMs: deps.providerTimeoutMs },
      {
        paymentId: payment.id,
        providerRef: payment.provider_ref,
        refundId: refund.id,
        amountMinor: refund.amount_minor,
        paymentAmountMinor: payment.amount_minor,
        currency: refund.currency,
        reason: refund.reason,
      },
    );
  } catch (err) {
    if (err instanceof ProviderError && err.kind === 'rejected') {
      await settleWithEvent(deps, payment, refund.id, {
        status: 'failed',
        providerRef: null,
        lastError: err.providerText,
      });
      throw apiError('refund_failed', err.providerText);
    }
    // Unknown outcome: the refund stays initiated (it blocks a second one); a retry with the
    // same Idempotency-Key asks the provider again with the same refund id, hence 504 (D15).
    const text = err instanceof ProviderError ? err.providerText : 'provider unreachable';
    deps.log.warn({ err, refund_id: refund.id }, 'provider refund indeterminate');
    throw apiError('refund_unknown', text);
  }
  const settled = await settleWithEvent(deps, payment, refund.id, {
    status: result.status === 'succeeded' ? 'succeeded' : 'initiated',
    providerRef: result.providerRefundRef,
  });
  // Null: the provider's webhook settled it first; answer with what is stored now.
  return created(settled ?? ((await refundsDb.findRefund(deps.pool, refund.id)) as RefundRow));
}

/** Settles the refund and, for a terminal outcome, enqueues refund.<status> in the same transaction. */
async function settleWithEvent(
  deps: RefundServiceDeps,
  payment: PaymentRow,
  refundId: string,
  s: {
    status: 'initiated' | 'succeeded' | 'failed';
    providerRef: string | null;
    lastError?: string;
  },
): Promise<RefundRow | null> {
  return withTransaction(deps.pool, async (tx) => {
    const row = await refundsDb.settleRefund(tx, refundId, s);
    if (row && row.status !== 'initiated')
      await enqueueRefundEvent(tx, payment, row, row.updated_at);
    return row;
  });
}

/** refund.succeeded or refund.failed for a refund just made terminal, in its transaction. */
async function enqueueRefundEvent(
  tx: Queryable,
  payment: PaymentRow,
  refund: RefundRow,
  at: Date,
): Promise<void> {
  const eventType = refund.status === 'succeeded' ? 'refund.succeeded' : 'refund.failed';
  await enqueueEvent(tx, {
    appId: payment.app_id,
    paymentId: payment.id,
    refundId: refund.id,
    eventType,
    body: refundEventBody(eventType, refund, payment.metadata, at),
  });
}

/**
 * A refund whose provider call never answered (timeout) stays initiated and blocks a second
 * one. After five quiet minutes it is sent again with the same refund id, which the
 * provider deduplicates, and settled by the answer. The claim moves updated_at, so
 * instances never resend one at the same time.
 */
export async function retryUnansweredRefunds(deps: RefundServiceDeps, limit = 20): Promise<number> {
  const due = await refundsDb.claimUnansweredRefunds(deps.pool, limit);
  for (const refund of due) {
    const payment = await findPayment(deps.pool, refund.payment_id);
    if (!payment) continue;
    const asked = refundQuestion(refund);
    try {
      const res = await callProvider(deps, payment, refund);
      await recordRefundCheck(deps.pool, refund.id, { asked, learned: refundLearned(res) });
    } catch (err) {
      await recordRefundCheck(deps.pool, refund.id, { asked, learned: refundLearned(err) }).catch(
        () => undefined,
      );
      // A refusal is recorded as failed by callProvider; an unknown outcome waits for the next round.
      if (!(err instanceof ApiError))
        deps.log.warn({ err, refund_id: refund.id }, 'refund retry failed');
    }
  }
  return due.length;
}

/**
 * A provider's refund event: settles a refund we started (matched by the provider's refund
 * id, or our initiated refund awaiting one) through the one settlement path, or records a
 * refund made at the provider, a second one included (`additional`: money the provider
 * moved is on record whatever the one-refund rule of the API says); refund.<outcome> is
 * enqueued in the same transaction. Where the provider reports the total it refunded, refunds
 * on record that add up to less get the difference recorded as one more refund.
 */
export async function applyProviderRefund(
  deps: Pick<ProviderEventDeps, 'pool' | 'log'>,
  slug: ProviderSlug,
  payment: PaymentRow,
  action: Extract<InboundAction, { kind: 'refund' }>,
): Promise<Applied> {
  const changed = await withTransaction(deps.pool, async (tx) => {
    // One payment's refund events one at a time: each sees the refunds the others recorded.
    await refundsDb.lockPaymentRefunds(tx, payment.id);
    const found = await refundsDb.lockRefundForProviderEvent(
      tx,
      slug,
      action.providerRefundRef,
      payment.id,
      !action.onlyByRef,
    );
    // A provider event is applied only to the payment it names: another payment's refund is
    // a bad reference, never settled or answered already_finalized (docs/api.md#provider-webhooks).
    if (found && found.payment_id !== payment.id) {
      throw new BadReference(
        `refund ${JSON.stringify(action.providerRefundRef)} belongs to another payment`,
      );
    }
    let changed = false;
    if (found?.status === 'initiated') {
      const settled = await refundsDb.settleRefund(tx, found.id, {
        status: action.outcome,
        providerRef: action.providerRefundRef,
        lastError: action.errorText,
      });
      if (settled) await enqueueRefundEvent(tx, payment, settled, new Date());
      changed = settled !== null;
    } else if (!found) {
      const recorded = await recordProviderRefund(tx, deps, payment, {
        status: action.outcome,
        amountMinor: action.amountMinor ?? payment.amount_minor,
        providerRef: action.providerRefundRef,
        lastError: action.errorText ?? '',
      });
      changed = recorded !== null;
    }
    if (action.outcome === 'succeeded' && action.refundedTotalMinor !== undefined) {
      const onRecord = await refundsDb.succeededRefundTotal(tx, payment.id);
      const gap = action.refundedTotalMinor - onRecord;
      if (gap > 0) {
        const extra = await recordProviderRefund(tx, deps, payment, {
          status: 'succeeded',
          amountMinor: gap,
          // The provider names the refund only by its running total.
          providerRef: `${action.providerRefundRef}:${action.refundedTotalMinor}`,
          lastError: '',
        });
        changed ||= extra !== null;
      }
    }
    return changed;
  });
  return changed ? applied('changed', `refund_${action.outcome}`) : ALREADY_FINALIZED;
}

/** A refund the gateway did not start, recorded as the provider reported it, with its event. */
async function recordProviderRefund(
  tx: Queryable,
  deps: Pick<ProviderEventDeps, 'log'>,
  payment: PaymentRow,
  r: {
    status: 'succeeded' | 'failed';
    amountMinor: number;
    providerRef: string;
    lastError: string;
  },
): Promise<RefundRow | null> {
  const refund = await refundsDb.insertProviderRefund(tx, {
    id: newId(),
    payment_id: payment.id,
    app_id: payment.app_id,
    mode: payment.mode,
    status: r.status,
    amount_minor: r.amountMinor,
    currency: payment.currency,
    provider: payment.provider,
    provider_ref: r.providerRef,
    last_error: r.lastError,
  });
  if (!refund) return null;
  if (refund.status === 'succeeded') await unrequestedRefund(tx, deps, payment, refund);
  await enqueueRefundEvent(tx, payment, refund, new Date());
  return refund;
}

/**
 * A refund made at the provider on a payment that never succeeded: it gives back a late
 * charge waiting for the operator (that exception is then refunded), or else it is money the
 * gateway did not ask to move, an unrequested_refund exception. Runs in the refund's
 * transaction.
 */
async function unrequestedRefund(
  tx: Queryable,
  deps: Pick<ProviderEventDeps, 'log'>,
  payment: PaymentRow,
  refund: RefundRow,
): Promise<void> {
  const now = await findPayment(tx, payment.id);
  if (!now || now.status === 'succeeded') return;
  if (await refundLateChargeException(tx, payment.id)) return;
  await recordException(tx, deps.log, now, {
    kind: 'unrequested_refund',
    providerRef: refund.provider_ref ?? '',
    amountMinor: refund.amount_minor,
    currency: refund.currency,
  });
}
