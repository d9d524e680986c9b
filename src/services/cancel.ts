import { findPayment, type PaymentRow } from '../db/payments.js';
import { withTransaction } from '../db/pool.js';
import { ApiError, notFoundPayment } from '../domain/errors.js';
import { isPaymentId } from '../domain/ids.js';
import type { ProviderSlug } from '../domain/types.js';
import { ProviderError } from '../providers/types.js';
import { finalizePayment } from './finalize.js';
import type { StoredResponse } from './idempotency.js';
import { toPaymentView } from './payments.js';
import { refundPayment, type RefundServiceDeps } from './refunds.js';

const OPERATOR_REFUND_REASON = 'canceled by operator';

/**
 * D8 admin cancel: initiated -> canceled (cancelled at the provider first where it has an
 * operation, so the buyer can no longer pay); succeeded -> a full refund (spec 3.1 rule 4);
 * failed or canceled -> 422.
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
  if (provider.cancel && endpoint && payment.provider_ref !== null) {
    try {
      await provider.cancel(
        { mode: payment.mode, endpoint, timeoutMs: deps.providerTimeoutMs },
        { paymentId: payment.id, providerRef: payment.provider_ref },
      );
    } catch (err) {
      // The buyer may have paid meanwhile: if a webhook finalized it, act on that state.
      const now = await findPayment(deps.pool, payment.id);
      if (now && now.status !== 'initiated') return cancelTerminal(deps, now);
      const text = err instanceof ProviderError ? err.providerText : 'provider unreachable';
      throw new ApiError(502, `cancel failed: ${text}`);
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
    // The provider's own cancel notification may have finalized it first: same outcome.
    if (now.status === 'canceled') return { status: 200, body: JSON.stringify(toPaymentView(now)) };
    return cancelTerminal(deps, now);
  }
  return { status: 200, body: JSON.stringify(toPaymentView(canceled)) };
}

function cancelTerminal(deps: RefundServiceDeps, payment: PaymentRow): Promise<StoredResponse> {
  if (payment.status === 'succeeded') {
    return refundPayment(deps, payment, { amountMinor: null, reason: OPERATOR_REFUND_REASON });
  }
  throw new ApiError(422, `payment already finalized (status ${payment.status})`);
}
