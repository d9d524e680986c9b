/**
 * Every admin search at ten million payments, over HTTP (issue 29): each filter of
 * GET /admin/payments alone with each of its values, every pair of filters (every value of
 * one with every value of another), the triples that match (almost) nothing (a status with
 * an amount range, and a third filter), the searches of the earlier runs; and the other
 * admin lists with filters (ledger, refunds, audit, disputes): each filter alone and every
 * pair. The gateway runs as its own process on the given database, read-only
 * (bench/lib/searchGateway.ts: no migration, no worker, every connection read-only), and each
 * search is sent over real HTTP one after the other: a warm-up, then BENCH_SEARCH_REQUESTS
 * (default 50) timed requests; p50 and p99 of the full request as the client sees it, and in
 * the same run the time the request waited for PostgreSQL (p50/p99), measured inside the
 * gateway; for the payment searches also the list statement under EXPLAIN (ANALYZE, BUFFERS)
 * (warm: PostgreSQL's own time, and the pages it read).
 *
 *   BENCH_SEARCH_DB=postgres://postgres@127.0.0.1:5432/paygate_tenmillion npx tsx bench/search10m.ts
 *   BENCH_SEARCH_DB=<url> npm run bench -- search10m
 *
 * BENCH_SEARCH_DB: a database seeded by bench/seed-million.ts and migrated to this version
 * (the benchmark itself never writes to it). Without it, the bench/run.ts scenario seeds its
 * own fresh database with BENCH_SEARCH_PAYMENTS payments (default 10,000,000).
 * BENCH_SEARCH_REQUESTS (timed requests per search, default 50), BENCH_SEARCH_WARMUP (default
 * 5), BENCH_SEARCH_CASE_SECONDS (a search stops early once its timed requests took this long,
 * default 30; its request count is reported), BENCH_SEARCH_MATCH (a regular expression: only
 * the searches whose name or path matches), BENCH_SEARCH_EXPLAIN=0 (no EXPLAIN part),
 * BENCH_SEARCH_FOLLOW=1 (also follow the two worst searches by next_before to their end),
 * BENCH_SEARCH_TABLE_ROWS (rows of the printed table, default 40). Prints the searches worst
 * p99 first, the most CPU per request, the slowest statements, the worst of each list, and
 * `uptime` at the start and end; writes every search to bench/results/search10m-<time>.json.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import pg from 'pg';
import { ADMIN_TOKEN, MASTER_KEY, machine, startProcess, type Proc } from './lib/env.js';
import { DEFAULT_SEED, seedMillion } from './seed-million.js';
import { followAll, type FollowTiming } from './lib/searchFollow.js';
import { planOf, type SearchPlan } from './lib/searchPlan.js';

export interface SearchTiming {
  group: string;
  name: string;
  path: string;
  requests: number;
  rows: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /** Time the request waited for PostgreSQL, measured in the gateway (same requests). */
  db_p50_ms: number;
  db_p99_ms: number;
  /** The answer's next_before was set on a page shorter than limit: it stopped at its bound. */
  stopped?: boolean;
  /** CPU per timed request, ms: the gateway process, and its PostgreSQL backends. */
  gateway_cpu_ms: number;
  pg_cpu_ms: number;
  /** Load average (1 minute) when the search was timed. */
  load: number;
  /** The list statement under EXPLAIN ANALYZE (payment searches). */
  statement?: SearchPlan;
  error?: string;
}

export interface SearchCase {
  group: 'payments' | 'ledger' | 'refunds' | 'audit' | 'disputes';
  name: string;
  path: string;
}

/** The benchmark gateway's connections, told apart from other gateways on the server. */
const APP_NAME = 'search10m-bench';

const round = (x: number) => Math.round(x * 100) / 100;

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return round(sorted[Math.max(0, i)] ?? 0);
}

const day = (d: Date) => d.toISOString().slice(0, 10);

type Dimension = [label: string, query: string][];

/** Each value alone, and every pair of values of two different dimensions. */
function singlesAndPairs(dims: Record<string, Dimension>): [string, string][] {
  const names = Object.keys(dims);
  const out: [string, string][] = [];
  for (const d of names) for (const v of dims[d]!) out.push(v);
  for (let i = 0; i < names.length; i++)
    for (let j = i + 1; j < names.length; j++)
      for (const [la, qa] of dims[names[i]!]!)
        for (const [lb, qb] of dims[names[j]!]!) out.push([`${la} + ${lb}`, `${qa}&${qb}`]);
  return out;
}

