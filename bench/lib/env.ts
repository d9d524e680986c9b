import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.js';
import { migrate } from '../../src/db/migrate.js';
import { freePort } from '../../scripts/net.js';

export const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
export const MASTER_KEY = 'b'.repeat(64);

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

export interface BenchDatabase {
  url: string;
  serverUrl: string;
  embedded: boolean;
  close(): Promise<void>;
}

/** DATABASE_URL's server, or an embedded PostgreSQL; a fresh, migrated database on it. */
export async function benchDatabase(base: string): Promise<BenchDatabase> {
  // BENCH_DB_TAG keeps two checkouts benchmarking on one server apart.
  const name = process.env.BENCH_DB_TAG ? `${base}_${process.env.BENCH_DB_TAG}` : base;
  let embedded: EmbeddedDatabase | undefined;
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const quiet = { info: () => undefined, debug: () => undefined };
    // BENCH_PG_DIR: another data directory, for two benches side by side in one checkout.
    const dir = path.resolve(process.env.BENCH_PG_DIR ?? '.bench-pg');
    embedded = await startEmbeddedPostgres(dir, await freePort(), quiet);
    serverUrl = embedded.url;
  }
  const admin = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = withDatabase(serverUrl, name);
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  await migrate(pool);
  await pool.end();
  return {
    url,
    serverUrl,
    embedded: embedded !== undefined,
    close: async () => {
      await embedded?.stop();
    },
  };
}

export interface Proc {
  child: ChildProcess;
  url: string;
  pid: number;
  /** The simulators' process, when they run apart from the gateway. */
  simulators?: Proc;
  /** Peak resident set (VmHWM) of the process and its children, in MiB. */
  peakRssMiB(): number;
  stop(): Promise<void>;
}

function childPids(pid: number): number[] {
  try {
    const raw = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    return raw ? raw.split(/\s+/).map(Number) : [];
  } catch {
    return [];
  }
}

function vmHwmKiB(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * BENCH_COMPILED=1: the gateway and the simulators run from dist/ (`npm run build` first), as
 * `npm start` and `npm run simulators` run them, instead of from src/ through tsx,
 * whose compiler and source maps add about 50 MiB to each process's resident set. Other
 * scripts (the references) always run through tsx.
 */
const COMPILED: Record<string, string> = {
  'src/main.ts': 'dist/main.js',
  'src/simulators/main.ts': 'dist/simulators/main.js',
};

function runnable(args: string[], cwd: string | undefined): string[] {
  const compiled = COMPILED[args[0] ?? ''];
  if (process.env.BENCH_COMPILED !== '1' || !compiled || cwd !== undefined) {
    return ['--import', 'tsx', ...args];
  }
  if (!existsSync(compiled))
    throw new Error(`BENCH_COMPILED=1: ${compiled} is missing (npm run build)`);
  return [compiled, ...args.slice(1)];
}

/** Starts a node script as its own process and waits until GET <readyPath> answers 200. */
export async function startProcess(
  args: string[],
  env: Record<string, string>,
  readyPath: string,
  port?: number,
  /** Another checkout to run the script from (bench/admin-compare.ts: the version before). */
  cwd?: string,
): Promise<Proc> {
  port ??= await freePort();
  // BENCH_NODE_ARGS: extra node flags for the measured processes, e.g. --cpu-prof.
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  // BENCH_STDOUT: a path prefix; each measured process's standard output goes to
  // <prefix>-<pid>, e.g. what --trace-gc prints.
  const stdout = process.env.BENCH_STDOUT ? 'pipe' : 'ignore';
  const child = spawn(process.execPath, [...nodeArgs, ...runnable(args, cwd)], {
    cwd,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', stdout, 'inherit'],
  });
  if (process.env.BENCH_STDOUT) {
    child.stdout?.pipe(createWriteStream(`${process.env.BENCH_STDOUT}-${child.pid}`));
  }
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
    try {
      if ((await fetch(url + readyPath)).status === 200) break;
    } catch {
      // not yet listening
    }
    if (Date.now() > until) throw new Error(`${args.join(' ')} not ready`);
    await new Promise((r) => setTimeout(r, 100));
  }
  // Cluster workers announce themselves ready one by one: give the rest a moment.
  if (env.WORKERS && Number(env.WORKERS) > 1) await new Promise((r) => setTimeout(r, 2000));
  const pid = child.pid as number;
  return {
    child,
    url,
    pid,
    peakRssMiB: () => {
      const pids = [pid, ...childPids(pid)];
      return Math.round(pids.reduce((s, p) => s + vmHwmKiB(p), 0) / 1024);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The simulators run as their own process unless BENCH_SIMULATORS=mounted. */
export function simulatorsApart(): boolean {
  return process.env.BENCH_SIMULATORS !== 'mounted';
}

/**
 * The gateway as its own process. By default the simulators run as a process of their own
 * (`npm run simulators`) and the gateway reaches them through SIMULATORS_URL, so the
 * gateway's CPU does not include serving the simulated providers (BENCH_SIMULATORS=mounted:
 * inside the gateway, as `npm start` does in test mode).
 */
export async function startGatewayProcess(
  databaseUrl: string,
  extra: Record<string, string> = {},
): Promise<Proc> {
  const env = {
    DATABASE_URL: databaseUrl,
    ADMIN_TOKEN,
    MASTER_KEY,
    PGAPPNAME: 'gateway',
    ...extra,
  };
  if (!simulatorsApart() || extra.SIMULATORS === 'off') {
    return startProcess(['src/main.ts'], env, '/readyz');
  }
  const gatewayPort = await freePort();
  const sims = await startProcess(
    ['src/simulators/main.ts'],
    {
      DATABASE_URL: databaseUrl,
      MASTER_KEY,
      PGAPPNAME: 'simulators',
      GATEWAY_URL: `http://127.0.0.1:${gatewayPort}`,
    },
    '/healthz',
  );
  try {
    const gw = await startProcess(
      ['src/main.ts'],
      { ...env, SIMULATORS: 'off', SIMULATORS_URL: sims.url },
      '/readyz',
      gatewayPort,
    );
    return {
      ...gw,
      simulators: sims,
      stop: async () => {
        await gw.stop();
        await sims.stop();
      },
    };
  } catch (err) {
    await sims.stop();
    throw err;
  }
}

export function machine(): Record<string, unknown> {
  return {
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model,
    memory_gib: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  };
}
