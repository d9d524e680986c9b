/**
 * SQL of reconciliation (migrations 0017, 0025): the ledger entries compared, runs, items,
 * claims. The day's two sides are read in db/reconciliationStaging.ts.
 */
import { newId } from '../domain/ids.js';
import type { MovementType, ReconciliationItem } from '../domain/reconciliation.js';
import type { Mode } from '../domain/types.js';
import type { Queryable } from './pool.js';

/** Ledger types compared with the provider's record, by the movement they are. */
export const LEDGER_MOVEMENT = `CASE WHEN l.type IN ('charge', 'late_charge') THEN 'charge'
  WHEN l.type IN ('dispute', 'dispute_reversal') THEN 'dispute' ELSE 'refund' END`;
export const COMPARED_TYPES = `l.type IN ('charge', 'late_charge', 'refund', 'late_charge_refund',
  'dispute', 'dispute_reversal')`;

export interface RunRow {
  id: string;
  provider: string;
  mode: Mode;
  day: string;
  status: 'matched' | 'mismatched';
  matched_count: number;
  import_id: string | null;
  trigger: 'operator' | 'daily';
  started_at: Date;
  finished_at: Date;
  /**
   * Run before migration 0025, which kept one sum of all the day's currencies: a wallet_psp or
   * card_psp run then has no sums per currency until the day is run again.
   */
  summed_before_0025: boolean;
}

export interface StoredItem extends ReconciliationItem {
  exceptionId: string | null;
}

/** The note of an exception a run found matched; followed by that run's id. */
const CLEARED_NOTE = 'matched by reconciliation run ';

const RUN_COLUMNS = `id, provider, mode, to_char(day, 'YYYY-MM-DD') AS day, status, matched_count,
  import_id, trigger, started_at, finished_at, gateway_net_minor IS NOT NULL AS summed_before_0025`;

/** One currency's sums of a run (migration 0025): never added across currencies. */
export interface RunTotals {
  currency: string;
  gatewayNetMinor: bigint;
  providerNetMinor: bigint;
  feesMinor: bigint;
}

export interface NewRun {
  provider: string;
  mode: Mode;
  day: string;
  matchedCount: number;
  totals: RunTotals[];
  importId: string | null;
  trigger: 'operator' | 'daily';
  startedAt: Date;
}

/**
 * Stores a run with its items, in the caller's transaction. Each item becomes an exception of
 * kind reconciliation unless one is on record for it (found again: nothing new); the day's
 * open ones this run did not find again are resolved as matched.
 */
export async function insertRun(
  tx: Queryable,
  run: NewRun,
  items: ReconciliationItem[],
  keys: string[],
): Promise<{ run: RunRow; newExceptions: string[]; cleared: number }> {
  const id = newId();
  const res = await tx.query<RunRow>(
    `INSERT INTO reconciliation_runs (id, provider, mode, day, status, matched_count,
       import_id, trigger, started_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${RUN_COLUMNS}`,
    [
      id,
      run.provider,
      run.mode,
      run.day,
      items.length === 0 ? 'matched' : 'mismatched',
      run.matchedCount,
      run.importId,
      run.trigger,
      run.startedAt,
    ],
  );
  await tx.query(
    `INSERT INTO reconciliation_run_totals (run_id, currency, gateway_net_minor,
       provider_net_minor, fees_minor)
     SELECT $1, * FROM unnest($2::text[], $3::numeric[], $4::numeric[], $5::numeric[])`,
    [
      id,
      run.totals.map((t) => t.currency),
      run.totals.map((t) => t.gatewayNetMinor.toString()),
      run.totals.map((t) => t.providerNetMinor.toString()),
      run.totals.map((t) => t.feesMinor.toString()),
    ],
  );
  const prefix = `${run.provider}|${run.mode}|${run.day}|`;
  const cols = {
    kind: items.map((i) => i.kind),
    movement: items.map((i) => i.movement),
    ref: items.map((i) => i.providerRef),
    payment: items.map((i) => i.paymentId),
    currency: items.map((i) => i.currency),
    gateway: items.map((i) => i.gatewayAmountMinor),
    provider: items.map((i) => i.providerAmountMinor),
    status: items.map((i) => i.providerStatus),
    key: keys.map((k) => prefix + k),
    exId: items.map(() => newId()),
  };
  // One statement: the new exceptions (payment and app where the gateway knows them), then
  // the items pointing at their exception, new or already on record. The key names no amount
  // and outlives a resolution, so a difference found again re-opens its resolved exception
  // (returned as new, so it is logged) when a run had cleared it, or when an operator had
  // resolved it and the difference is now of another amount. DISTINCT ON: one proposal per key.
  const created = await tx.query<{ id: string }>(
    `WITH i AS (
       SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
         $7::bigint[], $8::bigint[], $9::text[], $10::text[], $11::text[])
         WITH ORDINALITY AS t(kind, movement, ref, payment_id, currency, gateway, provider,
           status, key, ex_id, pos)),
     ex AS (
       INSERT INTO payment_exceptions (id, payment_id, app_id, kind, provider, provider_ref,
         amount_minor, currency, resolution, reconciliation_key)
       SELECT DISTINCT ON (i.key) i.ex_id, p.id, p.app_id, 'reconciliation', $12, i.ref,
         COALESCE(i.provider, 0) - COALESCE(i.gateway, 0), i.currency, 'manual', i.key
       FROM i LEFT JOIN payments p ON p.id = i.payment_id
       ORDER BY i.key, i.pos
       ON CONFLICT (reconciliation_key) WHERE reconciliation_key IS NOT NULL DO UPDATE
         SET resolution = 'manual', resolved_at = NULL, note = NULL,
           amount_minor = EXCLUDED.amount_minor, currency = EXCLUDED.currency
         WHERE payment_exceptions.resolution = 'resolved'
           AND (payment_exceptions.amount_minor <> EXCLUDED.amount_minor
             OR EXISTS (SELECT 1 FROM reconciliation_runs r
                        WHERE r.id = substr(payment_exceptions.note, ${CLEARED_NOTE.length + 1})
                          AND payment_exceptions.note = '${CLEARED_NOTE}' || r.id))
       RETURNING id, reconciliation_key),
     items AS (
       INSERT INTO reconciliation_items (run_id, position, kind, movement, provider_ref,
         payment_id, currency, gateway_amount_minor, provider_amount_minor, provider_status,
         exception_id)
       SELECT $1, i.pos, i.kind, i.movement, i.ref, i.payment_id, i.currency, i.gateway,
         i.provider, i.status,
         COALESCE(ex.id, (SELECT e.id FROM payment_exceptions e WHERE e.reconciliation_key = i.key))
       FROM i LEFT JOIN ex ON ex.reconciliation_key = i.key)
     SELECT id FROM ex`,
    [
      id,
      cols.kind,
      cols.movement,
      cols.ref,
      cols.payment,
      cols.currency,
      cols.gateway,
      cols.provider,
      cols.status,
      cols.key,
      cols.exId,
      run.provider,
    ],
  );
  const cleared = await tx.query(
    `UPDATE payment_exceptions SET resolution = 'resolved', resolved_at = now(),
       note = '${CLEARED_NOTE}' || $2::text
     WHERE reconciliation_key LIKE $1 || '%' AND resolution = 'manual'
       AND NOT (reconciliation_key = ANY($3::text[]))`,
    [prefix.replace(/[\\%_]/g, (c) => `\\${c}`), id, cols.key],
  );
  return {
    run: res.rows[0] as RunRow,
    newExceptions: created.rows.map((r) => r.id),
    cleared: cleared.rowCount ?? 0,
  };
}