/** The searches, with the seed's values (bench/seed-million.ts decides every row by g). */
export async function searchCases(url: string): Promise<SearchCase[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('SET default_transaction_read_only = on');
    const at = async (sql: string) => (await c.query<{ id: string }>(sql)).rows[0]?.id ?? '';
    // Pages deep in the lists: half a year back.
    const middle = await at(
      `SELECT id FROM payments WHERE created_at < now() - interval '182 days'
       ORDER BY created_at DESC, id DESC LIMIT 1`,
    );
    const oldest = await at(`SELECT id FROM payments ORDER BY created_at, id LIMIT 1`);
    const ledgerMiddle = await at(
      `SELECT id FROM ledger_entries WHERE occurred_at < now() - interval '182 days'
       ORDER BY occurred_at DESC, id DESC LIMIT 1`,
    );
    const refundMiddle = await at(
      `SELECT id FROM refunds WHERE created_at < now() - interval '182 days'
       ORDER BY created_at DESC, id DESC LIMIT 1`,
    );
    const auditMiddle = await at(
      `SELECT id::text AS id FROM audit_log ORDER BY id LIMIT 1 OFFSET 50000`,
    );
    const seedId = (g: number) => createHash('md5').update(`seed-payment-${g}`).digest('hex');
    const now = Date.now();
    const ago = (days: number) => day(new Date(now - days * 86_400_000));
    const lastWeek = `created_from=${ago(7)}`;
    const oneDay = `created_from=${ago(100)}&created_to=${ago(99)}`;
    const oneMonth = `created_from=${ago(130)}&created_to=${ago(100)}`;
    const email = 'q=buyer%40example.com';

    const payments: Record<string, Dimension> = {
      q: [
        ['q=email (every payment)', email],
        ['q=external_user_id', 'q=buyer-4242'],
        ['q=id prefix', `q=${seedId(424242).slice(0, 10)}`],
        ['q=provider_ref', 'q=seed-4242424'],
        ['q=no match', 'q=nobody%40example.com'],
      ],
      app: [
        ['app_id live', 'app_id=app_seed_live_a'],
        ['app_id test', 'app_id=app_seed_test_a'],
      ],
      status: ['succeeded', 'failed', 'canceled', 'initiated'].map((s) => [
        `status=${s}`,
        `status=${s}`,
      ]),
      mode: [
        ['mode=live', 'mode=live'],
        ['mode=test', 'mode=test'],
      ],
      created: [
        ['last week', lastWeek],
        ['one day', oneDay],
        ['one month', oneMonth],
        ['created, no row', 'created_from=2020-01-01&created_to=2020-02-01'],
      ],
      amount: [
        ['amount_min 999900 (few)', 'amount_min=999900'],
        ['amount_max 150 (few)', 'amount_max=150'],
        ['amount 10000-20000', 'amount_min=10000&amount_max=20000'],
        ['amount_min 100000', 'amount_min=100000'],
        ['amount, no row', 'amount_min=1000000&amount_max=2000000'],
      ],
      before: [['deep page', `before=${middle}`]],
      limit: [['limit=1000', 'limit=1000']],
    };
    const p: [string, string][] = [['first page', ''], ...singlesAndPairs(payments)];
    // Triples: a status with an amount range that together match (almost) nothing (the
    // seed's initiated payments are never idr_psp, so never over 49,999), and a third filter.
    for (const [ls, qs] of [payments.status![1]!, payments.status![3]!])
      for (const [la, qa] of payments.amount!)
        for (const [lt, qt] of [
          payments.mode![0]!,
          payments.app![0]!,
          payments.q![0]!,
          payments.q![1]!,
          payments.created![0]!,
          payments.created![2]!,
          payments.before![0]!,
          payments.limit![0]!,
        ])
          p.push([`${ls} + ${la} + ${lt}`, `${qs}&${qa}&${qt}`]);
    p.push(
      [
        'q=email + app_id live + status=initiated + amount_min 100000 + last week',
        `${email}&app_id=app_seed_live_a&status=initiated&amount_min=100000&${lastWeek}`,
      ],
      [
        'q=external_user_id + app_id test + status=succeeded + amount_min 100',
        'q=buyer-4242&app_id=app_seed_test_a&status=succeeded&amount_min=100',
      ],
      ['mode=live + app_id test + q=email (none)', `${email}&mode=live&app_id=app_seed_test_a`],
      ['after the oldest (empty page)', `before=${oldest}`],
      [
        'limit=1000 + q=email + status=initiated + one month',
        `limit=1000&${email}&status=initiated&${oneMonth}`,
      ],
    );

    const ledger: Record<string, Dimension> = {
      provider: ['idr_psp', 'card_psp', 'wallet_psp'].map((v) => [
        `provider=${v}`,
        `provider=${v}`,
      ]),
      currency: ['IDR', 'GBP'].map((v) => [`currency=${v}`, `currency=${v}`]),
      app: [
        ['app_id live', 'app_id=app_seed_live_a'],
        ['app_id test', 'app_id=app_seed_test_a'],
      ],
      mode: [
        ['mode=live', 'mode=live'],
        ['mode=test', 'mode=test'],
      ],
      type: [
        'charge',
        'refund',
        'dispute',
        'dispute_reversal',
        'late_charge',
        'late_charge_refund',
      ].map((v) => [`type=${v}`, `type=${v}`]),
      window: [
        ['last week', `since=${ago(7)}`],
        ['one day', `since=${ago(100)}&until=${ago(99)}`],
        ['window, no row', 'since=2020-01-01&until=2020-02-01'],
      ],
      before: [['deep page', `before=${ledgerMiddle}`]],
      limit: [['limit=1000', 'limit=1000']],
    };
    const audit: Record<string, Dimension> = {
      action: [
        ['action=payment.sync', 'action=payment.sync'],
        ['action, no row', 'action=operator.create'],
      ],
      target: [
        ['target_id payment', `target_id=${seedId(4242)}`],
        ['target_id app', 'target_id=app_seed_test_a'],
      ],
      actor: [
        ['actor=root', 'actor=root'],
        ['actor=system', 'actor=system'],
      ],
      before: [['deep page', `before=${auditMiddle}`]],
      limit: [['limit=1000', 'limit=1000']],
    };
    const disputes: Record<string, Dimension> = {
      status: ['open', 'won', 'lost'].map((v) => [`status=${v}`, `status=${v}`]),
      provider: ['idr_psp', 'card_psp'].map((v) => [`provider=${v}`, `provider=${v}`]),
      app: [['app_id live', 'app_id=app_seed_live_a']],
      mode: [['mode=test', 'mode=test']],
      limit: [['limit=1000', 'limit=1000']],
    };
    const refunds: Record<string, Dimension> = {
      mode: [
        ['mode=live', 'mode=live'],
        ['mode=test', 'mode=test'],
      ],
      before: [['deep page', `before=${refundMiddle}`]],
      limit: [['limit=1000', 'limit=1000']],
    };
    const cases = (group: SearchCase['group'], list: [string, string][]): SearchCase[] =>
      list.map(([name, q]) => ({
        group,
        name,
        path: `/admin/${group}${q ? `?${q}` : ''}`,
      }));
    const all = [
      ...cases('payments', p),
      ...cases('ledger', [['first page', ''], ...singlesAndPairs(ledger)]),
      ...cases('refunds', [['first page', ''], ...singlesAndPairs(refunds)]),
      ...cases('audit', [['first page', ''], ...singlesAndPairs(audit)]),
      ...cases('disputes', [['first page', ''], ...singlesAndPairs(disputes)]),
    ];
    const seen = new Set<string>();
    return all.filter((s) => !seen.has(s.path) && seen.add(s.path));
  } finally {
    await c.end();
  }
}

