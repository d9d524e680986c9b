import { randomBytes } from 'node:crypto';
import { after } from 'node:test';
import pg from 'pg';

/** The server scripts/test.ts prepared (embedded, or DATABASE_URL's). */
export function testServerUrl(): string {
  const url = process.env.PAYGATE_TEST_SERVER_URL;
  if (!url) throw new Error('run tests with `npm test` (it prepares the database server)');
  return url;
}

export function databaseUrl(db: string): string {
  const u = new URL(testServerUrl());
  u.pathname = `/${db}`;
  return u.toString();
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: databaseUrl('postgres') });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** A fresh database cloned from the migrated template; one per test file (or per gateway). */
export async function createTestDatabase(): Promise<{
  name: string;
  url: string;
  drop(): Promise<void>;
}> {
  const template = process.env.PAYGATE_TEST_TEMPLATE;
  const run = process.env.PAYGATE_TEST_RUN;
  if (!template || !run)
    throw new Error('run tests with `npm test` (it prepares the template database)');
  const name = `paygate_t_${run}_${randomBytes(6).toString('hex')}`;
  await admin(async (c) => {
    // Cloning needs the template free of other sessions; concurrent clones can collide.
    for (let attempt = 0; ; attempt++) {
      try {
        await c.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
        return;
      } catch (err) {
        if ((err as { code?: string }).code !== '55006' || attempt > 50) throw err;
        await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
      }
    }
  });
  return {
    name,
    url: databaseUrl(name),
    drop: () =>
      admin(async (c) => void (await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))),
  };
}

/**
 * For the migration tests: each call makes a database of its own (the migrated template), a
 * client and a one-connection pool on it; all are closed and dropped after the file's tests.
 */
export function migrationDatabases(): () => Promise<{ client: pg.Client; pool: pg.Pool }> {
  const cleanup: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => undefined);
  });
  return async () => {
    const db = await createTestDatabase();
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    cleanup.push(
      () => db.drop(),
      () => client.end(),
      () => pool.end(),
    );
    return { client, pool };
  };
}
