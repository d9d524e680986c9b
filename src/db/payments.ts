import type { Mode, PaymentStatus } from '../domain/types.js';
import type { Queryable } from './pool.js';
import { storableText } from '../domain/storableText.js';
import { FlushGate } from './flushGate.js';

/**
 * "Still initiated", for the statements that change one payment named by id (finalization,
 * registration). Written so that no partial index of initiated (or unsucceeded) payments can
 * serve it: `status = 'initiated'` lets the planner read such an index from end to end with a
 * filter on id, cheaper than the primary key while the statistics say almost no payment is
 * initiated, and a walk over all of them once many are (issue 28; the plan guard re-plans on
 * growth only, and a custom plan is made from the same stale statistics). The concatenation
 * hides the comparison from the index predicates' proof; the row is found by its primary key
 * whatever the statistics say (test/integration/storage/plans-initiated.happy.test.ts).
 */
export const STILL_INITIATED = `status || '' = 'initiated'`;

export interface PaymentRow {
  id: string;
  app_id: string;
  mode: Mode;
  status: PaymentStatus;
  amount_minor: number;
  currency: string;
  method: string;
  provider: string;
  provider_ref: string | null;
  external_user_id: string;
  email: string | null;
  return_url: string;
  metadata: Record<string, unknown>;
  invoice_number: string | null;
  last_error: string;
  checkout_url: string | null;
  qr_string: string | null;
  qr_image_url: string | null;
  provider_deadline: Date | null;
  finalized_at: Date | null;
  /** card_psp: the subscription the payment belongs to; renewals link to the first charge. */
  subscription_id: string | null;
  parent_payment_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export const PAYMENT_COLUMNS = `id, app_id, mode, status, amount_minor, currency, method, provider,
  provider_ref, external_user_id, email, return_url, metadata, invoice_number, last_error,
  checkout_url, qr_string, qr_image_url, provider_deadline, finalized_at, subscription_id,
  parent_payment_id, created_at, updated_at`;

export type NewPayment = Pick<
  PaymentRow,
  | 'id'
  | 'app_id'
  | 'mode'
  | 'amount_minor'
  | 'currency'
  | 'method'
  | 'provider'
  | 'external_user_id'
  | 'email'
  | 'return_url'
  | 'metadata'
>;

export interface CreationContext {
  invoicePrefix: string | null;
  /** The Idempotency-Key claim that should point at the new payment, if any. */
  claim: { appId: string; endpoint: string; key: string } | null;
  /**
   * When the reconciler may take the payment for an unfinished registration: a process that
   * dies between this insert and storing the provider's answer leaves it due, never lost.
   */
  registrationDeadline: Date;
}

/**
 * The customer upsert's conflict rule, here and in the batched create (paymentCreation.ts):
 * the row to insert carries how many payments it adds.
 */
export const CUSTOMER_UPSERT_ON_CONFLICT = `ON CONFLICT (app_id, external_user_id) DO UPDATE SET
           email = COALESCE(EXCLUDED.email, customers.email),
           payments_count = customers.payments_count + EXCLUDED.payments_count,
           updated_at = now()`;

/**
 * The payment insert, selected from the `customer` CTE, with its parameters as
 * creationValues() orders them (paymentCreation.ts writes the same for a batch).
 */
export const PAYMENT_INSERT_FROM_CUSTOMER = `INSERT INTO payments (id, app_id, mode, amount_minor, currency, method, provider,
           external_user_id, email, return_url, metadata, provider_deadline, invoice_number)
         SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $16,
           -- lpad alone would truncate numbers past 999999; they must grow instead (docs/api.md#invoice-numbers).
           CASE WHEN $12::text IS NULL THEN NULL
                ELSE (SELECT $12::text || '-' || lpad(n::text, greatest(6, length(n::text)), '0')
                      FROM nextval('invoice_number_seq') AS n) END
         FROM customer`;

/** $1..$16 of the creation statement: the payment, its invoice prefix, the key, the deadline. */
export function creationValues(
  p: NewPayment,
  ctx: Pick<CreationContext, 'invoicePrefix' | 'claim' | 'registrationDeadline'>,
): unknown[] {
  return [
    p.id,
    p.app_id,
    p.mode,
    p.amount_minor,
    p.currency,
    p.method,
    p.provider,
    p.external_user_id,
    p.email,
    p.return_url,
    JSON.stringify(p.metadata),
    ctx.invoicePrefix,
    ctx.claim?.appId ?? null,
    ctx.claim?.endpoint ?? null,
    ctx.claim?.key ?? null,
    ctx.registrationDeadline,
  ];
}

/**
 * Creates an initiated payment in one statement (one round trip, atomic): the customer
 * upsert (docs/api.md#customers), the payment with its invoice number from the one global sequence, and
 * the idempotency key's pointer to it, so a crash after the commit leaves the key pointing
 * at this payment. A failure names its table in err.table (customers or payments).
 */
export async function createPaymentRecord(
  db: Queryable,
  p: NewPayment,
  ctx: CreationContext,
): Promise<PaymentRow> {
  const res = await db.query<PaymentRow>({
    name: 'payments_create',
    text: `WITH customer AS (
         INSERT INTO customers (app_id, external_user_id, email, payments_count)
         VALUES ($2, $8, $9, 1)
         ${CUSTOMER_UPSERT_ON_CONFLICT}
         RETURNING 1),
       payment AS (
         ${PAYMENT_INSERT_FROM_CUSTOMER}
         RETURNING ${PAYMENT_COLUMNS}),
       claim AS (
         UPDATE idempotency_keys SET resource_id = $1
         WHERE app_id = $13 AND endpoint = $14 AND key = $15
         RETURNING 1)
       SELECT payment.* FROM payment`,
    values: creationValues(p, ctx),
  });
  return res.rows[0] as PaymentRow;
}

export async function findPayment(db: Queryable, id: string): Promise<PaymentRow | null> {
  const res = await db.query<PaymentRow>({
    name: 'payments_by_id',
    text: `SELECT ${PAYMENT_COLUMNS} FROM payments WHERE id = $1`,
    values: [id],
  });
  return res.rows[0] ?? null;
}

/**
 * The payment, its row locked for the caller's transaction: a dispute being recorded and a
 * refund being created for the same payment take turns, so each sees the other.
 *
 * FOR NO KEY UPDATE, not FOR UPDATE: the holder never changes the payment's key, and FOR
 * UPDATE would also block the KEY SHARE lock that every foreign key check on the payment
 * takes. A refund's settlement (its ledger entry and outbound event reference the payment)
 * would then wait for a second refund request holding this lock, while that request waits
 * in the one-active-refund index for the settlement's transaction: a deadlock, answered 500
 * to one of them (docs/operations.md, "Concurrent refunds of one payment").
 */
export async function lockPayment(tx: Queryable, id: string): Promise<PaymentRow | null> {
  const res = await tx.query<PaymentRow>(
    `SELECT ${PAYMENT_COLUMNS} FROM payments WHERE id = $1 FOR NO KEY UPDATE`,
    [id],
  );
  return res.rows[0] ?? null;
}

export async function findAppPayment(
  db: Queryable,
  appId: string,
  id: string,
): Promise<PaymentRow | null> {
  const res = await db.query<PaymentRow>({
    name: 'payments_by_app_and_id',
    text: `SELECT ${PAYMENT_COLUMNS} FROM payments WHERE id = $1 AND app_id = $2`,
    values: [id, appId],
  });
  return res.rows[0] ?? null;
}

/** Writes the provider's answer once: a settled payment with a reference never changes (cache.ts). */
export async function storeRegistration(
  db: Queryable,
  id: string,
  reg: {
    providerRef: string;
    checkoutUrl: string;
    qrString: string | null;
    qrImageUrl: string | null;
    providerDeadline: Date | null;
  },
): Promise<PaymentRow | null> {
  const res = await db.query<PaymentRow>({
    name: 'payments_store_registration',
    text: `UPDATE payments SET provider_ref = $2, checkout_url = $3, qr_string = $4, qr_image_url = $5,
         provider_deadline = $6, updated_at = now()
       WHERE id = $1 AND (provider_ref IS NULL OR provider_ref = $2) RETURNING ${PAYMENT_COLUMNS}`,
    values: [
      id,
      reg.providerRef,
      reg.checkoutUrl,
      reg.qrString,
      reg.qrImageUrl,
      reg.providerDeadline,
    ],
  });
  return res.rows[0] ?? null;
}

/** The provider refused the registration: the payment can never be paid. */
export async function markRegistrationRejected(
  db: Queryable,
  id: string,
  providerText: string,
): Promise<void> {
  await db.query(
    `UPDATE payments SET status = 'failed', last_error = $2, finalized_at = now(), updated_at = now()
     WHERE id = $1 AND ${STILL_INITIATED}`,
    [id, storableText(providerText)],
  );
}

/**
 * Claims an unregistered payment for one more registration attempt (a client's retry with
 * its Idempotency-Key, or the reconciler): moves its deadline to `until`, so the reconciler
 * leaves it alone meanwhile and a reconciler that claimed it earlier no longer fails it.
 * Null when it is no longer initiated or already has its provider reference.
 */
export async function claimRegistration(
  db: Queryable,
  id: string,
  until: Date,
): Promise<PaymentRow | null> {
  const res = await db.query<PaymentRow>(
    `UPDATE payments SET provider_deadline = $2, updated_at = now()
     WHERE id = $1 AND ${STILL_INITIATED} AND provider_ref IS NULL
     RETURNING ${PAYMENT_COLUMNS}`,
    [id, until],
  );
  return res.rows[0] ?? null;
}

/** An unanswered registration: the reconciler asks the provider after this deadline. */
export async function setProviderDeadline(
  db: Queryable,
  id: string,
  deadline: Date,
): Promise<void> {
  await db.query(`UPDATE payments SET provider_deadline = $2, updated_at = now() WHERE id = $1`, [
    id,
    deadline,
  ]);
}

/**
 * What GET /v1/payments/{id} reads: the Payment answer's columns (src/domain/serialize.ts
 * throws on a required one missing) and the owning app. Half of a full row's columns, two of
 * its four timestamps: each column read costs node-postgres its parsing (issue 28).
 */
export type PaymentReadRow = Pick<
  PaymentRow,
  | 'id'
  | 'app_id'
  | 'status'
  | 'amount_minor'
  | 'currency'
  | 'method'
  | 'provider'
  | 'provider_ref'
  | 'metadata'
  | 'invoice_number'
  | 'last_error'
  | 'created_at'
  | 'updated_at'
>;

const PAYMENT_READ_COLUMNS = `id, app_id, status, amount_minor, currency, method, provider,
  provider_ref, metadata, invoice_number, last_error, created_at, updated_at`;

/**
 * Coalesces concurrent single-payment reads into one `id = ANY($1)` query: under polling load
 * one query serves many requests, and each read still starts after its request arrived, so it
 * never sees older state than a read of its own would. The reads queued in one event-loop turn
 * go together; while `maxInFlight` such queries are on their way, the next ones wait for one
 * to return and go together then (issue 28: under load a query's fixed cost, in the gateway
 * and in PostgreSQL, is shared by more reads), or go anyway after MAX_WAIT_MS (a query stuck
 * on a dying connection holds back no other read longer than that).
 */
export class PaymentReadBatcher {
  /** Per id, its readers' resolve and reject functions, in pairs. */
  private queue = new Map<string, ReadWaiters>();
  private readonly gate: FlushGate;

