/**
 * Query parameters of the operator's read API (docs/api.md#admin-api, #query-parameters). Pure: each parser takes
 * the raw query value and answers the typed value or throws a 400 with a plain-text reason.
 */
import { apiError } from './errors.js';
import { integerParam, integerParamMessage, PARAMS } from './schemas.js';
import { isMode, type Mode } from './types.js';

export const DAY_MS = 86_400_000;

/** docs/api.md#query-parameters: test, sandbox or live filter; empty, absent or unknown is no filter, echoed as "". */
export function resolveMode(raw: string | undefined): Mode | '' {
  return isMode(raw) ? raw : '';
}

/** docs/api.md#query-parameters: days is an integer 1..366, default 30. */
export function parseDays(raw: string | undefined): number {
  const days = integerParam(PARAMS.days, raw, 4);
  if (days === null) throw apiError('invalid', integerParamMessage('days', PARAMS.days));
  return days;
}

/** docs/api.md#query-parameters: limit is an integer 1..1000, default 100. */
export function parseListLimit(raw: string | undefined): number {
  const limit = integerParam(PARAMS.limit, raw);
  if (limit === null) throw apiError('invalid', integerParamMessage('limit', PARAMS.limit));
  return limit;
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/;

function validDate(y: number, m: number, d: number): boolean {
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/**
 * docs/api.md#query-parameters: an RFC 3339 timestamp or a YYYY-MM-DD date (midnight UTC). Years 1970..9999 only, so
 * every accepted value fits PostgreSQL's timestamptz and JavaScript's Date exactly.
 */
export function parseTimestamp(name: string, raw: string | undefined): Date | null {
  if (raw === undefined || raw === '') return null;
  const bad = () =>
    apiError('invalid', `${name} must be an RFC 3339 timestamp or a date YYYY-MM-DD (UTC)`);
  const d = DATE_ONLY.exec(raw);
  if (d) {
    const [y, m, day] = [Number(d[1]), Number(d[2]), Number(d[3])];
    if (y < 1970 || !validDate(y, m, day)) throw bad();
    return new Date(Date.UTC(y, m - 1, day));
  }
  const t = RFC3339.exec(raw);
  if (!t) throw bad();
  const [y, mo, day, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(t[i]));
  if (
    (y as number) < 1970 ||
    !validDate(y as number, mo as number, day as number) ||
    (h as number) > 23 ||
    (mi as number) > 59 ||
    (s as number) > 59 ||
    (t[9] !== undefined && (Number(t[9]) > 23 || Number(t[10]) > 59))
  ) {
    throw bad();
  }
  const ms = Date.parse(raw.toUpperCase());
  if (Number.isNaN(ms)) throw bad();
  return new Date(ms);
}

/** Midnight UTC of the day `t` falls in. */
export function utcDayStart(t: Date): Date {
  return new Date(Math.floor(t.getTime() / DAY_MS) * DAY_MS);
}

export function utcDay(t: Date): string {
  return t.toISOString().slice(0, 10);
}

export interface Window {
  since: Date;
  until: Date;
}

/**
 * The reporting window: [since, until). `since` wins over `days`; `days` N means the last N
 * UTC calendar days including today, so summary totals equal the sum of the timeseries
 * buckets of the same `days`. `until` defaults to now; `days` counts back from it.
 */
export function reportWindow(
  q: { days?: string; since?: string; until?: string },
  now: Date,
): Window {
  const days = parseDays(q.days);
  const since = parseTimestamp('since', q.since);
  const until = parseTimestamp('until', q.until) ?? now;
  const start = since ?? new Date(utcDayStart(until).getTime() - (days - 1) * DAY_MS);
  if (start.getTime() > until.getTime()) throw apiError('invalid', 'since must not be after until');
  return { since: start, until };
}

/**
 * GET /admin/payouts: [since, until), until defaulting to now and since to 30 days before.
 * At most 366 days: a provider searches its history in 31-day windows, one call each.
 */
export function payoutWindow(q: { since?: string; until?: string }, now: Date): Window {
  const until = parseTimestamp('until', q.until) ?? now;
  const since = parseTimestamp('since', q.since) ?? new Date(until.getTime() - 30 * DAY_MS);
  if (since.getTime() > until.getTime()) throw apiError('invalid', 'since must not be after until');
  if (until.getTime() - since.getTime() > 366 * DAY_MS) {
    throw apiError('invalid', 'since and until must be at most 366 days apart');
  }
  return { since, until };
}
