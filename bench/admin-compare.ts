/**
 * The operator's reports before and after a change, interleaved (docs/performance.md, "The
 * ledger"). Two gateways run side by side, each on its own seeded database: "before" from
 * another checkout (a git worktree of the older commit), "after" from this one. For every
 * report and filter combination, each round times BENCH_ADMIN_REQUESTS sequential requests
 * on one version and then the other, alternating which goes first, so load from other work
 * on the machine falls on both alike. p50/p99 are over every sample of every round; the
 * spread of the rounds' own p50s and the load average say how noisy the run was.
 *
 *   BENCH_BEFORE_DIR=/work/wt/preledger BENCH_BEFORE_DB=<url> BENCH_AFTER_DB=<url> \
 *     tsx bench/admin-compare.ts
 *
 * Both databases seeded with bench/seed-million.ts (each migrated by its own checkout).
 * Settings: BENCH_ROUNDS (default 5), BENCH_ADMIN_REQUESTS (per round and side, default 40).
 * Writes bench/results/admin-compare-<time>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { ADMIN_TOKEN, MASTER_KEY, machine, startProcess, type Proc } from './lib/env.js';

type Side = 'before' | 'after';

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round((sorted[Math.max(0, i)] ?? 0) * 100) / 100;
}

/** Every report and filter combination; `afterOnly` where the older version has no such route. */
function reports(now: Date): { name: string; path: string; afterOnly?: boolean }[] {
  const day = (d: number) => new Date(now.getTime() - d * 86_400_000).toISOString();
  // A window that starts and ends inside a day, so both partial days are read from the rows.
  const since = day(90).slice(0, 13) + ':17:00Z';
  const list: { name: string; path: string; afterOnly?: boolean }[] = [];
  for (const days of [1, 7, 30, 366]) {
    list.push({ name: `summary_${days}d`, path: `/admin/summary?days=${days}` });
    for (const mode of ['test', 'sandbox', 'live']) {
      if (days === 30 || days === 366) {
        list.push({
          name: `summary_${days}d_mode_${mode}`,
          path: `/admin/summary?days=${days}&mode=${mode}`,
        });
      }
    }
  }
  list.push(
    { name: 'summary_since_until_90d', path: `/admin/summary?since=${since}&until=${day(0)}` },
    { name: 'summary_since_until_90d_mode_live', path: `/admin/summary?since=${since}&mode=live` },
  );
  for (const days of [7, 30, 366]) {
    list.push({ name: `timeseries_${days}d`, path: `/admin/timeseries?days=${days}` });
  }
  list.push(
    { name: 'timeseries_30d_mode_test', path: '/admin/timeseries?days=30&mode=test' },
    { name: 'timeseries_366d_mode_live', path: '/admin/timeseries?days=366&mode=live' },
    { name: 'balances_all_time', path: '/admin/balances' },
    { name: 'payments_first_page', path: '/admin/payments' },
    { name: 'payments_status_succeeded', path: '/admin/payments?status=succeeded' },
    { name: 'refunds_first_page', path: '/admin/refunds' },
  );
  const ledger: [string, string][] = [
    ['ledger_first_page', ''],
    ['ledger_provider', 'provider=wallet_psp'],
    ['ledger_currency', 'currency=USD'],
    ['ledger_app', 'app_id=app_seed_live_a'],
    ['ledger_mode', 'mode=sandbox'],
    ['ledger_type_dispute', 'type=dispute'],
    ['ledger_type_late_charge_refund', 'type=late_charge_refund'],
    ['ledger_since_until', `since=${day(200)}&until=${day(170)}`],
    ['ledger_combined', 'provider=idr_psp&currency=IDR&mode=live&type=refund'],
  ];
  for (const [name, q] of ledger) {
    list.push({ name, path: `/admin/ledger${q ? `?${q}` : ''}`, afterOnly: true });
  }
  list.push(
    { name: 'disputes_first_page', path: '/admin/disputes', afterOnly: true },
    { name: 'disputes_status_lost', path: '/admin/disputes?status=lost', afterOnly: true },
    {
      name: 'disputes_provider_mode',
      path: '/admin/disputes?provider=wallet_psp&mode=live',
      afterOnly: true,
    },
  );
  return list;
}

