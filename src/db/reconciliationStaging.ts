/**
 * The provider's side of a reconciliation staged in the database (docs/performance.md,
 * reconciliation): its movements go into a temporary table of the run's transaction, in
 * batches or straight from the imported file's rows, and both sides are then read back
 * ordered by payment through two cursors, so the run holds one payment's movements at a time
 * rather than the whole day (about 1.8 kB a movement when held in memory).
 */
import type { GatewayRow, MovementType, ProviderRow } from '../domain/reconciliation.js';
import type { Mode } from '../domain/types.js';
import type { ProviderMovement } from '../providers/types.js';
import type { Queryable } from './pool.js';
import { COMPARED_TYPES, LEDGER_MOVEMENT } from './reconciliation.js';

/** Rows written per INSERT and read per FETCH. */
export const STAGING_BATCH = 2000;

export async function createStaging(tx: Queryable): Promise<void> {
  // pos keeps the provider's own order within a payment (pairing takes the first fit).
  await tx.query(
    `CREATE TEMP TABLE reconciliation_staging (
       pos bigserial, type text NOT NULL, provider_ref text NOT NULL, ref_id text,
       payment_ref text, payment_id text, status text NOT NULL, currency text NOT NULL,
       amount_minor bigint NOT NULL, fee_minor bigint, occurred_at timestamptz NOT NULL
     ) ON COMMIT DROP`,
  );
}

/** Stages movements from a provider's API, in batches; empties the array as it goes. */
export async function stageMovements(tx: Queryable, movements: ProviderMovement[]): Promise<void> {
  while (movements.length > 0) {
    const batch = movements.splice(0, STAGING_BATCH);
    await tx.query(
      `INSERT INTO reconciliation_staging (type, provider_ref, ref_id, payment_ref, status,
         currency, amount_minor, fee_minor, occurred_at)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[],
         $6::text[], $7::bigint[], $8::bigint[], $9::timestamptz[])`,
      [
        batch.map((m) => m.type),
        batch.map((m) => m.providerRef),
        batch.map((m) => m.paymentId ?? null),
        batch.map((m) => m.providerPaymentRef ?? null),
        batch.map((m) => m.status),
        batch.map((m) => m.currency),
        batch.map((m) => m.amountMinor),
        batch.map((m) => m.feeMinor),
        batch.map((m) => m.occurredAt),
      ],
    );
  }
}

/**
 * Stages the rows of the given uploads, each movement once: listed in two files, it is read
 * from the file earliest in importIds (the caller lists the target day's file first). The
 * rows go from table to table; none passes through this process.
 */
export async function stageImports(tx: Queryable, importIds: string[]): Promise<void> {
  await tx.query(
    `INSERT INTO reconciliation_staging (type, provider_ref, ref_id, status, currency,
       amount_minor, fee_minor, occurred_at)
     SELECT DISTINCT ON (type, provider_ref) type, provider_ref, payment_ref, status, currency,
       amount_minor, fee_minor, occurred_at
     FROM reconciliation_import_rows WHERE import_id = ANY($1::text[])
     ORDER BY type, provider_ref, array_position($1::text[], import_id), line`,
    [importIds],
  );
}

/**
 * Names each staged movement's payment: by our id, else by the provider's reference of the
 * payment, else (a refund) by the refund on record with the provider's refund id; among the
 * payments of this provider and mode only.
 */
export async function resolveStaged(tx: Queryable, provider: string, mode: Mode): Promise<void> {
  await tx.query(
    `UPDATE reconciliation_staging s SET payment_id = p.id FROM payments p
     WHERE p.id = s.ref_id AND p.provider = $1 AND p.mode = $2`,
    [provider, mode],
  );
  await tx.query(
    `UPDATE reconciliation_staging s SET payment_id = p.id FROM payments p
     WHERE s.payment_id IS NULL AND p.provider_ref = s.payment_ref
       AND p.provider = $1 AND p.mode = $2`,
    [provider, mode],
  );
  // A refund the provider lists without our reference (PayPal names the payment only through
  // custom_field, absent on a refund made in its dashboard): the refund the gateway recorded
  // under the provider's refund id names the payment.
  await tx.query(
    `UPDATE reconciliation_staging s SET payment_id = r.payment_id
     FROM refunds r JOIN payments p ON p.id = r.payment_id
     WHERE s.payment_id IS NULL AND s.type = 'refund'
       AND r.provider = $1 AND r.provider_ref = s.provider_ref AND p.mode = $2`,
    [provider, mode],
  );
  await tx.query('ANALYZE reconciliation_staging');
}