/** Runs of one (provider, mode, day) take turns: held until the caller's transaction ends. */
export async function lockDay(tx: Queryable, provider: string, mode: Mode, day: string) {
  await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
    `reconciliation|${provider}|${mode}|${day}`,
  ]);
}

export async function latestRun(
  db: Queryable,
  provider: string,
  mode: Mode,
  day: string,
): Promise<RunRow | null> {
  const res = await db.query<RunRow>(
    `SELECT ${RUN_COLUMNS} FROM reconciliation_runs WHERE provider = $1 AND mode = $2 AND day = $3
     ORDER BY finished_at DESC, id DESC LIMIT 1`,
    [provider, mode, day],
  );
  return res.rows[0] ?? null;
}

/** A run's sums, one entry per currency, alphabetical. */
export async function runTotals(db: Queryable, runId: string): Promise<RunTotals[]> {
  const res = await db.query<{ currency: string; g: string; p: string; f: string }>(
    `SELECT currency, gateway_net_minor::text AS g, provider_net_minor::text AS p,
       fees_minor::text AS f
     FROM reconciliation_run_totals WHERE run_id = $1 ORDER BY currency`,
    [runId],
  );
  return res.rows.map((r) => ({
    currency: r.currency,
    gatewayNetMinor: BigInt(r.g),
    providerNetMinor: BigInt(r.p),
    feesMinor: BigInt(r.f),
  }));
}

interface ItemDb {
  kind: ReconciliationItem['kind'];
  movement: MovementType;
  provider_ref: string;
  payment_id: string | null;
  currency: string;
  gateway_amount_minor: string | null;
  provider_amount_minor: string | null;
  provider_status: ReconciliationItem['providerStatus'];
  exception_id: string | null;
}

const num = (v: string | null) => (v === null ? null : Number(v));

export async function runItems(db: Queryable, runId: string): Promise<StoredItem[]> {
  const res = await db.query<ItemDb>(
    `SELECT kind, movement, provider_ref, payment_id, currency, gateway_amount_minor::text,
       provider_amount_minor::text, provider_status, exception_id
     FROM reconciliation_items WHERE run_id = $1 ORDER BY position`,
    [runId],
  );
  return res.rows.map((r) => ({
    kind: r.kind,
    movement: r.movement,
    providerRef: r.provider_ref,
    paymentId: r.payment_id,
    currency: r.currency,
    gatewayAmountMinor: num(r.gateway_amount_minor),
    providerAmountMinor: num(r.provider_amount_minor),
    providerStatus: r.provider_status,
    exceptionId: r.exception_id,
  }));
}

/**
 * The daily job's claim of (provider, mode, day): true for the one instance that takes it,
 * also when an earlier claim expired unfinished (its process died).
 */
export async function claimDaily(
  db: Queryable,
  provider: string,
  mode: Mode,
  day: string,
  leaseSeconds: number,
): Promise<boolean> {
  const res = await db.query(
    `INSERT INTO reconciliation_daily (provider, mode, day, claim_expires_at)
     VALUES ($1, $2, $3, now() + make_interval(secs => $4))
     ON CONFLICT (provider, mode, day) DO UPDATE
       SET claim_expires_at = EXCLUDED.claim_expires_at
       WHERE reconciliation_daily.done_at IS NULL
         AND reconciliation_daily.claim_expires_at < now()`,
    [provider, mode, day, leaseSeconds],
  );
  return res.rowCount === 1;
}

export async function finishDaily(
  db: Queryable,
  provider: string,
  mode: Mode,
  day: string,
): Promise<void> {
  await db.query(
    `UPDATE reconciliation_daily SET done_at = now() WHERE provider = $1 AND mode = $2 AND day = $3`,
    [provider, mode, day],
  );
}
