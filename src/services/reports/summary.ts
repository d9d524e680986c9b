/**
 * The operator's figures (docs/api.md#admin-api, #summary): summary and timeseries (the lists
 * and the payment detail are lists.ts and paymentDetail.ts beside this). Figures are computed from the records at request time, so they always agree
 * with the payments and refunds the rest of the gateway writes.
 */
import { appNames, type GroupTotal } from '../../db/reports.js';
import type { Pool } from '../../db/pool.js';
import { DAY_MS, utcDay, utcDayStart, type Window } from '../../domain/adminQuery.js';
import { CURRENCY_EXPONENT } from '../../domain/money.js';
import { PROVIDERS, type Mode } from '../../domain/types.js';
import { windowSucceededByDay, windowTotals } from '../rollup.js';

export const KNOWN_CURRENCIES = Object.keys(CURRENCY_EXPONENT).sort();

/** A sum of minor units: exact at any size; written as a JSON integer by exactJson (D14). */
export type Minor = bigint;

export interface Figures {
  succeeded_count: number;
  succeeded_minor: Minor;
  refunded_count: number;
  refunded_minor: Minor;
  /** The sum of the ledger (docs/api.md#ledger): every movement of money in and out. */
  net_minor: Minor;
  /** What disputes took back, net of the disputes won. */
  disputed_minor: Minor;
  failed_count: number;
  canceled_count: number;
  initiated_count: number;
}

export type CurrencyFigures = { currency: string } & Figures;

export interface AppSummary extends Figures {
  app_id: string;
  app_name: string;
  app_mode: Mode;
  /** The meaningful money figures: by_app's own minor sums add up different currencies. */
  by_currency: CurrencyFigures[];
}

export interface Summary {
  since: string;
  as_of: string;
  mode: Mode | '';
  by_app: AppSummary[];
  by_provider: ({ provider: string } & Figures)[];
  by_currency: CurrencyFigures[];
}

function zero(): Figures {
  return {
    succeeded_count: 0,
    succeeded_minor: 0n,
    refunded_count: 0,
    refunded_minor: 0n,
    net_minor: 0n,
    disputed_minor: 0n,
    failed_count: 0,
    canceled_count: 0,
    initiated_count: 0,
  };
}

function add(f: Figures, g: GroupTotal): void {
  const minor = BigInt(g.minor);
  switch (g.status) {
    case 'succeeded':
      f.succeeded_count += g.n;
      f.succeeded_minor += minor;
      break;
    case 'refunded':
      f.refunded_count += g.n;
      f.refunded_minor += minor;
      break;
    case 'failed':
      f.failed_count += g.n;
      break;
    case 'canceled':
      f.canceled_count += g.n;
      break;
    case 'initiated':
      f.initiated_count += g.n;
      break;
    // The net is the ledger's sum, never succeeded minus refunded: late charges, their
    // refunds and disputes move money that no payment status shows (D16).
    case 'net':
      f.net_minor += minor;
      break;
    case 'disputed':
      f.disputed_minor += minor;
      break;
  }
}

function isEmpty(f: Figures): boolean {
  return (
    f.succeeded_count + f.refunded_count + f.failed_count + f.canceled_count + f.initiated_count ===
      0 &&
    f.net_minor === 0n &&
    f.disputed_minor === 0n
  );
}

function entry<K extends string>(
  map: Map<string, Figures>,
  key: string,
  name: K,
): Record<K, string> & Figures {
  return { [name]: key, ...(map.get(key) ?? zero()) } as Record<K, string> & Figures;
}

function bucket(map: Map<string, Figures>, key: string): Figures {
  let f = map.get(key);
  if (!f) {
    f = zero();
    map.set(key, f);
  }
  return f;
}

/**
 * Totals of the window [since, until): succeeded, failed and canceled payments on the time
 * they reached that status (finalized_at), refunds on the time they succeeded, payments still
 * initiated on the time they were created. by_app lists every app of the mode (all apps
 * without a filter) plus any app with figures; by_provider and by_currency list every known
 * provider and currency, zeros included.
 */
export async function summary(db: Pool, w: Window, mode: Mode | '', asOf: Date): Promise<Summary> {
  const filter = mode === '' ? null : mode;
  const [totals, apps] = await Promise.all([windowTotals(db, w, filter, asOf), appNames(db)]);
  const byApp = new Map<string, { all: Figures; cur: Map<string, Figures> }>();
  const byProvider = new Map<string, Figures>();
  const byCurrency = new Map<string, Figures>();
  for (const g of totals) {
    let a = byApp.get(g.app_id);
    if (!a) {
      a = { all: zero(), cur: new Map() };
      byApp.set(g.app_id, a);
    }
    add(a.all, g);
    add(bucket(a.cur, g.currency), g);
    add(bucket(byProvider, g.provider), g);
    add(bucket(byCurrency, g.currency), g);
  }
  const appList = apps
    .filter((a) => filter === null || a.mode === filter || byApp.has(a.id))
    .map((a): AppSummary => {
      const figures = byApp.get(a.id);
      const cur = figures?.cur ?? new Map<string, Figures>();
      return {
        app_id: a.id,
        app_name: a.name,
        app_mode: a.mode,
        ...(figures?.all ?? zero()),
        by_currency: [...cur.keys()]
          .sort()
          .filter((c) => !isEmpty(cur.get(c) as Figures))
          .map((c) => entry(cur, c, 'currency')),
      };
    });
  const providers = [...new Set([...PROVIDERS, ...byProvider.keys()])].sort();
  const currencies = [...new Set([...KNOWN_CURRENCIES, ...byCurrency.keys()])].sort();
  return {
    since: w.since.toISOString(),
    as_of: asOf.toISOString(),
    mode,
    by_app: appList,
    by_provider: providers.map((p) => entry(byProvider, p, 'provider')),
    by_currency: currencies.map((c) => entry(byCurrency, c, 'currency')),
  };
}

export interface Timeseries {
  days: number;
  mode: Mode | '';
  buckets: { day: string; currency: string; succeeded_count: number; succeeded_minor: Minor }[];
}

/**
 * Succeeded payments per UTC day (finalized_at) and currency over the last `days` calendar
 * days including today. Every day appears for every known currency (and any other currency
 * with payments in the window), zeros included, ordered by day then currency.
 */
export async function timeseries(
  db: Pool,
  days: number,
  mode: Mode | '',
  now: Date,
): Promise<Timeseries> {
  const first = utcDayStart(now).getTime() - (days - 1) * DAY_MS;
  const rows = await windowSucceededByDay(
    db,
    { since: new Date(first), until: now },
    mode === '' ? null : mode,
    now,
  );
  const found = new Map(rows.map((r) => [`${utcDay(new Date(r.day * DAY_MS))} ${r.currency}`, r]));
  const currencies = [...new Set([...KNOWN_CURRENCIES, ...rows.map((r) => r.currency)])].sort();
  const buckets: Timeseries['buckets'] = [];
  for (let i = 0; i < days; i++) {
    const day = utcDay(new Date(first + i * DAY_MS));
    for (const currency of currencies) {
      const r = found.get(`${day} ${currency}`);
      buckets.push({
        day,
        currency,
        succeeded_count: r?.n ?? 0,
        succeeded_minor: BigInt(r?.minor ?? '0'),
      });
    }
  }
  return { days, mode, buckets };
}
