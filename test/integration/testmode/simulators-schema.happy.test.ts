import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import pg from 'pg';
import { migrate } from '../../../src/db/migrate.js';
import { migrateSimulators } from '../../../src/simulators/db/migrate.js';
import { createTestDatabase } from '../../helpers/db.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { paidPayment } from '../../helpers/payments.js';

// docs/operations.md, "The simulators' state": the simulators keep their objects in their own
// schema (paygate_sim), made by their own migrations at their start. An install from before
// it keeps its objects: they move from the old table beside the gateway's (sim_objects) into
// the simulators' schema, whichever of the gateway's migration 0032 and the simulators' first
// migration runs first; simulators starting at once take turns.

const cleanup: (() => Promise<void>)[] = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn().catch(() => undefined);
});

async function database(): Promise<{ url: string; client: pg.Client }> {
  const db = await createTestDatabase();
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  cleanup.push(() => db.drop());
  cleanup.push(() => client.end());
  return { url: db.url, client };
}

/**
 * Puts a migrated database back as it stood before the simulators had a schema: their objects
 * in the table sim_objects beside the gateway's, the gateway's migration 0032 not applied.
 */
async function asBeforeTheSimulatorsSchema(client: pg.Client): Promise<void> {
  await client.query(`ALTER TABLE paygate_sim.sim_objects SET SCHEMA public`);
  await client.query(`DROP SCHEMA paygate_sim CASCADE`);
  await client.query(`DELETE FROM schema_migrations WHERE version = 32`);
}

async function tables(client: pg.Client): Promise<string[]> {
  const res = await client.query<{ t: string }>(
    `SELECT n.nspname || '.' || c.relname AS t FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind = 'r' AND c.relname IN ('sim_objects', 'migrations') ORDER BY 1`,
  );
  return res.rows.map((r) => r.t);
}

async function objectIds(client: pg.Client, table: string): Promise<string[]> {
  const res = await client.query<{ k: string }>(
    `SELECT provider || '/' || kind || '/' || id AS k FROM ${table} ORDER BY 1`,
  );
  return res.rows.map((r) => r.k);
}

function serverAuth(gw: TestGateway): string {
  const key = gw.running.gw.providers.endpoint('idr_psp', 'test')?.credentials.serverKey ?? '';
  return `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
}

test("a running test-mode install keeps its simulators' objects across the upgrade", async () => {
  const { url, client } = await database();
  const shared = { url, drop: async () => undefined };
  const env = { MASTER_KEY: randomBytes(32).toString('hex') };
  const first = await startTestGateway(env, { database: shared, workers: false });
  const app = await first.createApp();
  const paid = await paidPayment(first, app, 'idr', 25_000);
  await first.stop();
  await asBeforeTheSimulatorsSchema(client);
  const before = await objectIds(client, 'public.sim_objects');
  assert.ok(before.length > 0);

  // The upgraded gateway: its 0032 finds the old table holding objects and leaves it; the
  // mounted simulators' first migration then copies them into their schema and drops it.
  const second = await startTestGateway(env, { database: shared, workers: false });
  cleanup.push(() => second.stop());
  assert.deepEqual(await tables(client), ['paygate_sim.migrations', 'paygate_sim.sim_objects']);
  assert.deepEqual(await objectIds(client, 'paygate_sim.sim_objects'), before);
  const applied = await client.query(`SELECT version, name FROM paygate_sim.migrations`);
  assert.deepEqual(applied.rows, [{ version: 1, name: '0001_objects.sql' }]);
  const gatewayApplied = await client.query(`SELECT 1 FROM schema_migrations WHERE version = 32`);
  assert.equal(gatewayApplied.rowCount, 1);

  // The simulator still knows the payment it was paid for.
  const status = await fetch(`${second.url}/sim/idr_psp/v2/${paid.id}/status`, {
    headers: { authorization: serverAuth(second) },
  });
  assert.equal(status.status, 200);
  const body = (await status.json()) as { order_id: string; transaction_status: string };
  assert.equal(body.order_id, paid.id);
  assert.equal(body.transaction_status, 'settlement');
});

test("the simulators' first migration before the gateway's 0032: the objects move all the same", async () => {
  const { url, client } = await database();
  await client.query(
    `INSERT INTO paygate_sim.sim_objects (provider, kind, id, idempotency_key, data, created_at, updated_at)
     VALUES ('idr_psp', 'transaction', 'order-1', 'key-1', '{"a": 1}', now() - interval '3 days', now() - interval '1 day'),
            ('card_psp', 'checkout', 'cs_1', NULL, '{"b": 2}', now(), now())`,
  );
  const rows = `SELECT provider, kind, id, idempotency_key, data, created_at, updated_at FROM `;
  const kept = (await client.query(`${rows} paygate_sim.sim_objects ORDER BY id`)).rows;
  await asBeforeTheSimulatorsSchema(client);
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  cleanup.push(() => pool.end());
  assert.deepEqual(await migrateSimulators(pool), ['0001_objects.sql']);
  assert.deepEqual(await migrate(pool), ['0032_simulators_schema.sql']);
  assert.deepEqual(await tables(client), ['paygate_sim.migrations', 'paygate_sim.sim_objects']);
  // Every column as it was: the retention counts from created_at and updated_at.
  assert.deepEqual((await client.query(`${rows} paygate_sim.sim_objects ORDER BY id`)).rows, kept);
  // Their indexes came with the schema: an idempotency key is still unique.
  await assert.rejects(
    client.query(
      `INSERT INTO paygate_sim.sim_objects (provider, kind, id, idempotency_key, data)
       VALUES ('idr_psp', 'transaction', 'order-2', 'key-1', '{}')`,
    ),
    /sim_objects_idempotency_key/,
  );
});

test("the gateway's 0032 drops the old table only when it is empty", async () => {
  const { url, client } = await database();
  await asBeforeTheSimulatorsSchema(client);
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  cleanup.push(() => pool.end());
  // Empty (an install that never ran test mode): dropped by the gateway.
  assert.deepEqual(await migrate(pool), ['0032_simulators_schema.sql']);
  assert.deepEqual(await tables(client), []);
  assert.deepEqual(await migrateSimulators(pool), ['0001_objects.sql']);
  assert.deepEqual(await objectIds(client, 'paygate_sim.sim_objects'), []);
  // Nothing left to do for either.
  assert.deepEqual(await migrate(pool), []);
  assert.deepEqual(await migrateSimulators(pool), []);
});

test('simulators starting at once take turns: one applies their migrations, the others find them done', async () => {
  const { url, client } = await database();
  await client.query(`DROP SCHEMA paygate_sim CASCADE`);
  const pools = Array.from({ length: 4 }, () => new pg.Pool({ connectionString: url, max: 1 }));
  cleanup.push(() => Promise.all(pools.map((p) => p.end())).then(() => undefined));
  const results = await Promise.all(pools.map((p) => migrateSimulators(p)));
  assert.deepEqual(results.map((r) => r.join()).sort(), ['', '', '', '0001_objects.sql']);
  assert.deepEqual(await tables(client), ['paygate_sim.migrations', 'paygate_sim.sim_objects']);
});
