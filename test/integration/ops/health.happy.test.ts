import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { startGateway } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { listMigrations, migrate, migrationsApplied } from '../../../src/db/migrate.js';
import { createPool } from '../../../src/db/pool.js';
import { createLogger } from '../../../src/logger.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { eventually } from '../../helpers/eventually.js';
import { assertError, assertStatus, paymentBody, sql, TEXT_PLAIN } from '../../helpers/core.js';
import { createTestDatabase, databaseUrl } from '../../helpers/db.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { signedFetch } from '../../helpers/http.js';

let gw: TestGateway;
before(async () => {
  gw = await startTestGateway();
});
after(async () => {
  await gw?.stop();
});

describe('health (docs/api.md#health-and-metrics)', () => {
  test('GET /healthz: 200', async () => {
    const res = await gw.admin('GET', '/healthz', undefined, '');
    assertStatus(res, 200);
    assert.deepEqual(res.json(), { status: 'ok' });
  });

  test('GET /readyz: 200 with the database reachable and migrations applied', async () => {
    const res = await gw.admin('GET', '/readyz', undefined, '');
    assertStatus(res, 200);
    // The test server may be one with autovacuum off (storage.autovacuum.test.ts covers both).
    const [server] = await sql<{ autovacuum: string }>(gw.databaseUrl, 'SHOW autovacuum');
    assert.deepEqual(
      res.json(),
      server?.autovacuum === 'on'
        ? { status: 'ready' }
        : {
            status: 'ready',
            warnings: [
              'autovacuum is off on the database server: dead rows will pile up and the gateway will slow down; turn it on (ALTER SYSTEM SET autovacuum = on; SELECT pg_reload_conf())',
            ],
          },
    );
  });

  test('GET /readyz: 503 service unavailable when a migration is missing', async () => {
    const [last] = (await listMigrations()).slice(-1);
    assert.ok(last);
    const [row] = await sql<{ version: number; name: string; applied_at: Date }>(
      gw.databaseUrl,
      'DELETE FROM schema_migrations WHERE version = $1 RETURNING version, name, applied_at',
      [last.version],
    );
    try {
      const res = await gw.admin('GET', '/readyz', undefined, '');
      assertError(res, 503, 'service unavailable');
      assert.ok(res.headers.get('retry-after'));
      // The process is still up.
      assertStatus(await gw.admin('GET', '/healthz', undefined, ''), 200);
    } finally {
      await sql(
        gw.databaseUrl,
        'INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)',
        [row?.version, row?.name, row?.applied_at],
      );
    }
    assertStatus(await gw.admin('GET', '/readyz', undefined, ''), 200);
  });

  test('while starting: 503 service unavailable with Retry-After, /healthz still answers', async () => {
    const app = await gw.createApp();
    gw.running.gw.phase = 'starting';
    try {
      for (const res of [
        await gw.admin('GET', '/admin/apps'),
        await gw.admin('GET', '/readyz', undefined, ''),
        await gw.v1(app, 'POST', '/v1/payments', paymentBody()),
        await gw.v1(app, 'GET', `/v1/payments/${'0'.repeat(32)}`),
      ]) {
        assertError(res, 503, 'service unavailable');
        assert.ok(res.headers.get('retry-after'), 'Retry-After is set');
      }
      assertStatus(await gw.admin('GET', '/healthz', undefined, ''), 200);
    } finally {
      gw.running.gw.phase = 'ready';
    }
    assertStatus(await gw.admin('GET', '/admin/apps'), 200);
  });
});

