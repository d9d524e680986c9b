import { findPayment, type PaymentRow } from '../../db/payments.js';
import { withTransaction } from '../../db/pool.js';
import { apiError, notFoundPayment } from '../../domain/errors.js';
import { isPaymentId } from '../../domain/ids.js';
import type { ProviderSlug } from '../../domain/types.js';
import {
  ProviderError,
  type PaymentProvider,
  type ProviderContext,
} from '../../providers/types.js';
import { finalizePayment, outcomeOf, settleOutcome } from './finalize.js';
import type { StoredResponse } from '../idempotency.js';
import { paymentBody } from './read.js';
import { paymentRef } from '../providerStatus.js';
import { refundPayment, type RefundServiceDeps } from '../refunds/refundPayment.js';

const OPERATOR_REFUND_REASON = 'canceled by operator';

/**
 * Admin cancel (docs/api.md#admin-cancel): initiated -> canceled (voided at the provider
 * first where it has an operation, so the buyer can no longer pay); succeeded -> a full
 * refund; failed or canceled -> 422. A payment the buyer paid while the cancel was on its way
 * becomes succeeded (as the provider's webhook would make it) and then the full refund.
 */
export async function adminCancel(
  deps: RefundServiceDeps,
  paymentId: string,
): Promise<StoredResponse> {
  const payment = isPaymentId(paymentId) ? await findPayment(deps.pool, paymentId) : null;
  if (!payment) throw notFoundPayment();
  if (payment.status !== 'initiated') return cancelTerminal(deps, payment);

  const slug = payment.provider as ProviderSlug;
  const provider = deps.providers.get(slug);
  const endpoint = deps.providers.endpoint(slug, payment.mode);
  // Whether the operator's cancel reached the provider, which then voided the payment.
  let voidedAtProvider = false;
  if (provider.cancel && endpoint && payment.provider_ref !== null) {
    const ctx = {
      mode: payment.mode,
      endpoint,
      timeoutMs: deps.providerTimeoutMs,
      now: () => deps.now(),
    };
    try {
      await provider.cancel(ctx, paymentRef(payment));
      voidedAtProvider = true;
    } catch (err) {
      // The buyer may have paid meanwhile (the provider refuses to void a settled payment).
      // Whatever the provider now holds is applied exactly as its webhook would be, so money
      // it moved is on record; a paid payment then gets the full refund of a succeeded one.
      const now = await settleFromProvider(deps, provider, ctx, payment);
      if (now && now.status !== 'initiated') {
        if (now.status === 'canceled') return canceledAtProvider(deps, now);
        return cancelTerminal(deps, now);
      }
      if (err instanceof ProviderError && err.kind === 'rejected') {
        throw apiError('cancel_failed', err.providerText);
      }
      // Whether the void reached the provider is unknown: the payment stays initiated (D15).
      const text = err instanceof ProviderError ? err.providerText : 'provider unreachable';
      throw apiError('cancel_unknown', text);
    }
  }
  const canceled = await withTransaction(deps.pool, async (tx) => {
    const row = await finalizePayment(tx, payment, { outcome: 'canceled' });
    if (row)
      await deps.audit?.(tx, { targetType: 'payment', targetId: row.id, outcome: 'canceled' });
    return row;
  });
  if (!canceled) {
    const now = (await findPayment(deps.pool, payment.id)) as PaymentRow;
    // The provider's own cancel notification may have finalized it first: same outcome. It
    // was the operator's void that the notification reported, so the action is on record.
    if (now.status === 'canceled') {
      if (voidedAtProvider) return canceledAtProvider(deps, now);
      return { status: 200, body: paymentBody(now) };
    }
    return cancelTerminal(deps, now);
  }
  return { status: 200, body: paymentBody(canceled) };
}

/**
 * The operator's cancel took effect at the provider, but the payment was finalized canceled
 * by the provider's notification or the status check rather than by this request's own
 * transaction: the audit entry is written here, so the log has an entry exactly when the
 * operator's action took effect (docs/api.md#audit-log).
 */
async function canceledAtProvider(
  deps: RefundServiceDeps,
  payment: PaymentRow,
): Promise<StoredResponse> {
  // One statement: the state change it records has already committed.
  await deps.audit?.(deps.pool, {
    targetType: 'payment',
    targetId: payment.id,
    outcome: 'canceled',
  });
  return { status: 200, body: paymentBody(payment) };
}

/**
 * Asks the provider for the payment's status after a refused or failed cancel and finalizes
 * it through the webhook's own path when the provider reports a final state. Returns the
 * payment as stored afterwards (null only if it vanished).
 */
async function settleFromProvider(
  deps: RefundServiceDeps,
  provider: PaymentProvider,
  ctx: ProviderContext,
  payment: PaymentRow,
): Promise<PaymentRow | null> {
  try {
    const action = await provider.fetchStatus(ctx, paymentRef(payment));
    if (action.kind === 'payment') await settleOutcome(deps, payment, outcomeOf(action));
  } catch (err) {
    deps.log.warn({ err, payment_id: payment.id }, 'status check after a refused cancel failed');
  }
  return findPayment(deps.pool, payment.id);
}

function cancelTerminal(deps: RefundServiceDeps, payment: PaymentRow): Promise<StoredResponse> {
  if (payment.status === 'succeeded') {
    return refundPayment(deps, payment, { amountMinor: null, reason: OPERATOR_REFUND_REASON });
  }
  throw apiError('already_finalized', payment.status);
}
