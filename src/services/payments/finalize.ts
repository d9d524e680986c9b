import { newDeliveryId, newEventId, newId } from '../../domain/ids.js';
import { findPaymentException, markRefunded } from '../../db/exceptions.js';
import { packEventBody } from '../../db/eventBody.js';
import { finalizeInitiated } from '../../db/paymentFinalize.js';
import { findPayment, type PaymentRow } from '../../db/payments.js';
import type { Queryable } from '../../db/pool.js';
import { paymentEventBody, paymentEventType } from '../../domain/events.js';
import type { TerminalStatus } from '../../domain/types.js';
import type { InboundAction, InboundEvent, Money, Paid } from '../../providers/types.js';
import { lateChargeKind, recordException, reportException } from '../exceptions.js';
import {
  ALREADY_FINALIZED,
  applied,
  type Applied,
  type ProviderEventDeps,
} from '../providerEvent.js';
import { refundLateCharge } from '../refunds/lateCharge.js';
import type { RefundServiceDeps } from '../refunds/refundPayment.js';
import { storableText } from '../../domain/storableText.js';

/** How a payment leaves initiated: a success always carries what the provider took. */
type FinalOutcome =
  | { outcome: 'succeeded'; paid: Paid }
  | {
      outcome: 'failed' | 'canceled';
      /** Verbatim provider error text; kept as last_error for failed payments. */
      errorText?: string;
    };

export type FinalizeInput = FinalOutcome & {
  /** Provider enrichment merged into metadata (docs/api.md#metadata-enrichment). */
  enrichment?: Record<string, unknown>;
  subscriptionId?: string;
  /**
   * The reconciler failing a payment the provider has no registration for: only while it is
   * still unregistered and still under the reconciler's claim (deadline set to this value).
   */
  onlyIfUnregisteredUntil?: Date;
  /**
   * The provider event's archive row: the finalizing statement records the event's outcome
   * on it, committed synchronously (settleOutcome). Only where nothing follows the
   * finalization (no amount mismatch to give back).
   */
  archive?: { id: number; eventType: string };
};

type PaymentAction = Extract<InboundAction, { kind: 'payment' }>;

/** The finalization a provider's reported outcome asks for. */
export function outcomeOf(action: PaymentAction): FinalizeInput {
  return action.outcome === 'succeeded'
    ? { outcome: 'succeeded', paid: action.paid, enrichment: action.enrichment }
    : { outcome: action.outcome, errorText: action.errorText, enrichment: action.enrichment };
}

/**
 * What the provider took when it is not what the payment asks for (another amount, another
 * currency: a discount code, a trial, a short payment); null when they match.
 */
export function amountMismatch(payment: PaymentRow, input: FinalizeInput): Money | null {
  if (input.outcome !== 'succeeded') return null;
  const { paid } = input;
  return paid.amountMinor === payment.amount_minor && paid.currency === payment.currency
    ? null
    : paid;
}

function mismatchText(payment: PaymentRow, paid: Money): string {
  return `amount mismatch: the provider took ${paid.amountMinor} ${paid.currency}, the payment is ${payment.amount_minor} ${payment.currency}`;
}

/**
 * The one way a payment leaves initiated (docs/api.md#payment-states): a conditional update, so of
 * any number of concurrent events exactly one moves it, with the outbound event enqueued
 * in the same statement (db/paymentFinalize.ts finalizeInitiated). `payment` is the row as read before (an initiated payment's
 * fields do not change until this statement). A success for another amount or currency than
 * the payment's is never recorded as paid: the payment fails and, in the same statement, an
 * amount_mismatch exception records what the provider took. Returns the finalized row, or
 * null when the payment was already terminal.
 */
export async function finalizePayment(
  db: Queryable,
  payment: PaymentRow,
  input: FinalizeInput,
): Promise<PaymentRow | null> {
  const at = new Date();
  const mismatch = amountMismatch(payment, input);
  const outcome: TerminalStatus = mismatch ? 'failed' : input.outcome;
  // The outbound event carries last_error as stored.
  const errorText = storableText(
    mismatch
      ? mismatchText(payment, mismatch)
      : input.outcome === 'succeeded'
        ? ''
        : (input.errorText ?? ''),
  );
  const finalized: PaymentRow = {
    ...payment,
    status: outcome,
    last_error: outcome === 'failed' ? errorText : payment.last_error,
    metadata: { ...payment.metadata, ...input.enrichment },
    finalized_at: at,
    updated_at: at,
  };
  const eventType = paymentEventType(outcome);
  const done = await finalizeInitiated(db, {
    paymentId: payment.id,
    outcome,
    errorText,
    metadata: finalized.metadata,
    subscriptionId: input.subscriptionId ?? null,
    at,
    eventId: newEventId(),
    eventType,
    eventBody: packEventBody(eventType, paymentEventBody(eventType, finalized, at)),
    deliveryId: newDeliveryId(),
    onlyIfUnregisteredUntil: input.onlyIfUnregisteredUntil ?? null,
    archive: input.archive ?? null,
    feeMinor: input.outcome === 'succeeded' ? (input.paid.feeMinor ?? null) : null,
    mismatch: mismatch && {
      exceptionId: newId(),
      providerRef: payment.provider_ref ?? '',
      amountMinor: mismatch.amountMinor,
      currency: mismatch.currency,
    },
  });
  return done ? finalized : null;
}