  constructor(
    private readonly db: Queryable,
    private readonly maxBatch = 200,
    maxInFlight = 2,
    maxWaitMs = MAX_WAIT_MS,
  ) {
    this.gate = new FlushGate(
      () => this.flush(),
      () => this.queue.size > 0,
      maxInFlight,
      maxWaitMs,
    );
  }

  get(id: string): Promise<PaymentReadRow | null> {
    return new Promise((resolve, reject) => {
      const waiting = this.queue.get(id);
      if (waiting) waiting.push(resolve, reject);
      else this.queue.set(id, [resolve, reject]);
      this.gate.schedule();
    });
  }

  private flush(): void {
    const batch = this.queue;
    if (batch.size === 0) return;
    this.queue = new Map();
    const ids = [...batch.keys()];
    for (let i = 0; i < ids.length; i += this.maxBatch) {
      const chunk = ids.length <= this.maxBatch ? ids : ids.slice(i, i + this.maxBatch);
      this.gate.sent();
      this.db
        .query<PaymentReadRow>({
          name: 'payments_by_ids',
          text: `SELECT ${PAYMENT_READ_COLUMNS} FROM payments WHERE id = ANY($1::text[])`,
          values: [chunk],
        })
        .then(
          (res) => {
            this.gate.returned();
            for (const row of res.rows) {
              const waiters = batch.get(row.id);
              if (!waiters) continue;
              batch.delete(row.id);
              for (let w = 0; w < waiters.length; w += 2) (waiters[w] as Resolve)(row);
            }
            // The chunk's ids no row answered (the others were deleted above).
            for (const id of chunk) {
              const waiters = batch.get(id);
              if (waiters)
                for (let w = 0; w < waiters.length; w += 2) (waiters[w] as Resolve)(null);
            }
          },
          (err: unknown) => {
            this.gate.returned();
            for (const id of chunk) {
              const waiters = batch.get(id) ?? [];
              for (let w = 1; w < waiters.length; w += 2) (waiters[w] as Reject)(err);
            }
          },
        );
    }
  }
}

/** The longest a read waits for a query on its way before going in a query of its own. */
const MAX_WAIT_MS = 20;

type Resolve = (row: PaymentReadRow | null) => void;
type Reject = (err: unknown) => void;
type ReadWaiters = (Resolve | Reject)[];

export async function findPaymentByProviderRef(
  db: Queryable,
  provider: string,
  providerRef: string,
): Promise<PaymentRow | null> {
  const res = await db.query<PaymentRow>({
    name: 'payments_by_provider_ref',
    text: `SELECT ${PAYMENT_COLUMNS} FROM payments WHERE provider = $1 AND provider_ref = $2`,
    values: [provider, providerRef],
  });
  return res.rows[0] ?? null;
}

/**
 * The reconciler's claim: initiated payments past their provider deadline on the gateway's
 * clock (`asOf`, which tests move), the deadline pushed to `until` so that instances never
 * ask about one at the same time.
 */
export async function claimDuePayments(
  db: Queryable,
  limit: number,
  until: Date,
  asOf: Date,
): Promise<PaymentRow[]> {
  const res = await db.query<PaymentRow>(
    `UPDATE payments SET provider_deadline = $2
     WHERE id IN (
       SELECT id FROM payments
       WHERE status = 'initiated' AND provider_deadline < $3
       ORDER BY provider_deadline LIMIT $1 FOR UPDATE SKIP LOCKED)
     RETURNING ${PAYMENT_COLUMNS}`,
    [limit, until, asOf],
  );
  return res.rows;
}
