import { findPayment } from '../../db/payments.js';
import { notFoundPayment } from '../../domain/errors.js';
import { isPaymentId } from '../../domain/ids.js';
import { parseJsonObject } from '../../domain/paymentRequest.js';
import { idempotencyScope, runIdempotent, type StoredResponse } from '../idempotency.js';
import { refundPayment, type RefundServiceDeps } from './refundPayment.js';
import { parseRefundFields } from './request.js';

/** POST /admin/payments/{id}/refund: the same rules without tenant scope (docs/api.md#admin-refund). */
export async function adminRefund(
  deps: RefundServiceDeps,
  paymentId: string,
  rawBody: Buffer,
  idempotencyKey: string | undefined,
): Promise<StoredResponse> {
  // The payment is part of the endpoint: the operator's one key on another payment is a new
  // request, never a replay of this payment's refund (the operator has no app to scope by).
  const scope = idempotencyScope(
    'admin',
    `POST /admin/payments/${paymentId}/refund`,
    idempotencyKey,
  );
  return runIdempotent(deps.pool, deps.durablePool, scope, rawBody, async (claim) => {
    const req = parseRefundFields(rawBody.length === 0 ? {} : parseJsonObject(rawBody));
    const payment = isPaymentId(paymentId) ? await findPayment(deps.pool, paymentId) : null;
    if (!payment) throw notFoundPayment();
    return refundPayment(deps, payment, req, claim);
  });
}
