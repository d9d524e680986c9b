import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { freePort } from '../../../scripts/net.js';
import {
  isDatabaseUnavailable,
  NotPrimaryError,
  parseDatabaseUrl,
  PrimaryLocator,
} from '../../../src/db/connection.js';
import { createPool } from '../../../src/db/pool.js';
import { createTestDatabase, databaseUrl } from '../../helpers/db.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { sleep } from '../../helpers/util.js';

// docs/operations.md#high-availability: several hosts in DATABASE_URL, the primary found
// among them, a read-only server refused or dropped, and a request that meets no primary
// answered 503 `service unavailable` with Retry-After (retryable with the same key).

/** The test server's URL with these hosts instead of its own. */
function withHosts(url: string, hosts: string, query = ''): string {
  const u = new URL(url);
  const auth = u.username ? `${u.username}${u.password ? `:${u.password}` : ''}@` : '';
  return `${u.protocol}//${auth}${hosts}${u.pathname}${query}`;
}

async function until<T>(fn: () => Promise<T>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > end) throw err;
      await sleep(50);
    }
  }
}

test('parseDatabaseUrl: libpq multi-host syntax and target_session_attrs', () => {
  const t = parseDatabaseUrl(
    'postgres://app:s%40cret@db1:5433,[::1],db3/paygate?sslmode=disable&application_name=gw',
  );
  assert.deepEqual(t.hosts, [
    { host: 'db1', port: 5433 },
    { host: '::1', port: 5432 },
    { host: 'db3', port: 5432 },
  ]);
  assert.equal(t.readWrite, true); // several hosts: the primary
  assert.equal(t.base.user, 'app');
  assert.equal(t.base.password, 's@cret');
  assert.equal(t.base.database, 'paygate');
  assert.equal(t.base.application_name, 'gw');
  assert.equal(t.base.host, undefined);
  assert.equal(parseDatabaseUrl('postgres://u@h/d').readWrite, false);
  assert.equal(
    parseDatabaseUrl('postgres://u@h/d?target_session_attrs=read-write').readWrite,
    true,
  );
  assert.equal(parseDatabaseUrl('postgres://u@h1,h2/d?target_session_attrs=any').readWrite, false);
  assert.throws(
    () => parseDatabaseUrl('postgres://u@h/d?target_session_attrs=standby'),
    /target_session_attrs must be any, read-write or primary, got "standby"/,
  );
  assert.throws(() => parseDatabaseUrl('postgres://u@h:99999/d'), /bad host "h:99999"/);
  assert.throws(() => parseDatabaseUrl('mysql://u@h/d'), /must be a postgres:\/\/ URL/);
});

