/**
 * The gateway's CPU per request on the create and signed GET paths, two versions side by side
 * (docs/performance.md, "Create and GET, fourth pass"): on a machine shared with other work,
 * throughput and CPU per operation of `npm run bench` move with the load more than with the
 * code, so this measures both versions in the same minutes. "before" is the compiled gateway
 * of another checkout (a git worktree of the older commit, `npm run build` there), "after"
 * this checkout's (`npm run build`). Both run at once on one embedded PostgreSQL, each with its
 * own simulators process and app; each round sends a fixed number of requests to one version
 * and then the other, alternating which goes first, and reads each gateway's CPU time
 * (/proc utime + stime) around its share. The gateways' idle CPU (background workers' polls)
 * is measured first and subtracted per second of each share.
 *
 *   BENCH_BEFORE_DIR=/work/wt/before npx tsx bench/cpu-ab.ts
 *
 * Settings: BENCH_ROUNDS (default 6), BENCH_AB_CREATES (per round and side, default 2000),
 * BENCH_AB_GETS (default 20000), BENCH_CONNECTIONS (default 64), BENCH_AB_KINDS (default
 * `create,get`; `get` alone for the GET path).
 * Writes bench/results/cpu-ab-<time>.json.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { freePort } from '../scripts/net.js';
import { cpuWindow, processTreeCpuMs } from './lib/cpu.js';
import { ADMIN_TOKEN, MASTER_KEY, benchDatabase, machine } from './lib/env.js';
import { createApp, seedPayments, type BenchApp } from './lib/seed.js';
import { signedHeaders } from './lib/sign.js';

type Side = 'before' | 'after';

interface Running {
  tag: Side;
  databaseUrl: string;
  gateway: ChildProcess;
  simulators: ChildProcess;
  url: string;
  app: BenchApp;
  ids: string[];
  idleCpuMsPerS: number;
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  const until = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${url}: exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not yet listening
    }
    if (Date.now() > until) throw new Error(`${url} not ready`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function run(dir: string, script: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [path.join(dir, 'dist', script)], {
    cwd: dir,
    env: { ...process.env, LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function start(dir: string, databaseUrl: string, tag: Side): Promise<Running> {
  const simPort = await freePort();
  const gwPort = await freePort();
  const simulators = run(dir, 'simulators/main.js', {
    DATABASE_URL: databaseUrl,
    MASTER_KEY,
    PGAPPNAME: `simulators_${tag}`,
    PORT: String(simPort),
    GATEWAY_URL: `http://127.0.0.1:${gwPort}`,
  });
  await waitReady(`http://127.0.0.1:${simPort}/healthz`, simulators);
  const gateway = run(dir, 'main.js', {
    DATABASE_URL: databaseUrl,
    ADMIN_TOKEN,
    MASTER_KEY,
    PGAPPNAME: `gateway_${tag}`,
    PORT: String(gwPort),
    SIMULATORS: 'off',
    SIMULATORS_URL: `http://127.0.0.1:${simPort}`,
  });
  const url = `http://127.0.0.1:${gwPort}`;
  await waitReady(`${url}/readyz`, gateway);
  const app = await createApp(url, {});
  return { tag, databaseUrl, gateway, simulators, url, app, ids: [], idleCpuMsPerS: 0 };
}

function createBody(): string {
  return JSON.stringify({
    external_user_id: `buyer-${Math.floor(Math.random() * 100_000)}`,
    email: 'bench@example.com',
    amount_minor: 1000 + Math.floor(Math.random() * 100_000),
    currency: 'IDR',
    method: 'qris',
    return_url: 'https://shop.example/back',
  });
}

type Kind = 'create' | 'get';

async function share(r: Running, kind: Kind, amount: number, connections: number) {
  // The PostgreSQL backends of this side's gateway (PGAPPNAME gateway_<side>), and the
  // database's transactions (both sides': the other one is idle meanwhile).
  const pgWindow = await cpuWindow(r.databaseUrl, {});
  const cpu0 = processTreeCpuMs(r.gateway.pid as number);
  const t0 = performance.now();
  const res = await autocannon({
    url: r.url,
    connections,
    amount,
    requests: [
      {
        setupRequest: (req) => {
          if (kind === 'get') {
            const p = `/v1/payments/${r.ids[Math.floor(Math.random() * r.ids.length)]}`;
            return { ...req, method: 'GET', path: p, headers: signedHeaders(r.app, 'GET', p, '') };
          }
          const body = createBody();
          return {
            ...req,
            method: 'POST',
            path: '/v1/payments',
            body,
            headers: {
              ...signedHeaders(r.app, 'POST', '/v1/payments', body),
              'content-type': 'application/json',
              'idempotency-key': randomUUID(),
            },
          };
        },
      },
    ],
  });
  const seconds = (performance.now() - t0) / 1000;
  const cpuMs = processTreeCpuMs(r.gateway.pid as number) - cpu0;
  const done = res.requests.total;
  const pgCpu = await pgWindow.end(done);
  return {
    requests: done,
    non2xx: res.non2xx,
    errors: res.errors,
    seconds: Math.round(seconds * 100) / 100,
    cpu_ms_per_op: Math.round((cpuMs / done) * 1000) / 1000,
    cpu_ms_per_op_net: Math.round(((cpuMs - r.idleCpuMsPerS * seconds) / done) * 1000) / 1000,
    postgres_cpu_ms_per_op: pgCpu[`postgres_gateway_${r.tag}_cpu_ms_per_op`] ?? 0,
    transactions_per_op: pgCpu.transactions_per_op,
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

async function main() {
  const beforeDir = process.env.BENCH_BEFORE_DIR;
  if (!beforeDir) throw new Error('BENCH_BEFORE_DIR: a checkout of the version before');
  const rounds = Number(process.env.BENCH_ROUNDS ?? 6);
  const creates = Number(process.env.BENCH_AB_CREATES ?? 2000);
  const gets = Number(process.env.BENCH_AB_GETS ?? 20_000);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
  const kinds = (process.env.BENCH_AB_KINDS ?? 'create,get').split(',') as Kind[];
  const db = await benchDatabase('paygate_bench_cpu_ab');
  const started: Running[] = [];
  const stop = async () => {
    for (const s of started) {
      s.gateway.kill('SIGTERM');
      s.simulators.kill('SIGTERM');
    }
    await new Promise((r) => setTimeout(r, 2000));
    await db.close();
  };
  try {
    started.push(await start(beforeDir, db.url, 'before'));
    started.push(await start(process.cwd(), db.url, 'after'));
  } catch (err) {
    await stop();
    throw err;
  }
  const sides: Record<Side, Running> = { before: started[0]!, after: started[1]! };
  try {
    // 10,000 payments each, half settled (provider references are unique: seeded once).
    const ids = await seedPayments(db.url, sides.before.app.app_id, 20_000);
    sides.before.ids = ids.filter((_, i) => Math.floor(i / 2) % 2 === 0);
    sides.after.ids = ids.filter((_, i) => Math.floor(i / 2) % 2 === 1);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query('UPDATE payments SET app_id = $1 WHERE id = ANY($2::text[])', [
      sides.after.app.app_id,
      sides.after.ids,
    ]);
    await client.query('ANALYZE payments');
    await client.end();
    // Warm-up (JIT, pools, the settled cache), then the idle rate of each.
    for (const s of ['before', 'after'] as Side[]) {
      if (kinds.includes('create')) await share(sides[s], 'create', 500, connections);
      await share(sides[s], 'get', 10_000, connections);
    }
    const c0 = { before: 0, after: 0 };
    for (const s of ['before', 'after'] as Side[]) c0[s] = processTreeCpuMs(sides[s].gateway.pid!);
    await new Promise((r) => setTimeout(r, 10_000));
    for (const s of ['before', 'after'] as Side[]) {
      sides[s].idleCpuMsPerS = (processTreeCpuMs(sides[s].gateway.pid!) - c0[s]) / 10;
    }
    const out: Record<string, unknown>[] = [];
    for (let i = 0; i < rounds; i++) {
      const order: Side[] = i % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
      for (const kind of kinds) {
        const row: Record<string, unknown> = { round: i + 1, kind, load: os.loadavg()[0] };
        for (const s of order) {
          row[s] = await share(sides[s], kind, kind === 'create' ? creates : gets, connections);
        }
        console.log(JSON.stringify(row));
        out.push(row);
      }
    }
    const summary: Record<string, unknown> = {};
    for (const kind of kinds) {
      const rows = out.filter((r) => r.kind === kind) as Record<
        Side,
        {
          cpu_ms_per_op: number;
          cpu_ms_per_op_net: number;
          postgres_cpu_ms_per_op: number;
          transactions_per_op: number;
        }
      >[];
      summary[kind] = {
        before_median_cpu_ms_per_op: median(rows.map((r) => r.before.cpu_ms_per_op)),
        after_median_cpu_ms_per_op: median(rows.map((r) => r.after.cpu_ms_per_op)),
        before_median_net: median(rows.map((r) => r.before.cpu_ms_per_op_net)),
        after_median_net: median(rows.map((r) => r.after.cpu_ms_per_op_net)),
        median_after_over_before: median(
          rows.map((r) => r.after.cpu_ms_per_op_net / r.before.cpu_ms_per_op_net),
        ),
        before_median_postgres_cpu_ms_per_op: median(
          rows.map((r) => r.before.postgres_cpu_ms_per_op),
        ),
        after_median_postgres_cpu_ms_per_op: median(
          rows.map((r) => r.after.postgres_cpu_ms_per_op),
        ),
        before_median_transactions_per_op: median(rows.map((r) => r.before.transactions_per_op)),
        after_median_transactions_per_op: median(rows.map((r) => r.after.transactions_per_op)),
      };
    }
    const result = {
      at: new Date().toISOString(),
      machine: machine(),
      before_dir: beforeDir,
      idle_cpu_ms_per_s: { before: sides.before.idleCpuMsPerS, after: sides.after.idleCpuMsPerS },
      settings: { rounds, creates, gets, connections, kinds },
      summary,
      rounds: out,
    };
    console.log(JSON.stringify(summary, null, 2));
    mkdirSync('bench/results', { recursive: true });
    const file = `bench/results/cpu-ab-${result.at.replace(/[:.]/g, '-')}.json`;
    writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
    console.log(`results written to ${file}`);
  } finally {
    await stop();
  }
}

await main();
