import { refundLateChargeException } from '../../db/exceptions.js';
import { findPayment, type PaymentRow } from '../../db/payments.js';
import { withTransaction, type Queryable } from '../../db/pool.js';
import * as refundsDb from '../../db/refunds.js';
import type { RefundRow } from '../../db/refunds.js';
import { newId } from '../../domain/ids.js';
import type { ProviderSlug } from '../../domain/types.js';
import { BadReference, type InboundAction } from '../../providers/types.js';
import { recordException } from '../exceptions.js';
import {
  ALREADY_FINALIZED,
  applied,
  type Applied,
  type ProviderEventDeps,
} from '../providerEvent.js';
import { enqueueRefundEvent } from './refundPayment.js';

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
