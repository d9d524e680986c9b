/**
 * The test command: prepares a PostgreSQL (DATABASE_URL's server, or an embedded one when
 * it is unset), migrates a template database once, then runs every test file with node's
 * test runner. Each test file clones the template into a database of its own.
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';

const TEMPLATE = 'paygate_test_template';

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

async function main(): Promise<number> {
  let embedded: EmbeddedDatabase | undefined;
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const quiet = { info: (m: string) => console.log(`[test-db] ${m}`), debug: () => undefined };
    embedded = await startEmbeddedPostgres(
      path.resolve('.test-pg'),
      Number(process.env.TEST_PG_PORT ?? 54330),
      quiet,
    );
    serverUrl = embedded.url;
    console.log('[test-db] using an embedded PostgreSQL (DATABASE_URL is unset)');
  } else {
    console.log(`[test-db] using DATABASE_URL's server (${new URL(serverUrl).host})`);
  }
  try {
    const admin = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
    await admin.connect();
    const stale = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE 'paygate_t\\_%' OR datname = $1`,
      [TEMPLATE],
    );
    for (const { datname } of stale.rows)
      await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${TEMPLATE}`);
    await admin.end();
    const pool = new pg.Pool({ connectionString: withDatabase(serverUrl, TEMPLATE), max: 1 });
    await migrate(pool);
    await pool.end();

    const files = testFiles(process.argv.slice(2));
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
        },
      },
    );
    return await new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
  } finally {
    await embedded?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
