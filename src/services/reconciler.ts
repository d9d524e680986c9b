import { recordPaymentCheck } from '../db/checks.js';
import type { Config } from '../config.js';
import * as paymentsDb from '../db/payments.js';
import type { PaymentRow } from '../db/payments.js';
import type { Pool } from '../db/pool.js';
import type { ProviderSlug } from '../domain/types.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { PaymentProvider, ProviderContext } from '../providers/types.js';
import { finalizePayment, outcomeOf, settleOutcome, type SettleDeps } from './payments/finalize.js';
import {
  applyMovements,
  describeAction,
  describeError,
  fetchConfirmedStatus,
  paymentQuestion,
  paymentRef,
} from './providerStatus.js';

const RECHECK_AFTER_MS = 2 * 60_000;

/** What the reconciler takes from the process. */
export interface ReconcilerDeps {
  pool: Pool;
  /** Money given back (an amount mismatch found by the status check) waits for its flush. */
  durablePool: Pool;
  providers: ProviderRegistry;
  config: Pick<Config, 'providerTimeoutMs' | 'idrPspDirectQr'>;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  now(): number;
}

function settleDeps(gw: ReconcilerDeps): SettleDeps {
  return { ...gw, providerTimeoutMs: gw.config.providerTimeoutMs };
}

/**
 * The safety net for a lost provider webhook and for a registration that never completed:
 * initiated payments past their provider deadline are asked about at the provider and
 * finalized through the same atomic path as a webhook. Every payment gets a deadline at
 * insert (services/payments/create.ts), so one whose creating process died before storing the
 * provider's answer is found here too. The claim pushes the deadline forward, so instances
 * never ask twice at once.
 */
export async function reconcileDue(gw: ReconcilerDeps, limit = 20): Promise<number> {
  const now = gw.now();
  const claimedUntil = new Date(now + RECHECK_AFTER_MS);
  const due = await paymentsDb.claimDuePayments(gw.pool, limit, claimedUntil, new Date(now));
  for (const claimed of due) {
    const slug = claimed.provider as ProviderSlug;
    const endpoint = gw.providers.endpoint(slug, claimed.mode);
    if (!endpoint) continue;
    const provider = gw.providers.get(slug);
    const ctx = {
      mode: claimed.mode,
      endpoint,
      timeoutMs: gw.config.providerTimeoutMs,
      now: () => gw.now(),
    };
    try {
      const payment =
        claimed.provider_ref === null
          ? await resolveRegistration(gw, provider, ctx, claimed, claimedUntil)
          : claimed;
      if (payment) await applyProviderStatus(gw, provider, ctx, payment);
    } catch (err) {
      await recordPaymentCheck(gw.pool, claimed.id, {
        asked: paymentQuestion(claimed),
        learned: describeError(err),
      }).catch(() => undefined);
      gw.log.warn(
        { err, payment_id: claimed.id },
        'reconciling a payment with its provider failed',
      );
    }
  }
  return due.length;
}

/**
 * A payment without a provider reference: the provider is asked what it holds under our
 * payment id. Found: its reference, page and expiry are stored, and the payment goes on as
 * if registration had answered. None: the payment can never be paid (no buyer ever got a
 * page for it) and is failed, payment.failed enqueued with it; only while this claim still
 * holds, so a client's retry that claimed it meanwhile (same Idempotency-Key) wins.
 * Returns the registered payment, or null when nothing more is to be done now.
 */
async function resolveRegistration(
  gw: ReconcilerDeps,
  provider: PaymentProvider,
  ctx: ProviderContext,
  payment: PaymentRow,
  claimedUntil: Date,
): Promise<PaymentRow | null> {
  const lookup = await provider.findRegistration(ctx, {
    paymentId: payment.id,
    amountMinor: payment.amount_minor,
    currency: payment.currency,
    method: payment.method,
    email: payment.email,
    externalUserId: payment.external_user_id,
    returnUrl: payment.return_url,
    metadata: payment.metadata,
    directQr: gw.config.idrPspDirectQr,
  });
  if (lookup.kind === 'none') {
    const failed = await finalizePayment(gw.pool, payment, {
      outcome: 'failed',
      errorText: `provider registration never completed: ${lookup.providerText}`,
      onlyIfUnregisteredUntil: claimedUntil,
    });
    if (failed) gw.log.warn({ payment_id: payment.id }, 'unregistered payment failed');
    return null;
  }
  const reg = lookup.registration;
  return paymentsDb.storeRegistration(gw.pool, payment.id, {
    providerRef: reg.providerRef,
    checkoutUrl: reg.checkoutUrl,
    qrString: reg.qrString ?? null,
    qrImageUrl: reg.qrImageUrl ?? null,
    providerDeadline: reg.expiresAt ?? null,
  });
}

/**
 * The provider's current status of the payment, applied exactly as its confirmed webhook
 * would be: the outcome, then any money the answer shows moved since (a refund made at the
 * provider, a chargeback, a reversal), booked through the same paths.
 */
async function applyProviderStatus(
  gw: ReconcilerDeps,
  provider: PaymentProvider,
  ctx: ProviderContext,
  payment: PaymentRow,
): Promise<void> {
  const ref = paymentRef(payment);
  const actions = await fetchConfirmedStatus({ provider, ctx, ref });
  await recordPaymentCheck(gw.pool, payment.id, {
    asked: paymentQuestion(payment),
    learned: actions.map(describeAction).join('; '),
  });
  for (const action of actions) {
    if (action.kind === 'payment') {
      await settleOutcome(settleDeps(gw), payment, outcomeOf(action));
    } else if (action.kind === 'capture_required' && provider.capture) {
      await provider.capture(ctx, ref);
    }
  }
  await applyMovements(gw, provider.slug, payment.id, actions);
}
