import { recordRefundCheck } from '../../db/checks.js';
import { findPayment } from '../../db/payments.js';
import * as refundsDb from '../../db/refunds.js';
import { ApiError } from '../../domain/errors.js';
import { refundLearned, refundQuestion } from '../refundCheck.js';
import { callProvider, type RefundServiceDeps } from './refundPayment.js';

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
