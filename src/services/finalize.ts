import type { PaymentRow } from '../db/payments.js';
import { PAYMENT_COLUMNS } from '../db/payments.js';
import { enqueueEvent } from '../db/outbox.js';
import type { Queryable } from '../db/pool.js';
import { paymentEventBody, paymentEventType } from '../domain/events.js';
import type { TerminalStatus } from '../domain/types.js';

export interface FinalizeInput {
  outcome: TerminalStatus;
  /** Verbatim provider error text; kept as last_error for failed payments. */
  errorText?: string;
  /** Provider enrichment merged into metadata (spec 6.3). */
  enrichment?: Record<string, unknown>;
  subscriptionId?: string;
}

/**
 * The one way a payment leaves initiated (spec 3.1 rules 1-2): a conditional UPDATE, so of
 * any number of concurrent events exactly one moves it, and the outbound event is enqueued
 * in the same transaction. Returns null when the payment was already terminal.
 */
export async function finalizePayment(
  tx: Queryable,
  paymentId: string,
  input: FinalizeInput,
): Promise<PaymentRow | null> {
  const res = await tx.query<PaymentRow>({
    name: 'payments_finalize',
    text: `UPDATE payments SET status = $2,
         last_error = CASE WHEN $2 = 'failed' THEN COALESCE($3, '') ELSE last_error END,
         metadata = metadata || COALESCE($4::jsonb, '{}'::jsonb),
         subscription_id = COALESCE($5, subscription_id),
         finalized_at = now(), updated_at = now()
       WHERE id = $1 AND status = 'initiated'
       RETURNING ${PAYMENT_COLUMNS}`,
    values: [
      paymentId,
      input.outcome,
      input.errorText ?? null,
      input.enrichment ? JSON.stringify(input.enrichment) : null,
      input.subscriptionId ?? null,
    ],
  });
  const payment = res.rows[0];
  if (!payment) return null;
  const eventType = paymentEventType(input.outcome);
  await enqueueEvent(tx, {
    appId: payment.app_id,
    paymentId: payment.id,
    eventType,
    body: paymentEventBody(eventType, payment, payment.updated_at),
  });
  return payment;
}
