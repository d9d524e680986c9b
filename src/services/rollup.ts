/**
 * Report totals of any window from the daily rollup plus the raw rows around it. The full
 * UTC days of the window that are closed (over for an hour) come from report_daily (whole
 * months of them from report_monthly), materialized here on first use; the rest (the partial first day of a `since`, today, the
 * hour after midnight) from the report indexes. The answer is the same as the plain
 * aggregate's, at a cost that no longer grows with the number of payments per day.
 */
import type { Pool } from '../db/pool.js';
import {
  initiatedTotals,
  ledgerTotals,
  succeededByDay,
  succeededRefundTotals,
  terminalPaymentTotals,
  type DayTotal,
  type GroupTotal,
} from '../db/reports.js';
import {
  materializeDays,
  materializedDayCount,
  materializedMonthCount,
  materializeMonths,
  rollupByDay,
  rollupTotals,
} from '../db/rollup.js';
import { DAY_MS, utcDay, utcDayStart, type Window } from '../domain/adminQuery.js';
import type { Mode } from '../domain/types.js';

/** A transaction stamps finalized_at with its start; one still open an hour later is not expected. */
export const CLOSE_GRACE_MS = 3_600_000;

export interface WindowSplit {
  /** Full closed days [from, to) answered by the rollup, or null. */
  days: { from: Date; to: Date } | null;
  /** Everything else, answered from the rows. */
  raw: Window[];
}

export function splitWindow(w: Window, now: Date): WindowSplit {
  const firstFull = Math.ceil(w.since.getTime() / DAY_MS) * DAY_MS;
  const closedEnd = utcDayStart(new Date(now.getTime() - CLOSE_GRACE_MS)).getTime();
  const lastFull = Math.min(utcDayStart(w.until).getTime(), closedEnd);
  if (firstFull >= lastFull) return { days: null, raw: [w] };
  const raw: Window[] = [];
  if (w.since.getTime() < firstFull) raw.push({ since: w.since, until: new Date(firstFull) });
  if (lastFull < w.until.getTime()) raw.push({ since: new Date(lastFull), until: w.until });
  return { days: { from: new Date(firstFull), to: new Date(lastFull) }, raw };
}

async function ensureDays(pool: Pool, from: string, to: string, count: number): Promise<void> {
  if ((await materializedDayCount(pool, from, to)) === count) return;
  await materializeDays(pool, from, to);
}

/** The whole months of the day range [from, to), as 'YYYY-MM-01' bounds, or null. */
export function wholeMonths(
  from: Date,
  to: Date,
): { from: string; to: string; count: number } | null {
  const first = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), 1));
  if (first.getTime() < from.getTime()) first.setUTCMonth(first.getUTCMonth() + 1);
  const end = new Date(Date.UTC(to.getUTCFullYear(), to.getUTCMonth(), 1));
  const count =
    (end.getUTCFullYear() - first.getUTCFullYear()) * 12 + end.getUTCMonth() - first.getUTCMonth();
  return count > 0 ? { from: utcDay(first), to: utcDay(end), count } : null;
}

/** Sums the whole months of the range once (their days are materialized first). */
async function ensureMonths(pool: Pool, d: { from: Date; to: Date }): Promise<void> {
  const m = wholeMonths(d.from, d.to);
  if (!m || (await materializedMonthCount(pool, m.from, m.to)) === m.count) return;
  await materializeMonths(pool, m.from, m.to);
}

function dayRange(d: { from: Date; to: Date }) {
  return {
    from: utcDay(d.from),
    to: utcDay(d.to),
    count: Math.round((d.to.getTime() - d.from.getTime()) / DAY_MS),
  };
}

/**
 * Terminal payments (by finalized_at), succeeded refunds (by succeeded_at), the ledger's
 * sums (by occurred_at) and payments still initiated (by created_at) of the window.
 */
export async function windowTotals(
  pool: Pool,
  w: Window,
  mode: Mode | null,
  now: Date,
): Promise<GroupTotal[]> {
  const split = splitWindow(w, now);
  const parts: Promise<GroupTotal[]>[] = [];
  if (split.days) {
    const r = dayRange(split.days);
    await ensureDays(pool, r.from, r.to, r.count);
    await ensureMonths(pool, split.days);
    parts.push(rollupTotals(pool, r.from, r.to, mode));
  }
  for (const raw of split.raw) {
    parts.push(
      terminalPaymentTotals(pool, raw, mode),
      succeededRefundTotals(pool, raw, mode),
      ledgerTotals(pool, raw, mode),
      initiatedTotals(pool, raw, mode),
    );
  }
  return (await Promise.all(parts)).flat();
}

/** Succeeded payments per UTC day and currency of the window. */
export async function windowSucceededByDay(
  pool: Pool,
  w: Window,
  mode: Mode | null,
  now: Date,
): Promise<DayTotal[]> {
  const split = splitWindow(w, now);
  const parts: Promise<DayTotal[]>[] = [];
  if (split.days) {
    const r = dayRange(split.days);
    await ensureDays(pool, r.from, r.to, r.count);
    parts.push(rollupByDay(pool, r.from, r.to, mode));
  }
  for (const raw of split.raw) parts.push(succeededByDay(pool, raw, mode));
  // A day split between the rollup and the rows (never in practice: splits are at midnight)
  // would appear twice; merge by key.
  const merged = new Map<string, DayTotal>();
  for (const t of (await Promise.all(parts)).flat()) {
    const k = `${t.day} ${t.currency}`;
    const m = merged.get(k);
    merged.set(
      k,
      m ? { ...m, n: m.n + t.n, minor: (BigInt(m.minor) + BigInt(t.minor)).toString() } : t,
    );
  }
  return [...merged.values()];
}