export interface PairingWindow {
  provider: string;
  mode: Mode;
  since: Date;
  until: Date;
  dayStart: Date;
  dayEnd: Date;
}

/**
 * Opens the two cursors, both ordered by payment (bytewise, as JavaScript compares strings):
 * `staged` the provider's movements (those naming no payment first), `ledger` the gateway's
 * compared entries of the window plus, for a payment the provider moved in the day and the
 * window holds nothing of, its entries whenever booked (a movement the gateway learned late).
 */
export async function openCursors(tx: Queryable, w: PairingWindow): Promise<void> {
  await tx.query(
    `DECLARE staged NO SCROLL CURSOR FOR
     SELECT type, provider_ref, payment_id, status, currency, amount_minor::float8 AS amount_minor,
       fee_minor::float8 AS fee_minor, occurred_at >= $1 AND occurred_at < $2 AS in_day
     FROM reconciliation_staging ORDER BY payment_id COLLATE "C" NULLS FIRST, pos`,
    [w.dayStart, w.dayEnd],
  );
  const select = `SELECT ${LEDGER_MOVEMENT} AS movement, l.payment_id,
      COALESCE(d.provider_ref, r.provider_ref, p.provider_ref) AS provider_ref,
      r.provider_ref AS refund_ref, l.currency, l.amount_minor::float8 AS amount_minor,
      l.occurred_at >= $5 AND l.occurred_at < $6 AS in_day, l.occurred_at, l.id
    FROM ledger_entries l JOIN payments p ON p.id = l.payment_id
    LEFT JOIN refunds r ON r.id = l.refund_id
    LEFT JOIN disputes d ON d.id = l.dispute_id`;
  const inWindow = `l.occurred_at >= $3 AND l.occurred_at < $4 AND l.provider = $1
    AND l.mode = $2 AND ${COMPARED_TYPES}`;
  await tx.query(
    `DECLARE ledger NO SCROLL CURSOR FOR
     WITH late AS (
       SELECT DISTINCT payment_id FROM reconciliation_staging
       WHERE payment_id IS NOT NULL AND occurred_at >= $5 AND occurred_at < $6
       EXCEPT SELECT l.payment_id FROM ledger_entries l WHERE ${inWindow})
     SELECT * FROM (
       ${select} WHERE ${inWindow}
       UNION ALL
       ${select} WHERE l.payment_id IN (SELECT payment_id FROM late) AND ${COMPARED_TYPES}) m
     ORDER BY payment_id COLLATE "C", occurred_at, id`,
    [w.provider, w.mode, w.since, w.until, w.dayStart, w.dayEnd],
  );
}

interface StagedDb {
  type: MovementType;
  provider_ref: string;
  payment_id: string | null;
  status: ProviderRow['status'];
  currency: string;
  amount_minor: number;
  fee_minor: number | null;
  in_day: boolean;
}

interface LedgerDb {
  movement: MovementType;
  payment_id: string;
  provider_ref: string | null;
  refund_ref: string | null;
  currency: string;
  amount_minor: number;
  in_day: boolean;
}

/** One cursor read a batch at a time: peek at the next row, take it. */
export class CursorReader<T> {
  private buf: T[] = [];
  private at = 0;
  private done = false;

  constructor(
    private readonly tx: Queryable,
    private readonly name: 'staged' | 'ledger',
    private readonly map: (row: never) => T,
  ) {}

  async peek(): Promise<T | null> {
    if (this.at >= this.buf.length && !this.done) {
      const res = await this.tx.query(`FETCH ${STAGING_BATCH} FROM ${this.name}`);
      this.buf = res.rows.map((r) => this.map(r as never));
      this.at = 0;
      this.done = res.rows.length < STAGING_BATCH;
    }
    return this.buf[this.at] ?? null;
  }

  take(): T {
    return this.buf[this.at++] as T;
  }
}

export const stagedReader = (tx: Queryable) =>
  new CursorReader<ProviderRow>(tx, 'staged', (r: StagedDb) => ({
    type: r.type,
    providerRef: r.provider_ref,
    paymentId: r.payment_id,
    status: r.status,
    currency: r.currency,
    amountMinor: r.amount_minor,
    feeMinor: r.fee_minor,
    inDay: r.in_day,
  }));

export const ledgerReader = (tx: Queryable) =>
  new CursorReader<GatewayRow>(tx, 'ledger', (r: LedgerDb) => ({
    type: r.movement,
    paymentId: r.payment_id,
    providerRef: r.provider_ref,
    refundRef: r.refund_ref,
    currency: r.currency,
    amountMinor: r.amount_minor,
    inDay: r.in_day,
  }));