/** CPU time (user + system) of these processes so far, ms (/proc, clock ticks of 10 ms). */
function cpuMs(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]);
    } catch {
      // gone
    }
  }
  return ticks * 10;
}

/** The gateway's process and the PostgreSQL backends serving it. */
interface Measured {
  gw: Proc;
  backends: () => Promise<number[]>;
}

async function timeSearch(
  m: Measured,
  s: SearchCase,
  n: number,
  warmup: number,
  budgetMs: number,
): Promise<SearchTiming> {
  const gw = m.gw;
  const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const limit = Number(new URL(s.path, 'http://x').searchParams.get('limit') ?? 100);
  let stopped = false;
  const get = async () => {
    const res = await fetch(gw.url + s.path, { headers });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${res.status} ${text.slice(0, 200)}`);
    const body = JSON.parse(text) as Record<string, unknown>;
    const list = Object.values(body).find(Array.isArray) as unknown[];
    const next = body.next_before;
    stopped = typeof next === 'string' && list.length < limit;
    return list.length;
  };
  const dbTimes = async () => (await (await fetch(`${gw.url}/__bench/db`)).json()) as number[];
  // A search that takes seconds is over the goal by far: one warm-up and one timed request.
  const slow = () => performance.now() - t00 > 1000;
  const t00 = performance.now();
  for (let i = 0; i < warmup && !slow(); i++) await get();
  const warmSlow = slow();
  await dbTimes();
  const times: number[] = [];
  let rows = 0;
  const backends = await m.backends();
  const cpu0 = [cpuMs([gw.pid]), cpuMs(backends)];
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    rows = await get();
    times.push(performance.now() - t0);
    if (warmSlow || (performance.now() - started > budgetMs && times.length >= 3)) break;
  }
  const cpu = [cpuMs([gw.pid]) - cpu0[0]!, cpuMs(backends) - cpu0[1]!];
  const db = (await dbTimes()).sort((a, b) => a - b);
  times.sort((a, b) => a - b);
  return {
    ...s,
    requests: times.length,
    rows,
    p50_ms: percentile(times, 50),
    p99_ms: percentile(times, 99),
    max_ms: round(times[times.length - 1] ?? 0),
    db_p50_ms: percentile(db, 50),
    db_p99_ms: percentile(db, 99),
    stopped,
    gateway_cpu_ms: round(cpu[0]! / times.length),
    pg_cpu_ms: round(cpu[1]! / times.length),
    load: round(os.loadavg()[0]!),
  };
}

const uptime = () => {
  try {
    return execFileSync('uptime', { encoding: 'utf8' }).trim();
  } catch {
    return `load average ${os.loadavg().map(round).join(', ')}`;
  }
};

function table(rows: SearchTiming[]): string {
  const head = `${'search'.padEnd(88)} ${'rows'.padStart(6)}  ${'p50'.padStart(7)} ${'p99'.padStart(7)} ${'max'.padStart(7)}  ${'db p50'.padStart(7)} ${'db p99'.padStart(7)}  ${'stmt'.padStart(7)} ${'pages'.padStart(6)}  ${'cpu gw'.padStart(6)} ${'cpu pg'.padStart(6)}  load`;
  const line = (t: SearchTiming) =>
    `${`${t.group} ${t.name}`.slice(0, 88).padEnd(88)} ${`${t.rows}${t.stopped ? '+' : ''}`.padStart(6)}  ${String(t.p50_ms).padStart(7)} ${String(t.p99_ms).padStart(7)} ${String(t.max_ms).padStart(7)}  ${String(t.db_p50_ms).padStart(7)} ${String(t.db_p99_ms).padStart(7)}  ${String(t.statement?.ms ?? '').padStart(7)} ${String(t.statement?.pages ?? '').padStart(6)}  ${String(t.gateway_cpu_ms).padStart(6)} ${String(t.pg_cpu_ms).padStart(6)}  ${t.load}${t.error ? `  ERROR ${t.error}` : t.p99_ms > 50 ? '  OVER 50 ms' : ''}`;
  return [head, ...rows.map(line)].join('\n');
}

export async function benchSearchOn(
  url: string,
  opts: {
    seedPayments: number | null;
    requests: number;
    warmup: number;
    caseSeconds: number;
    match: RegExp | null;
    explain: boolean;
    follow: boolean;
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
  const cases = (await searchCases(url)).filter(
    (s) => !opts.match || opts.match.test(`${s.group} ${s.name}`) || opts.match.test(s.path),
  );
  const startUptime = uptime();
  console.log(
    `${cases.length} searches, ${opts.warmup} warm-up + ${opts.requests} timed requests each, on ${Number(size.n).toLocaleString('en')} payments; ${startUptime}`,
  );
  const timings: SearchTiming[] = [];
  const follows: Record<string, FollowTiming> = {};
  const gw = await startProcess(
    ['bench/lib/searchGateway.ts'],
    { DATABASE_URL: url, ADMIN_TOKEN, MASTER_KEY, PGAPPNAME: APP_NAME, SIMULATORS: 'off' },
    '/readyz',
  );
  const watcher = new pg.Client({ connectionString: url });
  await watcher.connect();
  const measured: Measured = {
    gw,
    backends: async () =>
      (
        await watcher.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`,
          [APP_NAME],
        )
      ).rows.map((r) => r.pid),
  };
  try {
    for (const [i, s] of cases.entries()) {
      const t = await timeSearch(
        measured,
        s,
        opts.requests,
        opts.warmup,
        opts.caseSeconds * 1000,
      ).catch((err: unknown): SearchTiming => ({
        ...s,
        requests: 0,
        rows: 0,
        p50_ms: Infinity,
        p99_ms: Infinity,
        max_ms: Infinity,
        db_p50_ms: Infinity,
        db_p99_ms: Infinity,
        gateway_cpu_ms: 0,
        pg_cpu_ms: 0,
        load: round(os.loadavg()[0]!),
        error: String(err),
      }));
      timings.push(t);
      if (i % 25 === 0 || t.p99_ms > 50 || t.error)
        console.log(
          `[${i + 1}/${cases.length}] ${s.group} ${s.name}: p50 ${t.p50_ms} p99 ${t.p99_ms} ms (db p99 ${t.db_p99_ms}) load ${t.load}${t.error ? ` ERROR ${t.error}` : ''}`,
        );
    }
    if (opts.follow) {
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
    await watcher.end();
    await gw.stop();
  }
  // The list statement of each payment search under EXPLAIN ANALYZE, warm (second run).
  if (opts.explain) {
    const pc = new pg.Client({ connectionString: url });
    await pc.connect();
    try {
      await pc.query('SET default_transaction_read_only = on');
      for (const t of timings) {
        if (t.group !== 'payments') continue;
        const run = () => planOf(pc, t.path, true).catch((): SearchPlan => ({ ms: -1, pages: -1 }));
        await run();
        t.statement = await run();
      }
    } finally {
      await pc.end();
    }
  }
  const endUptime = uptime();
  const sorted = [...timings].sort((a, b) => b.p99_ms - a.p99_ms);
  console.log(
    `\nEvery search, worst p99 first (ms; rows "+": next_before on a short page; db: time the request waited for PostgreSQL; stmt: EXPLAIN ANALYZE of the list statement, warm, and its pages; cpu: CPU ms per request of the gateway and of its PostgreSQL backends):\n`,
  );
  const shown = Number(process.env.BENCH_SEARCH_TABLE_ROWS ?? 40);
  console.log(table(sorted.slice(0, shown)));
  if (sorted.length > shown) console.log(`... ${sorted.length - shown} more in the results file`);
  // What the load of the machine does not change much: CPU per request, and the statement.
  const cpu = (t: SearchTiming) => t.gateway_cpu_ms + t.pg_cpu_ms;
  console.log(`\nThe 15 searches with the most CPU per request (gateway + PostgreSQL):\n`);
  console.log(table([...timings].sort((a, b) => cpu(b) - cpu(a)).slice(0, 15)));
  console.log(
    `\nThe 15 payment searches with the slowest list statement (EXPLAIN ANALYZE, warm):\n`,
  );
  console.log(
    table(
      timings
        .filter((t) => t.statement)
        .sort((a, b) => b.statement!.ms - a.statement!.ms)
        .slice(0, 15),
    ),
  );
  const over = sorted.filter((t) => t.p99_ms > 50);
  const worst = sorted[0];
  const byGroup = Object.fromEntries(
    [...new Set(timings.map((t) => t.group))].map((g) => {
      const w = sorted.find((t) => t.group === g)!;
      return [
        g,
        { name: w.name, path: w.path, p50_ms: w.p50_ms, p99_ms: w.p99_ms, db_p99_ms: w.db_p99_ms },
      ];
    }),
  );
  const p99s = timings.map((t) => t.p99_ms).sort((a, b) => a - b);
  console.log(
    `\n${timings.length} searches; ${over.length} over 50 ms p99; median of the p99s ${percentile(p99s, 50)} ms; worst: ${worst?.group} ${worst?.name} p50 ${worst?.p50_ms} p99 ${worst?.p99_ms} ms (db p99 ${worst?.db_p99_ms} ms)`,
  );
  for (const [g, w] of Object.entries(byGroup))
    console.log(
      `  worst ${g}: ${w.name}: p50 ${w.p50_ms} p99 ${w.p99_ms} ms (db p99 ${w.db_p99_ms} ms)`,
    );
  console.log(`start: ${startUptime}\nend:   ${endUptime}`);
  return {
    seed: seeded,
    payments_estimate: Number(size.n),
    payments_total_bytes: Number(size.bytes),
    requests: opts.requests,
    warmup: opts.warmup,
    uptime_start: startUptime,
    uptime_end: endUptime,
    searches: timings.length,
    over_50ms_p99: over.map((t) => `${t.group} ${t.name}`),
    worst,
    worst_by_group: byGroup,
    timings,
    follows,
  };
}

function options() {
  const given = process.env.BENCH_SEARCH_DB;
  return {
    given,
    seedPayments: given ? null : Number(process.env.BENCH_SEARCH_PAYMENTS ?? 10_000_000),
    requests: Number(process.env.BENCH_SEARCH_REQUESTS ?? 50),
    warmup: Number(process.env.BENCH_SEARCH_WARMUP ?? 5),
    caseSeconds: Number(process.env.BENCH_SEARCH_CASE_SECONDS ?? 30),
    match: process.env.BENCH_SEARCH_MATCH ? new RegExp(process.env.BENCH_SEARCH_MATCH) : null,
    explain: process.env.BENCH_SEARCH_EXPLAIN !== '0',
    follow: process.env.BENCH_SEARCH_FOLLOW === '1',
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