describe('against the test server', () => {
  let db: { name: string; url: string; drop(): Promise<void> };
  let admin: pg.Client;
  before(async () => {
    db = await createTestDatabase();
    // This session stays writable whatever the database's default becomes.
    admin = new pg.Client({
      connectionString: databaseUrl(db.name),
      options: '-c default_transaction_read_only=off',
    });
    await admin.connect();
  });
  after(async () => {
    await admin?.end();
    await db?.drop();
  });

  const readOnly = async (on: boolean) => {
    await admin.query(
      on
        ? `ALTER DATABASE ${db.name} SET default_transaction_read_only = on`
        : `ALTER DATABASE ${db.name} RESET default_transaction_read_only`,
    );
    // Sessions keep the default they started with: end them, as a restart would.
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE datname = $1 AND pid <> pg_backend_pid()`,
      [db.name],
    );
  };

  test('a dead host first in the list: the failed request is retryable, then the live host serves', async () => {
    const dead = await freePort();
    const live = new URL(db.url);
    const url = withHosts(db.url, `127.0.0.1:${dead},${live.host}`);
    const locator = new PrimaryLocator(parseDatabaseUrl(url));
    const pool = createPool(locator, 2);
    try {
      const first = await pool.query('SELECT 1').catch((err: unknown) => err);
      assert.ok(first instanceof Error, 'the first connection goes to the dead host');
      assert.equal(isDatabaseUnavailable(first), true, String(first));
      const r = await until(() => pool.query<{ n: number }>('SELECT 2 AS n'));
      assert.equal(r.rows[0]?.n, 2);
      assert.equal(`${locator.current().host}:${locator.current().port}`, live.host);
    } finally {
      await pool.end();
    }
  });

  test('read-write target: a read-only server is refused at connect; the pool recovers when it is writable again', async () => {
    const pool = createPool(`${db.url}?target_session_attrs=read-write`, 2);
    try {
      await pool.query('CREATE TABLE IF NOT EXISTS ha_probe (n int)');
      await readOnly(true);
      // The pool's idle connection may first report its own termination (57P01); every
      // error is retryable, and the new connection finds the server read-only.
      const errors: unknown[] = [];
      for (let i = 0; i < 3 && !(errors.at(-1) instanceof NotPrimaryError); i++) {
        errors.push(await pool.query('INSERT INTO ha_probe VALUES (1)').catch((e: unknown) => e));
      }
      assert.ok(errors.at(-1) instanceof NotPrimaryError, errors.map(String).join('; '));
      for (const e of errors) assert.equal(isDatabaseUnavailable(e), true, String(e));
      await readOnly(false);
      await until(() => pool.query('INSERT INTO ha_probe VALUES (2)'));
      // Only the write made once the server was writable again.
      const n = await admin.query<{ n: number }>('SELECT n FROM ha_probe');
      assert.deepEqual(n.rows, [{ n: 2 }]);
    } finally {
      await readOnly(false);
      await pool.end();
    }
  });

  test('a pooled connection whose server turned read-only is dropped, not reused', async () => {
    const pool = createPool(db.url, 1);
    try {
      await pool.query('CREATE TABLE IF NOT EXISTS ha_probe2 (n int)');
      const pid1 = (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]
        ?.pid;
      // The only connection's session turns read-only, as a demoted server's would.
      await pool.query('SET default_transaction_read_only = on');
      const err = await pool.query('INSERT INTO ha_probe2 VALUES (1)').catch((e: unknown) => e);
      assert.equal((err as { code?: string }).code, '25006');
      assert.equal(isDatabaseUnavailable(err), true);
      // A transaction client (released without an error) must not come back either.
      const client = await pool.connect();
      try {
        await client.query('SET default_transaction_read_only = on');
        await client.query('BEGIN');
        const e2 = await client.query('INSERT INTO ha_probe2 VALUES (2)').catch((e: unknown) => e);
        assert.equal((e2 as { code?: string }).code, '25006');
        await client.query('ROLLBACK').catch(() => undefined);
      } finally {
        client.release();
      }
      await until(() => pool.query('INSERT INTO ha_probe2 VALUES (3)'));
      const pid2 = (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]
        ?.pid;
      assert.notEqual(pid2, pid1);
    } finally {
      await pool.end();
    }
  });
});

describe('over HTTP', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(() => gw?.stop());

  test('no writable primary: 503 service unavailable with Retry-After, and the retry with the same key succeeds once it is back', async () => {
    const app = await gw.createApp();
    const name = new URL(gw.databaseUrl).pathname.slice(1);
    const admin = new pg.Client({
      connectionString: databaseUrl(name),
      options: '-c default_transaction_read_only=off',
    });
    await admin.connect();
    const setReadOnly = async (on: boolean) => {
      await admin.query(
        on
          ? `ALTER DATABASE ${name} SET default_transaction_read_only = on`
          : `ALTER DATABASE ${name} RESET default_transaction_read_only`,
      );
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE datname = $1 AND pid <> pg_backend_pid()`,
        [name],
      );
    };
    const body = {
      external_user_id: 'buyer-ha',
      email: 'ha@example.com',
      amount_minor: 15_000,
      currency: 'IDR',
      method: 'qris',
      return_url: 'https://shop.example/back',
    };
    const key = { 'Idempotency-Key': 'ha-retry-1' };
    try {
      await setReadOnly(true);
      for (let i = 0; i < 3; i++) {
        const res = await gw.v1(app, 'POST', '/v1/payments', body, key);
        assert.equal(res.status, 503, res.text);
        assert.equal(res.text, 'service unavailable');
        assert.equal(res.headers.get('retry-after'), '1');
        assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
      }
      const count = await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM payments');
      assert.equal(count.rows[0]?.n, 0);
      await setReadOnly(false);
      const ok = await until(async () => {
        const res = await gw.v1(app, 'POST', '/v1/payments', body, key);
        if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
        return res;
      });
      const again = await gw.v1(app, 'POST', '/v1/payments', body, key);
      assert.equal(again.status, 201);
      assert.equal(again.text, ok.text);
      const after = await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM payments');
      assert.equal(after.rows[0]?.n, 1);
    } finally {
      await setReadOnly(false).catch(() => undefined);
      await admin.end();
    }
  });
});
