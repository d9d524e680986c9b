import { recordPaymentCheck } from '../db/checks.js';
import { PAYMENT_COLUMNS, type PaymentRow } from '../db/payments.js';
import type { ProviderSlug } from '../domain/types.js';
import type { Gateway } from '../gateway.js';
import { finalizePayment } from './finalize.js';
import { describeAction, describeError, paymentQuestion } from './providerStatus.js';

const RECHECK_AFTER = `interval '2 minutes'`;

/**
 * The safety net for a lost provider webhook: initiated payments past their provider
 * deadline are asked about at the provider and finalized through the same atomic path as a
 * webhook. The claim pushes the deadline forward, so instances never ask twice at once.
 */
export async function reconcileDue(gw: Gateway, limit = 20): Promise<number> {
  const due = await gw.pool.query<PaymentRow>(
    `UPDATE payments SET provider_deadline = now() + ${RECHECK_AFTER}
     WHERE id IN (
       SELECT id FROM payments
       WHERE status = 'initiated' AND provider_deadline < now()
       ORDER BY provider_deadline LIMIT $1 FOR UPDATE SKIP LOCKED)
     RETURNING ${PAYMENT_COLUMNS}`,
    [limit],
  );
  for (const payment of due.rows) {
    const slug = payment.provider as ProviderSlug;
    const endpoint = gw.providers.endpoint(slug, payment.mode);
    if (!endpoint) continue;
    const provider = gw.providers.get(slug);
    const ctx = { mode: payment.mode, endpoint, timeoutMs: gw.config.providerTimeoutMs };
    const ref = { paymentId: payment.id, providerRef: payment.provider_ref };
    try {
      const action = await provider.fetchStatus(ctx, ref);
      await recordPaymentCheck(gw.pool, payment.id, {
        asked: paymentQuestion(payment),
        learned: describeAction(action),
      });
      if (action.kind === 'payment') {
        await finalizePayment(gw.pool, payment, {
          outcome: action.outcome,
          errorText: action.errorText,
          enrichment: action.enrichment,
        });
      } else if (action.kind === 'capture_required' && provider.capture) {
        await provider.capture(ctx, ref);
      }
    } catch (err) {
      await recordPaymentCheck(gw.pool, payment.id, {
        asked: paymentQuestion(payment),
        learned: describeError(err),
      }).catch(() => undefined);
      gw.log.warn(
        { err, payment_id: payment.id },
        'reconciling a payment with its provider failed',
      );
    }
  }
  return due.rows.length;
}
