/**
 * SQL of the operator's read API (issue 5). Sums of minor units come back as text and are
 * parsed as bigint by the service: a numeric sum can pass 2^53. Each aggregate matches one
 * index of migration 0003 (index-only scans over the window). The lists are reportLists.ts, the
 * payment detail reportDetail.ts.
 */
import type { Window } from '../domain/adminQuery.js';
import type { Mode } from '../domain/types.js';
import type { Queryable } from './pool.js';

export interface GroupTotal {
  app_id: string;
  mode: Mode;
  provider: string;
  currency: string;
  /** Payment groups: the terminal status; refund and initiated groups: fixed. */
  status: string;
  n: number;
  minor: string;
}

/** Terminal payments by the time they reached their status (finalized_at, docs/api.md#summary). */
export async function terminalPaymentTotals(
  db: Queryable,
  w: Window,
  mode: Mode | null,
): Promise<GroupTotal[]> {
  const res = await db.query<GroupTotal>(
    `SELECT app_id, mode, provider, currency, status, count(*)::int AS n,
       sum(amount_minor)::text AS minor
     FROM payments
     WHERE finalized_at >= $1 AND finalized_at < $2 ${mode ? 'AND mode = $3' : ''}
     GROUP BY app_id, mode, provider, currency, status`,
    mode ? [w.since, w.until, mode] : [w.since, w.until],
  );
  return res.rows;
}

/** Succeeded refunds by the time they succeeded (docs/api.md#summary). */
export async function succeededRefundTotals(
  db: Queryable,
  w: Window,
  mode: Mode | null,
): Promise<GroupTotal[]> {
  const res = await db.query<GroupTotal>(
    `SELECT app_id, mode, provider, currency, 'refunded' AS status, count(*)::int AS n,
       sum(amount_minor)::text AS minor
     FROM refunds
     WHERE status = 'succeeded' AND succeeded_at >= $1 AND succeeded_at < $2
       ${mode ? 'AND mode = $3' : ''}
     GROUP BY app_id, mode, provider, currency`,
    mode ? [w.since, w.until, mode] : [w.since, w.until],
  );
  return res.rows;
}

/**
 * The ledger's sums by the time each movement happened (docs/api.md#ledger): two groups per
 * key, `net` (every entry) and `disputed` (what disputes took back, net of the ones won,
 * as a positive figure). Served by ledger_time_idx (migration 0038) without the table.
 */
export async function ledgerTotals(
  db: Queryable,
  w: Window,
  mode: Mode | null,
): Promise<GroupTotal[]> {
  const res = await db.query<GroupTotal & { disputed: string }>(
    `SELECT app_id, mode, provider, currency, 'net' AS status, count(*)::int AS n,
       sum(amount_minor)::text AS minor,
       (-coalesce(sum(amount_minor) FILTER (WHERE type IN ('dispute', 'dispute_reversal')), 0))::text
         AS disputed
     FROM ledger_entries
     WHERE occurred_at >= $1 AND occurred_at < $2 ${mode ? 'AND mode = $3' : ''}
     GROUP BY app_id, mode, provider, currency`,
    mode ? [w.since, w.until, mode] : [w.since, w.until],
  );
  return res.rows.flatMap(({ disputed, ...net }) => [
    net,
    { ...net, status: 'disputed', minor: disputed },
  ]);
}

/** Payments still initiated, counted on the time they were created. */
export async function initiatedTotals(
  db: Queryable,
  w: Window,
  mode: Mode | null,
): Promise<GroupTotal[]> {
  const res = await db.query<GroupTotal>(
    `SELECT app_id, mode, provider, currency, 'initiated' AS status, count(*)::int AS n,
       '0' AS minor
     FROM payments
     WHERE status = 'initiated' AND created_at >= $1 AND created_at < $2
       ${mode ? 'AND mode = $3' : ''}
     GROUP BY app_id, mode, provider, currency`,
    mode ? [w.since, w.until, mode] : [w.since, w.until],
  );
  return res.rows;
}

export interface AppName {
  id: string;
  name: string;
  mode: Mode;
}

export async function appNames(db: Queryable): Promise<AppName[]> {
  const res = await db.query<AppName>(`SELECT id, name, mode FROM apps ORDER BY name, id`);
  return res.rows;
}

export interface DayTotal {
  /** Days since 1970-01-01 (UTC); grouping on an integer is much cheaper than on to_char. */
  day: number;
  currency: string;
  n: number;
  minor: string;
}

/** Succeeded payments per UTC day and currency. */
export async function succeededByDay(
  db: Queryable,
  w: Window,
  mode: Mode | null,
): Promise<DayTotal[]> {
  const res = await db.query<DayTotal>(
    `SELECT ((finalized_at AT TIME ZONE 'UTC')::date - DATE '1970-01-01') AS day, currency,
       count(*)::int AS n, sum(amount_minor)::text AS minor
     FROM payments
     WHERE finalized_at >= $1 AND finalized_at < $2 AND status = 'succeeded'
       ${mode ? 'AND mode = $3' : ''}
     GROUP BY 1, 2`,
    mode ? [w.since, w.until, mode] : [w.since, w.until],
  );
  return res.rows;
}

/** The earliest time any payment, refund or ledger entry counts in a report (null: none yet). */
export async function earliestActivity(db: Queryable): Promise<Date | null> {
  const res = await db.query<{ at: Date | null }>(
    `SELECT least((SELECT min(finalized_at) FROM payments WHERE finalized_at IS NOT NULL),
       (SELECT min(succeeded_at) FROM refunds WHERE status = 'succeeded'),
       (SELECT min(occurred_at) FROM ledger_entries)) AS at`,
  );
  return res.rows[0]?.at ?? null;
}
