/**
 * The two statements of POST /v1/payments on its common path (issue 28): a fresh
 * Idempotency-Key claimed together with the payment it creates, then the provider's answer
 * stored together with the key's completion. Two transactions per payment instead of four;
 * the second commits synchronously and so is the request's durability barrier (ADR 0002).
 * Both are written for many requests at once: under load the requests that reach a
 * statement together share it (creationBatchers).
 */
import type { IdempotencyScope } from './idempotency.js';
import {
  CUSTOMER_UPSERT_ON_CONFLICT,
  type CreationContext,
  type NewPayment,
  type PaymentRow,
  STILL_INITIATED,
} from './payments.js';
import type { Queryable } from './pool.js';
import { assertDistinct, StatementBatcher } from './statementBatcher.js';

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

/** One fresh create: the payment, its context and the key claimed for it (null: no key). */
export interface FreshCreate {
  payment: NewPayment;
  ctx: Pick<CreationContext, 'invoicePrefix' | 'registrationDeadline'>;
  claim: FreshClaim | null;
}

/**
 * Claims keys nobody holds and creates the initiated payments they point at, in one
 * statement for any number of requests: the claims (as idempotency.tryInsertClaim writes
 * them, with their resource already set), the customer upserts and the payments (as
 * payments.createPaymentRecord writes them). Per request, in order: its payment, or null
 * when its key already exists (nothing is written for it, and the caller takes the general
 * path: replay, wait, conflict or take-over). A request without a key is always created.
 * Two requests of one batch must not share a key (StatementBatcher keeps them apart); two payments of one customer in one batch count
 * twice and leave the last non-null email, as one statement each would.
 */
export async function createPaymentsWithFreshClaims(
  db: Queryable,
  items: FreshCreate[],
): Promise<(CreatedPayment | null)[]> {
  const col = <T>(f: (c: FreshCreate) => T): T[] => items.map(f);
  assertDistinct(col((c) => c.payment.id));
  const res = await db.query<Pick<PaymentRow, 'id' | 'invoice_number'>>({
    name: 'payments_create_claimed_batch',
    text: `WITH input AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[],
           $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[],
           $13::text[], $14::text[], $15::text[], $16::timestamptz[], $17::text[], $18::float8[])
           WITH ORDINALITY AS i(id, app_id, mode, amount_minor, currency, method, provider,
             external_user_id, email, return_url, metadata, invoice_prefix, key_app_id,
             key_endpoint, key, registration_deadline, request_hash, lease_ms, ord)),
       claim AS (
         INSERT INTO idempotency_keys (app_id, endpoint, key, request_hash, state, locked_until,
           resource_id)
         SELECT key_app_id, key_endpoint, key, request_hash, 'processing',
           now() + lease_ms * interval '1 millisecond', id
         -- In key order, as the customers below: two batches lock what they share in the
         -- same order, so they can wait for one another but never deadlock.
         FROM input WHERE key IS NOT NULL ORDER BY key_app_id, key_endpoint, key
         ON CONFLICT DO NOTHING
         RETURNING resource_id),
       claimed AS (
         SELECT input.* FROM input
         WHERE key IS NULL OR id IN (SELECT resource_id FROM claim)),
       customer AS (
         INSERT INTO customers (app_id, external_user_id, email, payments_count)
         SELECT app_id, external_user_id,
           (array_agg(email ORDER BY ord DESC) FILTER (WHERE email IS NOT NULL))[1], count(*)
         FROM claimed GROUP BY app_id, external_user_id ORDER BY app_id, external_user_id
         ${CUSTOMER_UPSERT_ON_CONFLICT}),
       numbered AS (
         -- nextval in the select list: once per row that has a prefix (a subquery over
         -- nextval would be evaluated once for the whole batch).
         SELECT claimed.*, CASE WHEN invoice_prefix IS NULL THEN NULL
                                ELSE nextval('invoice_number_seq') END AS n
         FROM claimed)
       INSERT INTO payments (id, app_id, mode, amount_minor, currency, method, provider,
           external_user_id, email, return_url, metadata, provider_deadline, invoice_number)
         SELECT id, app_id, mode, amount_minor, currency, method, provider, external_user_id,
           email, return_url, metadata::jsonb, registration_deadline,
           -- lpad alone would truncate numbers past 999999; they must grow instead (docs/api.md#invoice-numbers).
           invoice_prefix || '-' || lpad(n::text, greatest(6, length(n::text)), '0')
         FROM numbered ORDER BY ord
       RETURNING id, invoice_number`,
    values: [
      col((c) => c.payment.id),
      col((c) => c.payment.app_id),
      col((c) => c.payment.mode),
      col((c) => c.payment.amount_minor),
      col((c) => c.payment.currency),
      col((c) => c.payment.method),
      col((c) => c.payment.provider),
      col((c) => c.payment.external_user_id),
      col((c) => c.payment.email),
      col((c) => c.payment.return_url),
      col((c) => JSON.stringify(c.payment.metadata)),
      col((c) => c.ctx.invoicePrefix),
      col((c) => c.claim?.scope.appId ?? null),
      col((c) => c.claim?.scope.endpoint ?? null),
      col((c) => c.claim?.scope.key ?? null),
      col((c) => c.ctx.registrationDeadline),
      col((c) => c.claim?.requestHash ?? null),
      col((c) => c.claim?.leaseMs ?? null),
    ],
  });
  const invoices = new Map(res.rows.map((r) => [r.id, r.invoice_number]));
  return items.map((c) =>
    invoices.has(c.payment.id)
      ? { ...c.payment, invoice_number: invoices.get(c.payment.id) ?? null }
      : null,
  );
}

