import type { AppRow } from '../../db/apps.js';
import { findPayment } from '../../db/payments.js';
import { apiError, notFoundPayment } from '../../domain/errors.js';
import { isPaymentId } from '../../domain/ids.js';
import { parseJsonObject } from '../../domain/paymentRequest.js';
import { CREATE_REFUND, missingRequired, notStringMessage } from '../../domain/schemas.js';
import { idempotencyScope, runIdempotent, type StoredResponse } from '../idempotency.js';
import { refundPayment, type RefundServiceDeps } from './refundPayment.js';
import { bad, parseRefundFields } from './request.js';

/** POST /v1/refunds: tenant-scoped, idempotent (docs/api.md#idempotency), one refund per payment (docs/api.md#create-a-refund). */
export async function createRefund(
  deps: RefundServiceDeps,
  app: AppRow,
  rawBody: Buffer,
  idempotencyKey: string | undefined,
): Promise<StoredResponse> {
  const scope = idempotencyScope(app.id, 'POST /v1/refunds', idempotencyKey);
  return runIdempotent(deps.pool, deps.durablePool, scope, rawBody, async (claim) => {
    const body = parseJsonObject(rawBody);
    const missing = missingRequired(CREATE_REFUND, body);
    if (missing.length > 0) throw apiError('missing_fields', missing.join(', '));
    const paymentId = body.payment_id;
    if (typeof paymentId !== 'string') throw bad(notStringMessage('payment_id'));
    const req = parseRefundFields(body);
    const payment = isPaymentId(paymentId) ? await findPayment(deps.pool, paymentId) : null;
    if (!payment || payment.app_id !== app.id) throw notFoundPayment();
    return refundPayment(deps, payment, req, claim);
  });
}
