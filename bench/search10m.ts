/**
 * Every admin payment search at ten million payments (issue 29): each filter alone, the
 * combinations that match nothing or almost nothing (the worst case of a newest-first page:
 * an index read in date order finds no row to stop at), text searches matching nothing and
 * matching every payment, deep cursor pages. The gateway runs as its own process; each
 * request is sent over real HTTP one after the other after a warm-up; p50/p99 in ms.
 *
 *   BENCH_SEARCH_DB=postgres://postgres@127.0.0.1:5432/paygate_tenmillion npm run bench -- search10m
 *   BENCH_SEARCH_DB=<url> tsx bench/search10m.ts     (alone; writes bench/results/search10m-<time>.json)
 *
 * BENCH_SEARCH_DB is a database seeded by bench/seed-million.ts (10,000,000 payments: about
 * 25 minutes on this machine). Without it the scenario seeds its own fresh database with
 * BENCH_SEARCH_PAYMENTS payments (default 10,000,000). BENCH_SEARCH_REQUESTS (per search,
 * default 100) and BENCH_SEARCH_CASE_SECONDS (a search stops early once it took this long,
 * default 30, so a slow search costs minutes, not hours; its request count is reported).
 * BENCH_BEFORE_DIR=<another checkout> times that version too, on the same database,
 * interleaved search by search (before and after of docs/performance.md). Then each
 * search's list statement is run under EXPLAIN (ANALYZE, BUFFERS) before and after this
 * version's rewrites: PostgreSQL's own time and the pages it read, which the load of the
 * shared machine does not change. BENCH_SEARCH_STATEMENTS_ONLY=1: only that part.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import os from 'node:os';
import { ADMIN_TOKEN, MASTER_KEY, machine, startGatewayProcess, startProcess } from './lib/env.js';
import { DEFAULT_SEED, seedMillion } from './seed-million.js';
import { followAll, type FollowTiming } from './lib/searchFollow.js';
import { planOf, type SearchPlan } from './lib/searchPlan.js';

export interface SearchTiming {
  path: string;
  requests: number;
  rows: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /** The answer's next_before was set on a page shorter than limit: it stopped at its bound. */
  stopped?: boolean;
  /** Why the search failed (the gateway closed the request), when it did. */
  error?: string;
}

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round((sorted[Math.max(0, i)] ?? 0) * 100) / 100;
}