/** createPaymentsWithFreshClaims for one request. */
export async function createPaymentWithFreshClaim(
  db: Queryable,
  p: NewPayment,
  ctx: Pick<CreationContext, 'invoicePrefix' | 'registrationDeadline'>,
  claim: FreshClaim | null,
): Promise<CreatedPayment | null> {
  const [created] = await createPaymentsWithFreshClaims(db, [{ payment: p, ctx, claim }]);
  return created ?? null;
}

export interface Registration {
  providerRef: string;
  checkoutUrl: string;
  qrString: string | null;
  qrImageUrl: string | null;
  providerDeadline: Date | null;
}

export interface RegistrationStore {
  id: string;
  reg: Registration;
  completion: { scope: IdempotencyScope; status: number; body: string } | null;
}

/**
 * Stores the provider's answers on payments that are still initiated and, in the same
 * statement, completes each request's key with the answer the caller built from it
 * (`response`: what the first reply and every replay send), for any number of requests.
 * Per request, in order: false when nothing was written for it (the payment moved on,
 * finalized meanwhile, or holds another reference); the caller then stores the registration
 * the general way, which answers from the stored row. The payments are found by primary key
 * whatever the statistics (STILL_INITIATED, and `id = ANY` for the index).
 */
export async function storeInitiatedRegistrations(
  db: Queryable,
  items: RegistrationStore[],
): Promise<boolean[]> {
  const col = <T>(f: (c: RegistrationStore) => T): T[] => items.map(f);
  assertDistinct(col((c) => c.id));
  const res = await db.query<{ id: string }>({
    name: 'payments_store_registration_complete_batch',
    text: `WITH input AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[],
           $6::timestamptz[], $7::text[], $8::text[], $9::text[], $10::int[], $11::text[])
           AS i(id, provider_ref, checkout_url, qr_string, qr_image_url, provider_deadline,
             key_app_id, key_endpoint, key, response_status, response_body)),
       locked AS MATERIALIZED (
         -- In id order before any is updated, as the finalizations: no deadlock between them.
         SELECT id FROM payments WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE),
       upd AS (
         UPDATE payments p SET provider_ref = i.provider_ref, checkout_url = i.checkout_url,
           qr_string = i.qr_string, qr_image_url = i.qr_image_url,
           provider_deadline = i.provider_deadline, updated_at = now()
         FROM input i JOIN locked l ON l.id = i.id
         WHERE p.id = ANY($1::text[]) AND p.id = i.id AND p.${STILL_INITIATED}
           AND (p.provider_ref IS NULL OR p.provider_ref = i.provider_ref)
         RETURNING p.id),
       done AS (
         UPDATE idempotency_keys k SET state = 'completed', locked_until = NULL,
           response_status = i.response_status, response_body = i.response_body
         FROM input i JOIN upd ON upd.id = i.id
         WHERE k.app_id = i.key_app_id AND k.endpoint = i.key_endpoint AND k.key = i.key)
       SELECT id FROM upd`,
    values: [
      col((c) => c.id),
      col((c) => c.reg.providerRef),
      col((c) => c.reg.checkoutUrl),
      col((c) => c.reg.qrString),
      col((c) => c.reg.qrImageUrl),
      col((c) => c.reg.providerDeadline),
      col((c) => c.completion?.scope.appId ?? null),
      col((c) => c.completion?.scope.endpoint ?? null),
      col((c) => c.completion?.scope.key ?? null),
      col((c) => c.completion?.status ?? null),
      col((c) => c.completion?.body ?? null),
    ],
  });
  const stored = new Set(res.rows.map((r) => r.id));
  return items.map((c) => stored.has(c.id));
}

/** storeInitiatedRegistrations for one request. */
export async function storeInitiatedRegistration(
  db: Queryable,
  id: string,
  reg: Registration,
  completion: RegistrationStore['completion'],
): Promise<boolean> {
  const [stored] = await storeInitiatedRegistrations(db, [{ id, reg, completion }]);
  return stored === true;
}

/**
 * The two statements of the common path, each run for all the requests that reach it
 * together (db/statementBatcher.ts): creates on the main pool (an asynchronous commit), the
 * registrations on the durable one (their commit is the requests' durability barrier, one
 * WAL flush for the batch).
 */
export function creationBatchers(pool: Queryable, durablePool: Queryable) {
  return {
    creates: new StatementBatcher<FreshCreate, CreatedPayment | null>({
      run: (items) => createPaymentsWithFreshClaims(pool, items),
      // Without a key, a request conflicts with no other.
      key: ({ claim, payment }) =>
        claim ? `${claim.scope.appId}\n${claim.scope.endpoint}\n${claim.scope.key}` : payment.id,
    }),
    registrations: new StatementBatcher<RegistrationStore, boolean>({
      run: (items) => storeInitiatedRegistrations(durablePool, items),
      key: (item) => item.id,
    }),
  };
}

export type CreationBatchers = ReturnType<typeof creationBatchers>;
