/**
 * Daily totals of closed UTC days (migration 0003: report_days, report_daily) and monthly
 * sums of them (migration 0019: report_months, report_monthly). Days are 'YYYY-MM-DD'
 * strings; a range [from, to) of days.
 */
import type { Mode } from '../domain/types.js';
import { withTransaction, type Pool, type Queryable } from './pool.js';
import type { DayTotal, GroupTotal } from './reports.js';

// Any constant works; it only has to be the same for every instance of the gateway.
const MATERIALIZE_LOCK = 727_274_003;

/** How many days of [from, to) are materialized: all of them means nothing to do. */
export async function materializedDayCount(
  db: Queryable,
  from: string,
  to: string,
): Promise<number> {
  const res = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM report_days WHERE day >= $1::date AND day < $2::date`,
    [from, to],
  );
  return res.rows[0]?.n ?? 0;
}

/**
 * Computes the totals of every day of [from, to) not yet materialized, in one pass over the
 * report indexes. Instances take turns on an advisory lock, and the loser finds the days done.
 */
export async function materializeDays(pool: Pool, from: string, to: string): Promise<number> {
  return withTransaction(pool, async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MATERIALIZE_LOCK]);
    const missing = await tx.query<{ day: string }>(
      `SELECT to_char(d, 'YYYY-MM-DD') AS day
       FROM generate_series($1::date, $2::date - 1, interval '1 day') d
       WHERE NOT EXISTS (SELECT 1 FROM report_days r WHERE r.day = d::date)`,
      [from, to],
    );
    const days = missing.rows.map((r) => r.day);
    if (days.length === 0) return 0;
    const lo = days[0] as string;
    const hi = days[days.length - 1] as string;
    await tx.query(`INSERT INTO report_days (day) SELECT unnest($1::date[])`, [days]);
    await tx.query(
      `INSERT INTO report_daily (day, app_id, mode, provider, currency, succeeded_count,
         succeeded_minor, refunded_count, refunded_minor, failed_count, canceled_count,
         ledger_count, net_minor, disputed_minor, initiated_count)
       SELECT day, app_id, mode, provider, currency, sum(sc), sum(sm), sum(rc), sum(rm), sum(fc),
         sum(cc), sum(lc), sum(nm), sum(dm), sum(ic)
       FROM (
         SELECT (finalized_at AT TIME ZONE 'UTC')::date AS day, app_id, mode, provider, currency,
           count(*) FILTER (WHERE status = 'succeeded') AS sc,
           coalesce(sum(amount_minor) FILTER (WHERE status = 'succeeded'), 0) AS sm,
           0 AS rc, 0 AS rm,
           count(*) FILTER (WHERE status = 'failed') AS fc,
           count(*) FILTER (WHERE status = 'canceled') AS cc,
           0 AS lc, 0 AS nm, 0 AS dm, 0 AS ic
         FROM payments
         WHERE finalized_at >= ($2::date)::timestamp AT TIME ZONE 'UTC'
           AND finalized_at < ($3::date + 1)::timestamp AT TIME ZONE 'UTC'
         GROUP BY 1, 2, 3, 4, 5
         UNION ALL
         -- Payments still initiated, on the day they were created (migration 0019).
         SELECT (created_at AT TIME ZONE 'UTC')::date, app_id, mode, provider, currency,
           0, 0, 0, 0, 0, 0, 0, 0, 0, count(*)
         FROM payments
         WHERE status = 'initiated'
           AND created_at >= ($2::date)::timestamp AT TIME ZONE 'UTC'
           AND created_at < ($3::date + 1)::timestamp AT TIME ZONE 'UTC'
         GROUP BY 1, 2, 3, 4, 5
         UNION ALL
         SELECT (succeeded_at AT TIME ZONE 'UTC')::date, app_id, mode, provider, currency,
           0, 0, count(*), sum(amount_minor), 0, 0, 0, 0, 0, 0
         FROM refunds
         WHERE status = 'succeeded'
           AND succeeded_at >= ($2::date)::timestamp AT TIME ZONE 'UTC'
           AND succeeded_at < ($3::date + 1)::timestamp AT TIME ZONE 'UTC'
         GROUP BY 1, 2, 3, 4, 5
         UNION ALL
         -- The ledger's sums (docs/api.md#ledger): net is every entry, disputed what disputes
         -- took back net of the ones won.
         SELECT (occurred_at AT TIME ZONE 'UTC')::date, app_id, mode, provider, currency,
           0, 0, 0, 0, 0, 0, count(*), sum(amount_minor),
           -coalesce(sum(amount_minor) FILTER (WHERE type IN ('dispute', 'dispute_reversal')), 0),
           0
         FROM ledger_entries
         WHERE occurred_at >= ($2::date)::timestamp AT TIME ZONE 'UTC'
           AND occurred_at < ($3::date + 1)::timestamp AT TIME ZONE 'UTC'
         GROUP BY 1, 2, 3, 4, 5
       ) t
       WHERE day = ANY($1::date[])
       GROUP BY day, app_id, mode, provider, currency`,
      [days, lo, hi],
    );
    // A first year of days at once: the planner learns the table's size now, not at the next
    // autovacuum (a hash over thousands of rows, not a sort of what it guessed were a few).
    if (days.length > 31) await tx.query('ANALYZE report_daily');
    return days.length;
  });
}

/** Months [from, to) ('YYYY-MM-01') already summed in report_monthly. */
export async function materializedMonthCount(
  db: Queryable,
  from: string,
  to: string,
): Promise<number> {
  const res = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM report_months WHERE month >= $1::date AND month < $2::date`,
    [from, to],
  );
  return res.rows[0]?.n ?? 0;
}