async function get(base: string, path: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(base + path, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text}`);
  return performance.now() - t0;
}

async function timeMany(base: string, path: string, n: number): Promise<number[]> {
  for (let i = 0; i < 5; i++) await get(base, path);
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await get(base, path));
  return out;
}

function gateway(databaseUrl: string, cwd?: string): Promise<Proc> {
  // Simulators off: balances shows calculated figures only (no provider calls timed).
  const env = { DATABASE_URL: databaseUrl, ADMIN_TOKEN, MASTER_KEY, SIMULATORS: 'off' };
  return startProcess(['src/main.ts'], env, '/readyz', undefined, cwd);
}

function summarize(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: sorted.length, p50_ms: percentile(sorted, 50), p99_ms: percentile(sorted, 99) };
}

async function main() {
  const beforeDir = process.env.BENCH_BEFORE_DIR;
  const beforeDb = process.env.BENCH_BEFORE_DB;
  const afterDb = process.env.BENCH_AFTER_DB;
  if (!beforeDir || !beforeDb || !afterDb) {
    throw new Error('set BENCH_BEFORE_DIR, BENCH_BEFORE_DB and BENCH_AFTER_DB');
  }
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const requests = Number(process.env.BENCH_ADMIN_REQUESTS ?? 40);
  const gws: Record<Side, Proc> = {
    before: await gateway(beforeDb, beforeDir),
    after: await gateway(afterDb),
  };
  try {
    // The first long read after seeding computes the daily rollup of every closed day.
    const first: Record<string, number> = {};
    for (const side of ['before', 'after'] as Side[]) {
      first[`${side}_summary_366d_ms`] =
        Math.round((await get(gws[side].url, '/admin/summary?days=366')) * 10) / 10;
    }
    console.log(`first requests (rollup materialization): ${JSON.stringify(first)}`);
    const list = reports(new Date());
    const samples = new Map<string, Record<Side, number[]>>();
    const roundP50 = new Map<string, Record<Side, number[]>>();
    const load: number[][] = [];
    for (let r = 0; r < rounds; r++) {
      load.push(os.loadavg().map((l) => Math.round(l * 100) / 100));
      const order: Side[] = r % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
      for (const rep of list) {
        const s = samples.get(rep.name) ?? { before: [], after: [] };
        const p = roundP50.get(rep.name) ?? { before: [], after: [] };
        for (const side of order) {
          if (side === 'before' && rep.afterOnly) continue;
          const t = await timeMany(gws[side].url, rep.path, requests);
          s[side].push(...t);
          p[side].push(summarize(t).p50_ms);
        }
        samples.set(rep.name, s);
        roundP50.set(rep.name, p);
      }
      console.log(`round ${r + 1}/${rounds} done, load ${load[r]?.join(' ')}`);
    }
    load.push(os.loadavg().map((l) => Math.round(l * 100) / 100));
    const results: Record<string, unknown> = {};
    console.log(
      `${'report'.padEnd(36)} ${'before p50/p99'.padStart(18)} ${'after p50/p99'.padStart(18)}  round p50s (after)`,
    );
    for (const rep of list) {
      const s = samples.get(rep.name) as Record<Side, number[]>;
      const p = roundP50.get(rep.name) as Record<Side, number[]>;
      const before = rep.afterOnly ? null : { ...summarize(s.before), round_p50_ms: p.before };
      const after = { ...summarize(s.after), round_p50_ms: p.after };
      results[rep.name] = { path: rep.path, before, after };
      const fmt = (x: { p50_ms: number; p99_ms: number } | null) =>
        x ? `${x.p50_ms} / ${x.p99_ms}` : 'n/a';
      console.log(
        `${rep.name.padEnd(36)} ${fmt(before).padStart(18)} ${fmt(after).padStart(18)}  ${p.after.join(', ')}`,
      );
    }
    const out = {
      date: new Date().toISOString(),
      machine: machine(),
      settings: { rounds, requests_per_round_and_side: requests, before_dir: beforeDir },
      load_average_per_round: load,
      first_requests: first,
      reports: results,
    };
    mkdirSync('bench/results', { recursive: true });
    const file = `bench/results/admin-compare-${out.date.replace(/[:.]/g, '-')}.json`;
    writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
    console.log(`results written to ${file}`);
  } finally {
    await Promise.all([gws.before.stop(), gws.after.stop()]);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
