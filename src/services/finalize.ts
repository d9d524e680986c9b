import { newDeliveryId, newEventId } from '../domain/ids.js';
import { markRefunded } from '../db/exceptions.js';
import { finalizeInitiated, findPayment, type PaymentRow } from '../db/payments.js';
import type { Queryable } from '../db/pool.js';
import { paymentEventBody, paymentEventType } from '../domain/events.js';
import type { TerminalStatus } from '../domain/types.js';
import type { InboundAction, InboundEvent } from '../providers/types.js';
import { lateChargeKind, recordException } from './exceptions.js';
import {
  ALREADY_FINALIZED,
  applied,
  type Applied,
  type ProviderEventDeps,
} from './providerEvent.js';
import { refundLateCharge } from './refunds.js';
import { storableText } from '../domain/storableText.js';

export interface FinalizeInput {
  outcome: TerminalStatus;
  /** Verbatim provider error text; kept as last_error for failed payments. */
  errorText?: string;
  /** Provider enrichment merged into metadata (docs/api.md#metadata-enrichment). */
  enrichment?: Record<string, unknown>;
  subscriptionId?: string;
  /**
   * The reconciler failing a payment the provider has no registration for: only while it is
   * still unregistered and still under the reconciler's claim (deadline set to this value).
   */
  onlyIfUnregisteredUntil?: Date;
}

/**
 * The one way a payment leaves initiated (docs/api.md#payment-states): a conditional update, so of
 * any number of concurrent events exactly one moves it, with the outbound event enqueued
 * in the same statement (db/payments.ts finalizeInitiated). `payment` is the row as read before (an initiated payment's
 * fields do not change until this statement). Returns the finalized row, or null when the
 * payment was already terminal.
 */
export async function finalizePayment(
  db: Queryable,
  payment: PaymentRow,
  input: FinalizeInput,
): Promise<PaymentRow | null> {
  const at = new Date();
  // The outbound event carries last_error as stored.
  const errorText = storableText(input.errorText ?? '');
  const finalized: PaymentRow = {
    ...payment,
    status: input.outcome,
    last_error: input.outcome === 'failed' ? errorText : payment.last_error,
    metadata: { ...payment.metadata, ...input.enrichment },
    finalized_at: at,
    updated_at: at,
  };
  const eventType = paymentEventType(input.outcome);
  const done = await finalizeInitiated(db, {
    paymentId: payment.id,
    outcome: input.outcome,
    errorText,
    metadata: finalized.metadata,
    subscriptionId: input.subscriptionId ?? null,
    at,
    eventId: newEventId(),
    eventType,
    eventBody: paymentEventBody(eventType, finalized, at),
    deliveryId: newDeliveryId(),
    onlyIfUnregisteredUntil: input.onlyIfUnregisteredUntil ?? null,
  });
  return done ? finalized : null;
}

/**
 * A provider event that reports the payment's outcome: finalizes it, or, for a charge on a
 * payment that is already canceled or failed, puts the money on record (lateCharge).
 */
export async function applyPaymentOutcome(
  deps: ProviderEventDeps,
  payment: PaymentRow,
  ev: InboundEvent,
  action: Extract<InboundAction, { kind: 'payment' }>,
): Promise<Applied> {
  const done = await finalizePayment(deps.pool, payment, {
    outcome: action.outcome,
    errorText: action.errorText,
    enrichment: action.enrichment,
    subscriptionId: ev.subscriptionId,
  });
  if (done) return applied('changed', `finalized_${action.outcome}`);
  if (action.outcome === 'succeeded') await lateCharge(deps, payment, ev);
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
): Promise<void> {
  const now = await findPayment(deps.pool, payment.id);
  const kind = now ? lateChargeKind(now) : null;
  if (!now || !kind) return;
  const exception = await recordException(deps.pool, deps.log, now, {
    kind,
    providerRef: now.provider_ref ?? ev.providerRef ?? '',
    amountMinor: now.amount_minor,
    currency: now.currency,
  });
  // Once per exception: where the provider refunds by API, the money goes back at once.
  if (!exception) return;
  const refund = await refundLateCharge(deps, now);
  if (refund && (refund.status === 'succeeded' || refund.status === 'initiated')) {
    await markRefunded(deps.pool, exception.id);
  }
}
