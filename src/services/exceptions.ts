import * as exceptionsDb from '../db/exceptions.js';
import type { ExceptionKind, ExceptionRow } from '../db/exceptions.js';
import type { PaymentRow } from '../db/payments.js';
import { withTransaction, type Pool, type Queryable } from '../db/pool.js';
import { parseListLimit } from '../domain/adminQuery.js';
import { apiError } from '../domain/errors.js';
import { RESOLVE_EXCEPTION } from '../domain/schemas.js';
import { isPaymentId, newId } from '../domain/ids.js';
import { paymentExceptions } from '../metrics.js';
import type { Audit } from './audit.js';

/** What a provider reported that the payment's state cannot show (docs/api.md#exceptions). */
export interface DetectedCharge {
  kind: ExceptionKind;
  providerRef: string;
  amountMinor: number;
  currency: string;
}

/** The kind of a charge the provider reports on a payment that will never be succeeded. */
export function lateChargeKind(payment: PaymentRow): ExceptionKind | null {
  if (payment.status === 'canceled') return 'paid_after_cancel';
  if (payment.status === 'failed') return 'paid_after_failure';
  return null;
}

/**
 * Records the exception once (a redelivered event finds it on record), logs it at error
 * level and counts it. Returns the new row, or null when it was already recorded.
 */
export async function recordException(
  db: Queryable,
  log: { error(obj: object, msg: string): void },
  payment: PaymentRow,
  charge: DetectedCharge,
): Promise<ExceptionRow | null> {
  const row = await exceptionsDb.insertException(db, {
    id: newId(),
    paymentId: payment.id,
    appId: payment.app_id,
    kind: charge.kind,
    provider: payment.provider,
    providerRef: charge.providerRef,
    amountMinor: charge.amountMinor,
    currency: charge.currency,
  });
  if (row) reportException(log, row);
  return row;
}

/** Every new exception is logged at error level and counted (docs/api.md#exceptions). */
export function reportException(
  log: { error(obj: object, msg: string): void },
  row: ExceptionRow,
): void {
  paymentExceptions.inc({ kind: row.kind });
  log.error(
    {
      exception_id: row.id,
      payment_id: row.payment_id,
      kind: row.kind,
      provider: row.provider,
      provider_ref: row.provider_ref,
      amount_minor: row.amount_minor,
      currency: row.currency,
    },
    'provider moved money the payment state cannot show: operator action needed',
  );
}

export function toExceptionView(e: ExceptionRow) {
  return {
    id: e.id,
    payment_id: e.payment_id,
    app_id: e.app_id,
    kind: e.kind,
    provider: e.provider,
    provider_ref: e.provider_ref,
    amount_minor: e.amount_minor,
    currency: e.currency,
    detected_at: e.detected_at.toISOString(),
    resolution: e.resolution,
    note: e.note,
    resolved_at: e.resolved_at?.toISOString() ?? null,
  };
}

/** GET /admin/exceptions: newest first, limit/before paging like the other admin lists. */
export async function listExceptions(
  db: Pool,
  q: { limit?: string; before?: string },
): Promise<{ exceptions: ReturnType<typeof toExceptionView>[] }> {
  const limit = parseListLimit(q.limit);
  const before = q.before === undefined || q.before === '' ? null : q.before;
  if (before !== null && !isPaymentId(before)) throw badCursor();
  const rows = await exceptionsDb.listExceptions(db, limit, before);
  if (!rows) throw badCursor();
  return { exceptions: rows.map(toExceptionView) };
}

const badCursor = () => apiError('invalid', 'before must be an exception id from a previous page');

/**
 * POST /admin/exceptions/{id}/resolve with { "note": "..." }: manual -> resolved, once; the
 * audit entry (on the payment, so its page shows who resolved it) in the same transaction.
 */
export async function resolveException(db: Pool, id: string, body: unknown, audit: Audit) {
  const note = (body as { note?: unknown } | null)?.note;
  const { messages, schema } = RESOLVE_EXCEPTION;
  if (typeof note !== 'string' || note.trim() === '') throw apiError('invalid', messages.note);
  if (note.length > schema.properties.note.maxLength)
    throw apiError('invalid', messages.note_length);
  const found = isPaymentId(id) ? await exceptionsDb.findException(db, id) : null;
  if (!found) throw apiError('exception_not_found');
  const resolved = await withTransaction(db, async (tx) => {
    const row = await exceptionsDb.resolveException(tx, id, note);
    if (row) {
      // A reconciliation item may name no payment (a charge the gateway never heard of).
      await audit(tx, {
        targetType: row.payment_id ? 'payment' : 'exception',
        targetId: row.payment_id ?? row.id,
        outcome: 'resolved',
        details: { exception_id: row.id, kind: row.kind, note },
      });
    }
    return row;
  });
  if (!resolved) throw apiError('exception_already_resolved', found.resolution);
  return toExceptionView(resolved);
}