async function timeSearch(
  base: string,
  path: string,
  n: number,
  budgetMs: number,
): Promise<SearchTiming> {
  const get = async () => {
    const res = await fetch(base + path, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    }).catch((err: unknown) => {
      // The gateway closes a request it has worked on too long: that search failed.
      throw new Error(`${path}: ${String(err)}`);
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text}`);
    const body = JSON.parse(text) as { payments: unknown[]; next_before?: string | null };
    const limit = Number(new URL(path, 'http://x').searchParams.get('limit') ?? 100);
    stopped = (body.next_before ?? null) !== null && body.payments.length < limit;
    return body.payments.length;
  };
  let stopped = false;
  const started = performance.now();
  for (let i = 0; i < Math.min(10, n); i++) {
    await get();
    if (performance.now() - started > budgetMs / 3) break;
  }
  const times: number[] = [];
  let rows = 0;
  const timed = performance.now();
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    rows = await get();
    times.push(performance.now() - t0);
    if (performance.now() - timed > budgetMs && times.length >= 3) break;
  }
  times.sort((a, b) => a - b);
  return {
    path,
    requests: times.length,
    rows,
    p50_ms: percentile(times, 50),
    p99_ms: percentile(times, 99),
    max_ms: Math.round((times[times.length - 1] ?? 0) * 100) / 100,
    stopped,
  };
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/** The searches, with the seed's values (bench/seed-million.ts decides every row by g). */
async function searches(url: string): Promise<[string, string][]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    // Pages deep in the list: the payment half a year back, and the oldest one.
    const at = async (sql: string) => (await c.query<{ id: string }>(sql)).rows[0]?.id ?? '';
    const middle = await at(
      `SELECT id FROM payments WHERE created_at < now() - interval '182 days'
       ORDER BY created_at DESC, id DESC LIMIT 1`,
    );
    const oldest = await at(`SELECT id FROM payments ORDER BY created_at, id LIMIT 1`);
    const seedId = (g: number) => createHash('md5').update(`seed-payment-${g}`).digest('hex');
    const now = Date.now();
    const lastWeek = `created_from=${day(new Date(now - 7 * 86_400_000))}`;
    const oneDay = `created_from=${day(new Date(now - 100 * 86_400_000))}&created_to=${day(new Date(now - 99 * 86_400_000))}`;
    const oneMonth = `created_from=${day(new Date(now - 130 * 86_400_000))}&created_to=${day(new Date(now - 100 * 86_400_000))}`;
    const email = 'q=buyer%40example.com';
    const p = '/admin/payments?';
    return [
      ['first page', '/admin/payments'],
      ['mode=live', `${p}mode=live`],
      ['status=succeeded', `${p}status=succeeded`],
      ['status=failed', `${p}status=failed`],
      ['status=canceled', `${p}status=canceled`],
      ['status=initiated', `${p}status=initiated`],
      ['app_id', `${p}app_id=app_seed_live_a`],
      ['created one day', `${p}${oneDay}`],
      ['created one month', `${p}${oneMonth}`],
      ['created range, no row', `${p}created_from=2020-01-01&created_to=2020-02-01`],
      ['amount range, no row', `${p}amount_min=1000000&amount_max=2000000`],
      ['amount_min high (few rows)', `${p}amount_min=999900`],
      ['amount_max low (few rows)', `${p}amount_max=150`],
      ['amount band 10000-20000', `${p}amount_min=10000&amount_max=20000`],
      ['amount_min wide (half)', `${p}amount_min=500000`],
      ['q=email, every payment', `${p}${email}`],
      ['q=external_user_id (200 rows)', `${p}q=buyer-4242`],
      ['q=id prefix, 10 chars', `${p}q=${seedId(424242).slice(0, 10)}`],
      ['q=id prefix, 8 chars', `${p}q=${seedId(424242).slice(0, 8)}`],
      ['q=id prefix, no match', `${p}q=0000000000`],
      ['q=provider_ref', `${p}q=seed-4242424`],
      ['q=invoice number, none', `${p}q=INV-000001`],
      ['q=text, no match', `${p}q=nobody%40example.com`],
      ['mode=live + app of test mode (none)', `${p}mode=live&app_id=app_seed_test_a`],
      ['status=initiated + mode=live + last week', `${p}status=initiated&mode=live&${lastWeek}`],
      [
        'status=failed + app_id + one month',
        `${p}status=failed&app_id=app_seed_live_a&${oneMonth}`,
      ],
      ['status=failed + amount, no row', `${p}status=failed&amount_min=1000000`],
      ['app_id + amount_min high', `${p}app_id=app_seed_live_a&amount_min=999000`],
      // The seed's initiated payments are never idr_psp (g % 100 >= 95 means g % 10 >= 5), so
      // never over 49,999: each filter matches many, together nothing.
      ['status=initiated + amount_min 100000 (none)', `${p}status=initiated&amount_min=100000`],
      [
        'mode=live + amount_min 100000 + initiated',
        `${p}mode=live&status=initiated&amount_min=100000`,
      ],
      [
        'status=initiated + amount, none + last week',
        `${p}status=initiated&amount_min=100000&${lastWeek}`,
      ],
      [
        'app_id + status=initiated + amount, none',
        `${p}app_id=app_seed_live_a&status=initiated&amount_min=100000`,
      ],
      ['one month + amount_max low', `${p}${oneMonth}&amount_max=150`],
      ['one day + amount, no row', `${p}${oneDay}&amount_min=1000000`],
      ['q=email + amount_min high', `${p}${email}&amount_min=999900`],
      ['q=email + amount, no row', `${p}${email}&amount_min=1000000`],
      ['q=email + status=initiated + one day', `${p}${email}&status=initiated&${oneDay}`],
      ['q=email + mode=live + app of test mode', `${p}${email}&mode=live&app_id=app_seed_test_a`],
      [
        'q=email + status=initiated + amount, none',
        `${p}${email}&status=initiated&amount_min=100000`,
      ],
      ['q=external_user_id + amount, none', `${p}q=buyer-4242&amount_min=1000000`],
      [
        'q, app_id, status, amount_min together',
        `${p}q=buyer-4242&app_id=app_seed_test_a&status=succeeded&amount_min=100`,
      ],
      ['deep page (half a year back)', `${p}before=${middle}`],
      ['deep page + status=failed', `${p}before=${middle}&status=failed`],
      ['deep page + q=email', `${p}before=${middle}&${email}`],
      ['deep page + amount, no row', `${p}before=${middle}&amount_min=1000000`],
      ['after the oldest (empty page)', `${p}before=${oldest}`],
      ['limit=1000', `${p}limit=1000`],
      ['limit=1000 + status=initiated', `${p}limit=1000&status=initiated`],
    ];
  } finally {
    await c.end();
  }
}

export async function benchSearchOn(
  url: string,
  opts: {
    seedPayments: number | null;
    requests: number;
    caseSeconds: number;
    beforeDir?: string;
    statementsOnly?: boolean;
    /** Searches of the list to leave out over HTTP (BENCH_SEARCH_SKIP: resume a run). */
    skip: number;
    /** How many searches after those (BENCH_SEARCH_COUNT, default all). */
    count: number;
  },
): Promise<Record<string, unknown>> {
  const seeded =
    opts.seedPayments === null
      ? 'given'
      : await seedMillion(
          url,
          { ...DEFAULT_SEED, payments: opts.seedPayments, refunds: opts.seedPayments / 10 },
          (m) => console.log(`[seed] ${m}`),
        );
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const size = (
    await c.query<{ n: string; bytes: string }>(
      `SELECT reltuples::bigint::text AS n, pg_total_relation_size('payments')::text AS bytes
       FROM pg_class WHERE oid = 'payments'::regclass`,
    )
  ).rows[0]!;
  await c.end();
  const cases = await searches(url);
  const timings: Record<string, SearchTiming> = {};
  const beforeTimings: Record<string, SearchTiming> = {};
  const follows: Record<string, FollowTiming> = {};
  if (!opts.statementsOnly) await timeOverHttp();
  async function timeOverHttp() {
    const gw = await startGatewayProcess(url, { SIMULATORS: 'off' });
    // The version before, from another checkout, on the same database: each search is timed
    // on both, one right after the other (alternating which goes first), so the load of other
    // work on the machine falls on both alike.
    const before = opts.beforeDir
      ? await startProcess(
          ['src/main.ts'],
          { DATABASE_URL: url, ADMIN_TOKEN, MASTER_KEY, PGAPPNAME: 'gateway', SIMULATORS: 'off' },
          '/readyz',
          undefined,
          opts.beforeDir,
        ).catch(async (err: unknown) => {
          await gw.stop();
          throw err;
        })
      : null;
    const budget = opts.caseSeconds * 1000;
    const line = (label: string, t: SearchTiming) =>
      `${label.padEnd(50)} ${String(t.rows).padStart(5)} rows${t.stopped ? ' +next' : '      '}  p50 ${String(t.p50_ms).padStart(8)} ms  p99 ${String(
        t.p99_ms,
      ).padStart(8)} ms  (${t.requests} requests)${t.p99_ms > 50 ? '  OVER 50 ms' : ''}`;
    try {
      for (const [i, [name, path]] of cases.entries()) {
        if (i < opts.skip || i >= opts.skip + opts.count) continue;
        const time = (base: string) =>
          timeSearch(base, path, opts.requests, budget).catch((err: unknown): SearchTiming => ({
            path,
            requests: 0,
            rows: 0,
            p50_ms: Infinity,
            p99_ms: Infinity,
            max_ms: Infinity,
            error: String(err),
          }));
        if (before && i % 2 === 0) beforeTimings[name] = await time(before.url);
        timings[name] = await time(gw.url);
        if (before && i % 2 === 1) beforeTimings[name] = await time(before.url);
        if (before) console.log(line(`${name} (before)`, beforeTimings[name]!));
        console.log(line(name, timings[name]));
      }
      // The worst searches followed to their end by next_before (issue 29).
      if (!opts.beforeDir && opts.skip === 0) {
        for (const path of [
          '/admin/payments?status=initiated&amount_min=100000',
          '/admin/payments?q=buyer%40example.com&status=initiated&amount_min=100000',
        ]) {
          const f = await followAll(gw.url, path);
          follows[path] = f;
          console.log(
            `followed ${path}: ${f.pages} pages${f.complete ? ' (the end)' : ' (stopped there)'}, ${f.rows} rows, ${f.total_ms} ms in all; a page p50 ${f.p50_ms} ms p99 ${f.p99_ms} ms max ${f.max_ms} ms (load ${os.loadavg()[0]!.toFixed(1)})`,
          );
        }
      }
    } finally {
      await gw.stop();
      await before?.stop();
    }
  }
  // The statement itself, warm (second run), before and after this version's rewrites.
  const plans: Record<string, { before: SearchPlan; after: SearchPlan }> = {};
  const pc = new pg.Client({ connectionString: url });
  await pc.connect();
  try {
    for (const [i, [name, path]] of cases.entries()) {
      if (i < opts.skip || i >= opts.skip + opts.count) continue;
      // A statement over the 60 s limit is recorded as -1 ms, -1 pages.
      const run = (viaService: boolean) =>
        planOf(pc, path, viaService).catch((): SearchPlan => ({ ms: -1, pages: -1 }));
      const first = await run(false);
      const b = first.ms < 0 ? first : await run(false);
      await run(true);
      plans[name] = { before: b, after: await run(true) };
      console.log(
        `${name.padEnd(50)} statement before ${String(b.ms).padStart(9)} ms ${String(b.pages).padStart(8)} pages, after ${String(plans[name].after.ms).padStart(9)} ms ${String(plans[name].after.pages).padStart(8)} pages`,
      );
    }
  } finally {
    await pc.end();
  }
  const over = Object.entries(timings).filter(([, t]) => t.p99_ms > 50);
  if (!opts.statementsOnly)
    console.log(`${over.length} of ${Object.keys(timings).length} searches timed over 50 ms p99`);
  return {
    seed: seeded,
    payments_estimate: Number(size.n),
    payments_total_bytes: Number(size.bytes),
    load_average: os.loadavg(),
    over_50ms_p99: over.map(([name]) => name),
    timings,
    follows,
    statements: plans,
    ...(opts.beforeDir ? { before_dir: opts.beforeDir, before_timings: beforeTimings } : {}),
  };
}

function options() {
  const given = process.env.BENCH_SEARCH_DB;
  return {
    given,
    seedPayments: given ? null : Number(process.env.BENCH_SEARCH_PAYMENTS ?? 10_000_000),
    requests: Number(process.env.BENCH_SEARCH_REQUESTS ?? 100),
    caseSeconds: Number(process.env.BENCH_SEARCH_CASE_SECONDS ?? 30),
    beforeDir: process.env.BENCH_BEFORE_DIR,
    statementsOnly: process.env.BENCH_SEARCH_STATEMENTS_ONLY === '1',
    skip: Number(process.env.BENCH_SEARCH_SKIP ?? 0),
    count: Number(process.env.BENCH_SEARCH_COUNT ?? Infinity),
  };
}

/** The bench/run.ts scenario: BENCH_SEARCH_DB, or the fresh database seeded here. */
export async function benchSearch10m(db: { url: string }): Promise<Record<string, unknown>> {
  const o = options();
  return benchSearchOn(o.given ?? db.url, o);
}

async function main() {
  const o = options();
  if (!o.given) throw new Error('alone it needs BENCH_SEARCH_DB=<seeded database url>');
  const result = await benchSearchOn(o.given, o);
  const out = { date: new Date().toISOString(), machine: machine(), search10m: result };
  mkdirSync('bench/results', { recursive: true });
  const file = `bench/results/search10m-${out.date.replace(/[:.]/g, '-')}.json`;
  writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
  console.log(`results written to ${file}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
