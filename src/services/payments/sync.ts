/**
 * POST /admin/payments/{id}/sync: asks the provider for an initiated payment's status now and
 * applies the answer as its webhook would be applied: the same conditional finalization and
 * outbound event, so a racing webhook and a sync finalize the payment once. What was asked
 * and learned is recorded with the request's audit entry in one transaction.
 */
import { recordPaymentCheck } from '../../db/checks.js';
import { findPayment } from '../../db/payments.js';
import { withTransaction, type Pool } from '../../db/pool.js';
import { apiError, notFoundPayment, notConfigured } from '../../domain/errors.js';
import { isPaymentId } from '../../domain/ids.js';
import { storableText } from '../../domain/storableText.js';
import type { ProviderSlug } from '../../domain/types.js';
import { ProviderError } from '../../providers/types.js';
import type { Audit } from '../audit.js';
import {
  amountMismatch,
  finalizePayment,
  giveBackMismatch,
  outcomeOf,
  type FinalizeInput,
  type SettleDeps,
} from './finalize.js';
import { paymentBody } from './read.js';
import {
  applyMovements,
  describeAction,
  describeError,
  fetchConfirmedStatus,
  paymentQuestion,
  statusCall,
  type StatusDeps,
} from '../providerStatus.js';

export interface SyncDeps extends StatusDeps, SettleDeps {
  pool: Pool;
}

const providerText = (err: unknown) =>
  err instanceof ProviderError ? err.providerText : 'provider unreachable';

/** 502 when the provider answered no, 504 when its answer is unknown (D15). */
const syncError = (err: unknown) =>
  err instanceof ProviderError && err.kind === 'rejected'
    ? apiError('sync_failed', err.providerText)
    : apiError('sync_unknown', providerText(err));

export async function syncPayment(
  deps: SyncDeps,
  paymentId: string,
  audit: Audit,
): Promise<string> {
  const payment = isPaymentId(paymentId) ? await findPayment(deps.pool, paymentId) : null;
  if (!payment) throw notFoundPayment();
  // A terminal payment never moves again: its webhook would be acknowledged and ignored.
  if (payment.status !== 'initiated') return paymentBody(payment);
  const call = statusCall(deps, payment);
  if (!call) {
    throw apiError('sync_failed', notConfigured(payment.provider, payment.mode));
  }
  const asked = paymentQuestion(payment);
  const record = (learned: string, outcome: string, finalize?: FinalizeInput) =>
    withTransaction(deps.pool, async (tx) => {
      await recordPaymentCheck(tx, payment.id, { asked, learned });
      let result = outcome;
      let done = null;
      if (finalize) {
        done = await finalizePayment(tx, payment, finalize);
        result = done ? done.status : 'already_finalized';
      }
      await audit(tx, {
        targetType: 'payment',
        targetId: payment.id,
        outcome: result,
        // The provider's text in jsonb: NUL and unpaired surrogates made storable.
        details: { asked: storableText(asked), learned: storableText(learned) },
      });
      return done;
    });

  let actions;
  try {
    actions = await fetchConfirmedStatus(call);
  } catch (err) {
    await record(describeError(err), 'error');
    throw syncError(err);
  }
  // The outcome comes first; money the answer shows moved since (refunds, chargebacks,
  // reversals) is booked after it, as for the provider's confirmed webhook.
  const action = actions[0] ?? { kind: 'none' as const };
  let learned = actions.map(describeAction).join('; ');
  if (action.kind === 'payment') {
    const input = outcomeOf(action);
    const done = await record(learned, action.outcome, input);
    const mismatch = amountMismatch(payment, input);
    if (done && mismatch) await giveBackMismatch(deps, done, mismatch);
  } else if (action.kind === 'capture_required' && call.provider.capture) {
    // As for the provider's approval webhook: capture now; its capture event settles it.
    try {
      await call.provider.capture(call.ctx, call.ref);
      learned += '; capture requested';
      await record(learned, 'capture_requested');
    } catch (err) {
      if (err instanceof ProviderError && err.kind === 'rejected') {
        learned += `; capture rejected: ${err.providerText}`;
        await record(learned, 'failed', { outcome: 'failed', errorText: err.providerText });
      } else {
        await record(`${learned}; capture ${describeError(err)}`, 'error');
        throw syncError(err);
      }
    }
  } else {
    await record(learned, 'unchanged');
  }
  await applyMovements(deps, payment.provider as ProviderSlug, payment.id, actions.slice(1));
  return paymentBody((await findPayment(deps.pool, payment.id)) ?? payment);
}
