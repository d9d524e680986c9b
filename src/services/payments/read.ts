import type { SettledPaymentCache } from '../../cache.js';
import type { AppRow } from '../../db/apps.js';
import type { PaymentReadBatcher, PaymentReadRow } from '../../db/payments.js';
import { notFoundPayment } from '../../domain/errors.js';
import { isPaymentId } from '../../domain/ids.js';
import { serialize } from '../../domain/serialize.js';

/**
 * The wire shape of GET /v1/payments/{id} as a reader sees it (the tests' type). The answer is
 * written from the row by the Payment response schema (src/domain/serialize.ts); this type
 * does not shape it.
 */
export interface PaymentView {
  payment_id: string;
  status: string;
  amount_minor: number;
  currency: string;
  method: string;
  provider: string;
  provider_ref: string;
  metadata: Record<string, unknown>;
  invoice_number: string;
  last_error: string;
  created_at: string;
  updated_at: string;
}

/** GET /v1/payments/{id} and the admin cancel and sync answers (docs/api.md#read-a-payment). */
export function paymentBody(p: PaymentReadRow): string {
  return serialize('Payment', p);
}

/**
 * GET /v1/payments/{id} as a JSON body: a settled payment's from the cache (see cache.ts) at
 * once, without a promise; an initiated or unknown one read from the database
 * (PaymentReadBatcher). A malformed id throws its 404 at once, an unknown id or a payment of
 * another app rejects with it.
 */
export function getPaymentBody(
  reads: PaymentReadBatcher,
  cache: SettledPaymentCache,
  app: AppRow,
  paymentId: string,
): string | Promise<string> {
  if (!isPaymentId(paymentId)) throw notFoundPayment();
  const cached = cache.get(paymentId, app.id);
  if (cached !== undefined) return cached;
  return reads.get(paymentId).then((row) => {
    if (!row || row.app_id !== app.id) throw notFoundPayment();
    const body = paymentBody(row);
    if (row.status !== 'initiated' && row.provider_ref !== null)
      cache.set(row.id, row.app_id, body);
    return body;
  });
}