/** What settling a provider's outcome needs: the refund machinery gives money back. */
export type SettleDeps = Pick<
  RefundServiceDeps,
  'pool' | 'durablePool' | 'providers' | 'providerTimeoutMs' | 'log' | 'now'
>;

/**
 * A provider's reported outcome applied to an initiated payment (webhook, status check,
 * reconciler): finalizePayment, then, where the provider took another amount than the
 * payment's, the exception is reported and the money given back where the provider refunds
 * by API (D13 of the contract's exceptions: docs/api.md#exceptions).
 */
export async function settleOutcome(
  deps: SettleDeps,
  payment: PaymentRow,
  input: FinalizeInput,
): Promise<PaymentRow | null> {
  // With the archive's outcome in it, the finalization is the request's last write: it
  // commits synchronously (db/pool.ts), the request's durability barrier.
  const done = await finalizePayment(input.archive ? deps.durablePool : deps.pool, payment, input);
  const mismatch = amountMismatch(payment, input);
  if (done && mismatch) await giveBackMismatch(deps, done, mismatch);
  return done;
}

/**
 * After a payment failed on an amount mismatch (in the finalizing statement): report the
 * exception and refund what the provider took, in the payment's currency only (a refund in
 * another currency is the operator's call).
 */
export async function giveBackMismatch(
  deps: SettleDeps,
  payment: PaymentRow,
  paid: Money,
): Promise<void> {
  const exception = await findPaymentException(deps.pool, payment.id, 'amount_mismatch');
  if (!exception) return;
  reportException(deps.log, exception);
  if (paid.currency !== payment.currency || paid.amountMinor <= 0) return;
  const refund = await refundLateCharge(deps, payment, paid.amountMinor);
  if (refund && (refund.status === 'succeeded' || refund.status === 'initiated')) {
    await markRefunded(deps.pool, exception.id);
  }
}

/**
 * A provider event that reports the payment's outcome: finalizes it, or, for a charge on a
 * payment that is already canceled or failed, puts the money on record (lateCharge).
 */
export async function applyPaymentOutcome(
  deps: ProviderEventDeps,
  payment: PaymentRow,
  ev: InboundEvent,
  action: PaymentAction,
): Promise<Applied> {
  const input: FinalizeInput = { ...outcomeOf(action), subscriptionId: ev.subscriptionId };
  // The event's archived outcome rides on the finalization when nothing follows it.
  const archive = amountMismatch(payment, input) ? undefined : deps.inboundArchive;
  const done = await settleOutcome(deps, payment, { ...input, archive });
  if (done) {
    return { ...applied('changed', `finalized_${done.status}`), recorded: archive !== undefined };
  }
  if (action.outcome === 'succeeded') await lateCharge(deps, payment, ev, action.paid);
  return ALREADY_FINALIZED;
}

/**
 * The provider reports a charge on a payment that is already terminal. A succeeded one is a
 * duplicate; a canceled or failed one keeps its status (a terminal payment never moves) but
 * the money the provider moved is put on record as an exception for the operator.
 */
async function lateCharge(
  deps: ProviderEventDeps,
  payment: PaymentRow,
  ev: InboundEvent,
  paid: Money,
): Promise<void> {
  const now = await findPayment(deps.pool, payment.id);
  const kind = now ? lateChargeKind(now) : null;
  if (!now || !kind) return;
  // The same charge again, after it failed the payment on its amount: already on record.
  if (await findPaymentException(deps.pool, now.id, 'amount_mismatch')) return;
  const exception = await recordException(deps.pool, deps.log, now, {
    kind,
    providerRef: now.provider_ref ?? ev.providerRef ?? '',
    amountMinor: paid.amountMinor,
    currency: paid.currency,
  });
  // Once per exception: where the provider refunds by API, the money goes back at once.
  if (!exception || paid.currency !== now.currency) return;
  const refund = await refundLateCharge(deps, now, paid.amountMinor);
  if (refund && (refund.status === 'succeeded' || refund.status === 'initiated')) {
    await markRefunded(deps.pool, exception.id);
  }
}
