import type { PaymentRow } from '../../db/payments.js';
import { withTransaction } from '../../db/pool.js';
import * as refundsDb from '../../db/refunds.js';
import type { RefundRow } from '../../db/refunds.js';
import { newId } from '../../domain/ids.js';
import type { ProviderSlug } from '../../domain/types.js';
import { callProvider, type RefundServiceDeps } from './refundPayment.js';

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
