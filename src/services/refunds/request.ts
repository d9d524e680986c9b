import { apiError } from '../../domain/errors.js';
import { isIntegerIn, optionalString } from '../../domain/paymentRequest.js';
import { CREATE_REFUND } from '../../domain/schemas.js';

export interface RefundRequest {
  amountMinor: number | null;
  reason: string;
}

export const bad = (reason: string) => apiError('invalid', reason);

/** The rules of the CREATE_REFUND and ADMIN_REFUND schemas (src/domain/schemas.ts). */
export function parseRefundFields(body: Record<string, unknown>): RefundRequest {
  const amount = body.amount_minor;
  if (
    amount !== undefined &&
    amount !== null &&
    !isIntegerIn(CREATE_REFUND.schema.properties.amount_minor, amount)
  ) {
    throw bad(CREATE_REFUND.messages.amount_minor);
  }
  const reason = optionalString(CREATE_REFUND, body, 'reason') ?? '';
  return { amountMinor: (amount as number | null | undefined) ?? null, reason };
}
