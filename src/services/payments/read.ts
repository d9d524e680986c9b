import type { SettledPaymentCache } from '../../cache.js';
import type { AppRow } from '../../db/apps.js';
import type { PaymentReadBatcher, PaymentRow } from '../../db/payments.js';
import { notFoundPayment } from '../../domain/errors.js';
import { isPaymentId } from '../../domain/ids.js';

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

/** The shape of GET /v1/payments/{id} (docs/api.md#read-a-payment). */
export function toPaymentView(p: PaymentRow): PaymentView {
  return {
    payment_id: p.id,
    status: p.status,
    amount_minor: p.amount_minor,
    currency: p.currency,
    method: p.method,
    provider: p.provider,
    provider_ref: p.provider_ref ?? '',
    metadata: p.metadata,
    invoice_number: p.invoice_number ?? '',
    last_error: p.last_error,
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
  };
}

/** GET /v1/payments/{id} as a JSON body; settled payments come from the cache (see cache.ts). */
export async function getPaymentBody(
  reads: PaymentReadBatcher,
  cache: SettledPaymentCache,
  app: AppRow,
  paymentId: string,
): Promise<string> {
  if (!isPaymentId(paymentId)) throw notFoundPayment();
  const cached = cache.get(paymentId, app.id);
  if (cached !== undefined) return cached;
  const row = await reads.get(paymentId);
  if (!row || row.app_id !== app.id) throw notFoundPayment();
  const body = JSON.stringify(toPaymentView(row));
  if (row.status !== 'initiated' && row.provider_ref !== null) cache.set(row.id, row.app_id, body);
  return body;
}
