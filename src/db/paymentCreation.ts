/**
 * The two statements of POST /v1/payments on its common path (issue 28): a fresh
 * Idempotency-Key claimed together with the payment it creates, then the provider's answer
 * stored together with the key's completion. Two transactions per payment instead of four;
 * the second commits synchronously and so is the request's durability barrier (ADR 0002).
 */
import type { IdempotencyScope } from './idempotency.js';
import {
  creationValues,
  CUSTOMER_UPSERT_ON_CONFLICT,
  PAYMENT_INSERT_FROM_CUSTOMER,
  type CreationContext,
  type NewPayment,
  type PaymentRow,
  STILL_INITIATED,
} from './payments.js';
import type { Queryable } from './pool.js';

export interface FreshClaim {
  scope: IdempotencyScope;
  requestHash: string;
  leaseMs: number;
}

/**
 * A payment just created on the common path: what the request gave, plus the one column the
 * database chose (the invoice number). The rest of the row is known without reading it back
 * (initiated, no provider answer yet), so the statement returns only that column: every
 * returned column costs PostgreSQL its output and the gateway its parsing (issue 28).
 */
export type CreatedPayment = NewPayment & Pick<PaymentRow, 'invoice_number'>;

/**
 * Claims a key nobody holds and creates the initiated payment it points at, in one
 * statement: the claim (as idempotency.tryInsertClaim writes it, with its resource already
 * set), the customer upsert and the payment (as payments.createPaymentRecord writes them).
 * null when the key already exists: nothing is written, and the caller takes the general
 * path (replay, wait, conflict or take-over).
 */
export async function createPaymentWithFreshClaim(
  db: Queryable,
  p: NewPayment,
  ctx: Pick<CreationContext, 'invoicePrefix' | 'registrationDeadline'>,
  claim: FreshClaim,
): Promise<CreatedPayment | null> {
  const res = await db.query<Pick<PaymentRow, 'invoice_number'>>({
    name: 'payments_create_claimed',
    text: `WITH claim AS (
         INSERT INTO idempotency_keys (app_id, endpoint, key, request_hash, state, locked_until,
           resource_id)
         VALUES ($13, $14, $15, $17, 'processing', now() + $18 * interval '1 millisecond', $1)
         ON CONFLICT DO NOTHING
         RETURNING 1),
       customer AS (
         INSERT INTO customers (app_id, external_user_id, email, payments_count)
         SELECT $2, $8, $9, 1 FROM claim
         ${CUSTOMER_UPSERT_ON_CONFLICT}
         RETURNING 1)
       ${PAYMENT_INSERT_FROM_CUSTOMER}
       RETURNING invoice_number`,
    values: [
      ...creationValues(p, { ...ctx, claim: claim.scope }),
      claim.requestHash,
      claim.leaseMs,
    ],
  });
  const row = res.rows[0];
  return row ? { ...p, invoice_number: row.invoice_number } : null;
}

export interface Registration {
  providerRef: string;
  checkoutUrl: string;
  qrString: string | null;
  qrImageUrl: string | null;
  providerDeadline: Date | null;
}

/**
 * Stores the provider's answer on a payment that is still initiated and, in the same
 * statement, completes the request's key with the answer the caller built from it
 * (`response`: what the first reply and every replay send). false when nothing was written:
 * the payment moved on (finalized meanwhile) or holds another reference; the caller then
 * stores the registration the general way, which answers from the stored row.
 */
export async function storeInitiatedRegistration(
  db: Queryable,
  id: string,
  reg: Registration,
  completion: { scope: IdempotencyScope; status: number; body: string } | null,
): Promise<boolean> {
  const res = await db.query({
    name: 'payments_store_registration_complete',
    text: `WITH upd AS (
         UPDATE payments SET provider_ref = $2, checkout_url = $3, qr_string = $4, qr_image_url = $5,
           provider_deadline = $6, updated_at = now()
         WHERE id = $1 AND ${STILL_INITIATED} AND (provider_ref IS NULL OR provider_ref = $2)
         RETURNING id),
       done AS (
         UPDATE idempotency_keys k SET state = 'completed', locked_until = NULL,
           response_status = $10, response_body = $11
         FROM upd
         WHERE k.app_id = $7 AND k.endpoint = $8 AND k.key = $9)
       SELECT id FROM upd`,
    values: [
      id,
      reg.providerRef,
      reg.checkoutUrl,
      reg.qrString,
      reg.qrImageUrl,
      reg.providerDeadline,
      completion?.scope.appId ?? null,
      completion?.scope.endpoint ?? null,
      completion?.scope.key ?? null,
      completion?.status ?? null,
      completion?.body ?? null,
    ],
  });
  return res.rowCount === 1;
}