/**
 * Sums each month of [from, to) not yet summed whose every day is materialized, from
 * report_daily, under the materializer's lock (a day dropped meanwhile waits for it, and its
 * month goes with it). A month with a day missing stays out: its days are read instead.
 */
export async function materializeMonths(pool: Pool, from: string, to: string): Promise<number> {
  return withTransaction(pool, async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MATERIALIZE_LOCK]);
    const ready = await tx.query<{ month: string }>(
      `SELECT to_char(m, 'YYYY-MM-DD') AS month
       FROM generate_series($1::date, $2::date - 1, interval '1 month') m
       WHERE NOT EXISTS (SELECT 1 FROM report_months r WHERE r.month = m::date)
         AND (SELECT count(*) FROM report_days d
              WHERE d.day >= m::date AND d.day < (m + interval '1 month')::date)
             = extract(day FROM m + interval '1 month' - interval '1 day')`,
      [from, to],
    );
    const months = ready.rows.map((r) => r.month);
    if (months.length === 0) return 0;
    await tx.query(`INSERT INTO report_months (month) SELECT unnest($1::date[])`, [months]);
    await tx.query(
      `INSERT INTO report_monthly (month, app_id, mode, provider, currency, succeeded_count,
         succeeded_minor, refunded_count, refunded_minor, failed_count, canceled_count,
         initiated_count, ledger_count, net_minor, disputed_minor)
       SELECT date_trunc('month', day)::date, app_id, mode, provider, currency,
         sum(succeeded_count), sum(succeeded_minor), sum(refunded_count), sum(refunded_minor),
         sum(failed_count), sum(canceled_count), sum(initiated_count), sum(ledger_count),
         sum(net_minor), sum(disputed_minor)
       FROM report_daily
       WHERE date_trunc('month', day)::date = ANY($1::date[])
       GROUP BY 1, 2, 3, 4, 5`,
      [months],
    );
    return months.length;
  });
}

interface RollupRow {
  app_id: string;
  mode: Mode;
  provider: string;
  currency: string;
  sc: number;
  sm: string;
  rc: number;
  rm: string;
  fc: number;
  cc: number;
  ic: number;
  /** Ledger entries of the group: a day may have money on the ledger and no payment. */
  lc: number;
  nm: string;
  dm: string;
}

const SUMS = `sum(succeeded_count)::int AS sc, sum(succeeded_minor)::text AS sm,
  sum(refunded_count)::int AS rc, sum(refunded_minor)::text AS rm,
  sum(failed_count)::int AS fc, sum(canceled_count)::int AS cc, sum(initiated_count)::int AS ic,
  sum(ledger_count)::int AS lc, sum(net_minor)::text AS nm, sum(disputed_minor)::text AS dm`;

/**
 * Totals of the materialized days of [from, to), in the raw queries' shape: each summed
 * month inside it from report_monthly, every other day from report_daily, in one snapshot.
 */
export async function rollupTotals(
  db: Queryable,
  from: string,
  to: string,
  mode: Mode | null,
): Promise<GroupTotal[]> {
  const byMode = mode ? 'AND mode = $3' : '';
  const res = await db.query<RollupRow>(
    `WITH months AS (
       SELECT month FROM report_months
       WHERE month >= $1::date AND (month + interval '1 month')::date <= $2::date
     )
     SELECT app_id, mode, provider, currency, ${SUMS}
     FROM (
       SELECT app_id, mode, provider, currency, succeeded_count, succeeded_minor,
         refunded_count, refunded_minor, failed_count, canceled_count, initiated_count,
         ledger_count, net_minor, disputed_minor
       FROM report_monthly WHERE month IN (SELECT month FROM months) ${byMode}
       UNION ALL
       SELECT app_id, mode, provider, currency, succeeded_count, succeeded_minor,
         refunded_count, refunded_minor, failed_count, canceled_count, initiated_count,
         ledger_count, net_minor, disputed_minor
       FROM report_daily
       WHERE day >= $1::date AND day < $2::date ${byMode}
         AND date_trunc('month', day)::date NOT IN (SELECT month FROM months)
     ) t
     GROUP BY app_id, mode, provider, currency`,
    mode ? [from, to, mode] : [from, to],
  );
  const out: GroupTotal[] = [];
  for (const r of res.rows) {
    const g = { app_id: r.app_id, mode: r.mode, provider: r.provider, currency: r.currency };
    if (r.sc) out.push({ ...g, status: 'succeeded', n: r.sc, minor: r.sm });
    if (r.rc) out.push({ ...g, status: 'refunded', n: r.rc, minor: r.rm });
    if (r.fc) out.push({ ...g, status: 'failed', n: r.fc, minor: '0' });
    if (r.cc) out.push({ ...g, status: 'canceled', n: r.cc, minor: '0' });
    if (r.ic) out.push({ ...g, status: 'initiated', n: r.ic, minor: '0' });
    // As ledgerTotals answers: a group only where the ledger has entries.
    if (r.lc) {
      out.push(
        { ...g, status: 'net', n: r.lc, minor: r.nm },
        { ...g, status: 'disputed', n: r.lc, minor: r.dm },
      );
    }
  }
  return out;
}

/** Succeeded payments per day and currency of the materialized days of [from, to). */
export async function rollupByDay(
  db: Queryable,
  from: string,
  to: string,
  mode: Mode | null,
): Promise<DayTotal[]> {
  const res = await db.query<DayTotal>(
    `SELECT (day - DATE '1970-01-01') AS day, currency, sum(succeeded_count)::int AS n,
       sum(succeeded_minor)::text AS minor
     FROM report_daily
     WHERE day >= $1::date AND day < $2::date AND succeeded_count > 0 ${mode ? 'AND mode = $3' : ''}
     GROUP BY day, currency`,
    mode ? [from, to, mode] : [from, to],
  );
  return res.rows;
}
