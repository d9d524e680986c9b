import type { PaymentRow } from '../../db/payments.js';
import { apiError } from '../../domain/errors.js';
import type { ProviderSlug } from '../../domain/types.js';
import { ProviderError } from '../../providers/types.js';
import { finalizePayment } from './finalize.js';
import {
  ALREADY_FINALIZED,
  applied,
  EventRejected,
  type Applied,
  type ProviderEventDeps,
} from '../providerEvent.js';

/**
 * wallet_psp: the buyer approved; capture now, the provider's capture event settles it. A
 * refused capture fails the payment; an unknown outcome is answered 503 so that the
 * provider redelivers the approval and the capture is tried again.
 */
export async function captureApproved(
  deps: ProviderEventDeps,
  slug: ProviderSlug,
  payment: PaymentRow,
): Promise<Applied> {
  if (payment.status !== 'initiated') return ALREADY_FINALIZED;
  const provider = deps.providers.get(slug);
  const endpoint = deps.providers.endpoint(slug, payment.mode);
  if (!provider.capture || !endpoint) return applied('none', 'none');
  try {
    await provider.capture(
      { mode: payment.mode, endpoint, timeoutMs: deps.providerTimeoutMs, now: () => deps.now() },
      { paymentId: payment.id, providerRef: payment.provider_ref },
    );
    return applied('none', 'captured');
  } catch (err) {
    if (err instanceof ProviderError && err.kind === 'rejected') {
      // The provider refused the capture: the payment cannot complete.
      const done = await finalizePayment(deps.pool, payment, {
        outcome: 'failed',
        errorText: err.providerText,
      });
      return done ? applied('changed', 'finalized_failed') : ALREADY_FINALIZED;
    }
    deps.log.warn({ err, payment_id: payment.id }, 'capture indeterminate');
    throw new EventRejected(apiError('unavailable'), 'capture_indeterminate');
  }
}
