/**
 * The refund use case every refund request shares (v1, admin, admin cancel of a paid payment,
 * the late-charge refund, the retry worker): one initiated row per payment, the provider call,
 * the one settlement with its refund event.
 */
import * as idem from '../../db/idempotency.js';
import { enqueueEvent } from '../../db/outbox.js';
import { blockingDispute } from '../../db/disputes.js';
import { lockPayment, type PaymentRow } from '../../db/payments.js';
import { durable, withTransaction, type Pool, type Queryable } from '../../db/pool.js';
import * as refundsDb from '../../db/refunds.js';
import type { RefundRow } from '../../db/refunds.js';
import { apiError, notConfigured } from '../../domain/errors.js';
import { refundEventBody } from '../../domain/events.js';
import { newId } from '../../domain/ids.js';
import { serialize } from '../../domain/serialize.js';
import type { ProviderSlug } from '../../domain/types.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import { ProviderError } from '../../providers/types.js';
import type { Audit, AuditChange } from '../audit.js';
import { type Claim, type StoredResponse } from '../idempotency.js';
import type { RefundRequest } from './request.js';

export interface RefundServiceDeps {
  pool: Pool;
  durablePool: Pool;
  providers: ProviderRegistry;
  providerTimeoutMs: number;
  log: { error(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** Admin requests: writes their audit entry in the transaction that creates the refund. */
  audit?: Audit;
  /** The gateway's clock (Gateway.now): when an unanswered refund is due again. */
  now(): number;
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

function refundAuditChange(r: RefundRow): AuditChange {
  return {
    targetType: 'payment',
    targetId: r.payment_id,
    outcome: 'refund_initiated',
    details: { refund_id: r.id, amount_minor: r.amount_minor, reason: r.reason },
  };
}

/** The 201 of every refund request: the row written by the Refund schema (docs/api.md#refund-object). */
function created(r: RefundRow): StoredResponse {
  return { status: 201, body: serialize('Refund', r) };
}

export async function callProvider(
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
      { mode: payment.mode, endpoint, timeoutMs: deps.providerTimeoutMs, now: () => deps.now() },
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
      await settleAnswer(deps, payment, refund, {
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
  const settled = await settleAnswer(deps, payment, refund, {
    status: result.status === 'succeeded' ? 'succeeded' : 'initiated',
    providerRef: result.providerRefundRef,
  });
  // Null: the provider's webhook settled it first; answer with what is stored now.
  return created(settled ?? ((await refundsDb.findRefund(deps.pool, refund.id)) as RefundRow));
}

/**
 * Writes the provider's answer (D15). When that write fails (the database refuses it, the
 * connection is lost mid-statement), the provider may have moved money our row does not show:
 * an unknown outcome for the client, 504, never a 500. The refund stays initiated, which
 * blocks a second one; a retry with the same Idempotency-Key, or the refund worker after five
 * quiet minutes, sends it again under the same refund id (the provider deduplicates it) and
 * settles it with that answer. The answer that could not be written goes to the log.
 */
async function settleAnswer(
  deps: RefundServiceDeps,
  payment: PaymentRow,
  refund: RefundRow,
  s: {
    status: 'initiated' | 'succeeded' | 'failed';
    providerRef: string | null;
    lastError?: string;
  },
): Promise<RefundRow | null> {
  try {
    return await settleWithEvent(deps, payment, refund.id, s);
  } catch (err) {
    deps.log.error(
      {
        err,
        refund_id: refund.id,
        provider: payment.provider,
        provider_status: s.status,
        provider_refund_ref: s.providerRef,
        provider_text: s.lastError ?? null,
      },
      'provider refund answer not recorded',
    );
    throw apiError('refund_unknown', `${payment.provider}'s answer could not be recorded`);
  }
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
export async function enqueueRefundEvent(
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