describe('unknown routes (docs/api.md#errors)', () => {
  // GET / leads to the dashboard (302; test/integration/start.messages.test.ts); POST / does not exist.
  const routes: [string, string][] = [
    ['POST', '/'],
    ['GET', '/nope'],
    ['GET', '/v1/payments'],
    ['POST', '/v1/nope'],
    ['GET', '/v2/payments/' + '0'.repeat(32)],
    ['DELETE', '/v1/payments/' + '0'.repeat(32)],
    ['PUT', '/v1/payments'],
    ['GET', '/admin/nope'],
    ['GET', '/webhooks'],
  ];
  for (const [method, path] of routes) {
    test(`${method} ${path}: 404 not found`, async () => {
      assertError(await gw.admin(method, path), 404, 'not found');
    });
  }
});

/** One raw HTTP/1.1 connection, so that a request can be left half sent. */
class RawConnection {
  private buf = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  readonly sock: Socket;
  closed = false;

  constructor(url: string) {
    const u = new URL(url);
    this.sock = connect(Number(u.port), u.hostname);
    this.sock.on('data', (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      this.wake();
    });
    this.sock.on('error', () => undefined);
    this.sock.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  private wake() {
    for (const w of this.waiters.splice(0)) w();
  }

  connected(): Promise<void> {
    return new Promise((resolve) => this.sock.once('connect', () => resolve()));
  }

  write(s: string): void {
    this.sock.write(s);
  }

  /** The next complete response (status, lowercased headers, body). */
  async response(): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    for (;;) {
      const end = this.buf.indexOf('\r\n\r\n');
      if (end !== -1) {
        const [statusLine, ...lines] = this.buf.subarray(0, end).toString('latin1').split('\r\n');
        const headers: Record<string, string> = {};
        for (const l of lines) {
          const i = l.indexOf(':');
          headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
        }
        const length = Number(headers['content-length'] ?? 0);
        if (this.buf.length >= end + 4 + length) {
          const body = this.buf.subarray(end + 4, end + 4 + length).toString('utf8');
          this.buf = this.buf.subarray(end + 4 + length);
          return { status: Number(statusLine?.split(' ')[1]), headers, body };
        }
      }
      if (this.closed) throw new Error(`connection closed; received ${this.buf.toString()}`);
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }
}

/**
 * Starts a drain while a POST /admin/apps is in flight (headers and half of the body sent),
 * with a second connection holding half of a request's headers.
 */
async function drainScenario(g: TestGateway) {
  const body = JSON.stringify({ name: 'Drained' });
  const inFlight = new RawConnection(g.url);
  const late = new RawConnection(g.url);
  await Promise.all([inFlight.connected(), late.connected()]);
  // 'request' fires once the headers are parsed and the gateway's hooks have seen them.
  const seen = new Promise<void>((resolve) =>
    g.running.http.server.once('request', () => setImmediate(resolve)),
  );
  inFlight.write(
    'POST /admin/apps HTTP/1.1\r\nHost: gw\r\n' +
      `Authorization: Bearer ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 6)}`,
  );
  await seen;
  late.write('GET /readyz HTTP/1.1\r\nHost: gw\r\n');
  const stopping = g.running.stop();
  return { body, inFlight, late, stopping };
}

describe('draining (docs/api.md#health-and-metrics)', () => {
  /** A gateway to drain; its connections are torn down whatever the test's outcome. */
  async function draining(
    fn: (s: Awaited<ReturnType<typeof drainScenario>>, g: TestGateway) => Promise<void>,
  ) {
    const g = await startTestGateway();
    let scenario: Awaited<ReturnType<typeof drainScenario>> | undefined;
    try {
      scenario = await drainScenario(g);
      await fn(scenario, g);
    } finally {
      scenario?.inFlight.sock.destroy();
      scenario?.late.sock.destroy();
      await g.stop();
    }
  }

  test(
    'the in-flight request completes normally and new connections are refused',
    { timeout: 60_000 },
    () =>
      draining(async ({ body, inFlight, late, stopping }, g) => {
        late.sock.destroy();
        await eventually(
          async () => (g.running.http.server.listening ? undefined : true),
          'the listener to close',
        );
        await assert.rejects(
          fetch(g.url + '/healthz'),
          (err: Error & { cause?: { code?: string } }) => err.cause?.code === 'ECONNREFUSED',
        );
        inFlight.write(body.slice(6));
        const res = await inFlight.response();
        assert.equal(res.status, 201, res.body);
        const created = JSON.parse(res.body) as AppWithSecrets;
        assert.equal(created.name, 'Drained');
        inFlight.sock.destroy();
        await stopping;
        const rows = await sql(g.databaseUrl, 'SELECT id FROM apps WHERE id = $1', [
          created.app_id,
        ]);
        assert.equal(rows.length, 1, 'the in-flight request was committed');
      }),
  );

  test(
    'a request arriving during the drain: 503 service unavailable with Retry-After',
    { timeout: 60_000 },
    () =>
      draining(async ({ body, inFlight, late, stopping }) => {
        late.write('\r\n');
        const refused = await late.response();
        assert.equal(refused.status, 503);
        assert.equal(refused.headers['content-type'], TEXT_PLAIN);
        assert.equal(refused.body, 'service unavailable');
        assert.ok(refused.headers['retry-after'], 'Retry-After is set');
        inFlight.write(body.slice(6));
        assert.equal((await inFlight.response()).status, 201);
        inFlight.sock.destroy();
        await stopping;
      }),
  );

  test(
    'a response finished during the drain tells the client to close its connection',
    { timeout: 60_000 },
    () =>
      // Otherwise a keep-alive client holds stop() up until its idle timeout (72 s) runs out.
      draining(async ({ body, inFlight, late, stopping }) => {
        late.sock.destroy();
        inFlight.write(body.slice(6));
        const res = await inFlight.response();
        assert.equal(res.status, 201);
        assert.equal(res.headers.connection, 'close');
        inFlight.sock.destroy();
        await stopping;
      }),
  );
});

describe('migrations (conventions: guarded so two processes cannot both migrate)', () => {
  test('two instances migrating one fresh database at once: each version applied once', async () => {
    const name = `paygate_t_${process.env.PAYGATE_TEST_RUN ?? '0'}_mig_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: databaseUrl('postgres') });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const pools = [createPool(databaseUrl(name), 2), createPool(databaseUrl(name), 2)];
    try {
      const results = await Promise.all(pools.map((p) => migrate(p)));
      const all = (await listMigrations()).map((m) => m.name);
      assert.ok(all.length >= 1);
      // One did all the work, the other found nothing left to do.
      assert.deepEqual(
        results.sort((x, y) => y.length - x.length),
        [all, []],
      );
      const rows = await sql<{ version: number; n: number }>(
        databaseUrl(name),
        'SELECT version, count(*)::int AS n FROM schema_migrations GROUP BY version ORDER BY version',
      );
      assert.deepEqual(
        rows,
        (await listMigrations()).map((m) => ({ version: m.version, n: 1 })),
      );
      assert.equal(await migrationsApplied(pools[0] as pg.Pool), true);
      assert.deepEqual(await migrate(pools[1] as pg.Pool), []);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });
});

describe('secrets never appear in logs', () => {
  test('debug-level logs of app creation, key rotation, signed requests, errors and deliveries', async () => {
    // A webhook receiver that refuses everything, so that a dead delivery is logged.
    const receiver: Server = createServer((_req, res) => res.writeHead(400).end('no'));
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

    let output = '';
    const capture = new Writable({
      write(chunk: Buffer, _enc, done) {
        output += chunk.toString();
        done();
      },
    });
    const db = await createTestDatabase();
    const masterKey = randomBytes(32).toString('hex');
    const providerKey = 'SB-Mid-server-NEVER-LOG-THIS-0123';
    const config = loadConfig({
      DATABASE_URL: db.url,
      PORT: '0',
      HOST: '127.0.0.1',
      ADMIN_TOKEN,
      MASTER_KEY: masterKey,
      DATA_DIR: '/nonexistent-test-data-dir',
      DELIVERY_BASE_DELAY_MS: '50',
      DELIVERY_MAX_DELAY_MS: '200',
      // A sandbox endpoint that refuses connections: an indeterminate provider error is logged.
      IDR_PSP_SANDBOX_BASE_URL: 'http://127.0.0.1:1',
      IDR_PSP_SANDBOX_SERVER_KEY: providerKey,
    });
    const running = await startGateway(config, createLogger('debug', capture));
    const url = running.url;
    const secrets: string[] = [ADMIN_TOKEN, masterKey, providerKey];
    try {
      const adminReq = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(url + path, {
          method,
          headers: {
            authorization: `Bearer ${ADMIN_TOKEN}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, json: (await res.json()) as AppWithSecrets };
      };
      const created = await adminReq('POST', '/admin/apps', {
        name: 'Logged',
        webhook_url: hookUrl,
      });
      assert.equal(created.status, 201);
      const app = created.json;
      const sandbox = (await adminReq('POST', '/admin/apps', { name: 'Sbx', mode: 'sandbox' }))
        .json;
      secrets.push(
        app.signing_secret,
        app.webhook_secret,
        sandbox.signing_secret,
        sandbox.webhook_secret,
      );

      // Signed requests: good, bad signature, bad body, not found.
      const paid = await signedFetch(url, app, 'POST', '/v1/payments', paymentBody());
      assert.equal(paid.status, 201, paid.text);
      const { payment_id } = paid.json<{ payment_id: string }>();
      assert.equal((await signedFetch(url, app, 'GET', `/v1/payments/${payment_id}`)).status, 200);
      const wrong = { ...app, signing_secret: app.webhook_secret };
      assert.equal(
        (await signedFetch(url, wrong, 'GET', `/v1/payments/${payment_id}`)).status,
        401,
      );
      assert.equal((await signedFetch(url, app, 'POST', '/v1/payments', '{')).status, 400);
      // The provider cannot be reached: 504 (outcome unknown, D15), logged as indeterminate.
      const unreachable = await signedFetch(url, sandbox, 'POST', '/v1/payments', paymentBody());
      assert.equal(unreachable.status, 504);

      // Pay it on the simulator: a webhook is delivered, refused, and logged as dead.
      const [row] = await sql<{ provider_ref: string }>(
        db.url,
        'SELECT provider_ref FROM payments WHERE id = $1',
        [payment_id],
      );
      const pay = await fetch(`${url}/sim/idr_psp/payments/${row?.provider_ref}/pay`, {
        method: 'POST',
      });
      assert.equal(pay.status, 200);
      const deadId = await eventually(
        async () =>
          (await sql<{ id: string }>(db.url, "SELECT id FROM deliveries WHERE status = 'dead'"))[0]
            ?.id,
        'a dead delivery',
      );

      const rotated = (await adminReq('POST', `/admin/apps/${app.app_id}/regenerate-keys`)).json;
      secrets.push(rotated.signing_secret, rotated.webhook_secret);
      assert.equal(
        (await signedFetch(url, rotated, 'GET', `/v1/payments/${payment_id}`)).status,
        200,
      );
      assert.equal((await signedFetch(url, app, 'GET', `/v1/payments/${payment_id}`)).status, 401);
      await eventually(
        async () => (output.includes(deadId) ? true : undefined),
        'the dead delivery to be logged',
      );
    } finally {
      await running.stop();
      await db.drop();
      await new Promise((r) => receiver.close(r));
    }
    assert.ok(output.length > 0, 'something was logged');
    for (const line of output.trim().split('\n')) JSON.parse(line);
    for (const secret of secrets) {
      assert.ok(!output.includes(secret), `a secret appears in the logs: ${secret.slice(0, 8)}...`);
      // Nor a recognisable part of it.
      assert.ok(
        !output.includes(secret.slice(-16)),
        `part of a secret is logged: ${secret.slice(0, 8)}...`,
      );
    }
  });
});
