import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import {
  startReplicatedPostgres,
  type ReplicatedPostgres,
} from '../../helpers/replicatedPostgres.js';

// docs/adr/0002-durability-barrier.md: a write is answered 2xx only once its rows are flushed
// on the primary and on the synchronous standby. Payment creations without an
// Idempotency-Key commit asynchronously and rely on the barrier alone (no synchronous last
// write). Under a load of them the primary dies (SIGKILL of postmaster and backends, as if
// its machine died) and the standby is promoted: every 201 must be there.
//
// The standby only ever receives WAL the primary has flushed, so a row found on it was
// flushed on both. Killing the primary and restarting it from its own data directory would
// prove less: WAL written but not flushed survives a process kill in the page cache.
//
// The primary's WAL writer is slowed to its maximum delay: otherwise it flushes
// asynchronous commits every 200 ms and a barrier that flushes nothing would be saved by
// luck most of the time. A barrier that really flushes does not depend on it.

const CLIENTS = 6;
const LOAD_MS = 1_500;

let db: ReplicatedPostgres;
let gw: TestGateway;
let app: AppWithSecrets;

before(async () => {
  db = await startReplicatedPostgres({
    primarySettings: ['wal_writer_delay=10s', 'wal_writer_flush_after=1GB'],
  });
  gw = await startTestGateway({}, { database: { url: db.url, drop: async () => undefined } });
  app = await gw.createApp();
});

after(async () => {
  await gw?.stop().catch(() => undefined);
  await db?.stop();
});

test('every payment answered 201 without an Idempotency-Key survives the primary being SIGKILLed', async (t) => {
  const acknowledged: string[] = [];
  let killed = false;
  let failedAfterKill = 0;
  const client = async (n: number) => {
    for (let i = 0; !killed; i++) {
      const body = JSON.stringify({
        external_user_id: `durable-${n}`,
        email: 'durable@example.com',
        amount_minor: 10_000 + n * 1000 + i,
        currency: 'IDR',
        method: 'qris',
        return_url: 'https://shop.example/back',
      });
      const res = await gw.v1(app, 'POST', '/v1/payments', body).catch(() => undefined);
      if (res?.status === 201) {
        acknowledged.push(res.json<{ payment_id: string }>().payment_id);
      } else if (killed) {
        failedAfterKill++;
      } else {
        assert.fail(`create before the kill: ${res?.status} ${res?.text}`);
      }
    }
  };
  // Payment creations commit their last write synchronously (issue 28: the provider's
  // answer with the key's completion); app creations commit asynchronously and are answered
  // after the barrier alone (db/pool.ts durable()), which this client keeps exercised.
  const appsAcknowledged: string[] = [];
  const appClient = async () => {
    for (let i = 0; !killed; i++) {
      const res = await gw
        .admin('POST', '/admin/apps', { name: `durable ${i}` })
        .catch(() => undefined);
      if (res?.status === 201) appsAcknowledged.push(res.json<{ app_id: string }>().app_id);
      else if (!killed) assert.fail(`app before the kill: ${res?.status} ${res?.text}`);
    }
  };
  const load = Promise.all([...Array.from({ length: CLIENTS }, (_, n) => client(n)), appClient()]);
  // At least LOAD_MS of load, and on a busy machine until every client has had answers.
  await new Promise((r) => setTimeout(r, LOAD_MS));
  for (const until = Date.now() + 60_000; Date.now() < until;) {
    if (acknowledged.length >= CLIENTS * 2 && appsAcknowledged.length > 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const ackedBeforeKill = acknowledged.length;
  db.killPrimary();
  killed = true;
  await load;
  await db.promoteStandby();

  const standby = new pg.Client({ connectionString: db.nodeUrl(db.standby) });
  await standby.connect();
  let found: Set<string>;
  let appsFound: Set<string>;
  try {
    const rows = await standby.query<{ id: string }>('SELECT id FROM payments WHERE id = ANY($1)', [
      acknowledged,
    ]);
    found = new Set(rows.rows.map((r) => r.id));
    const apps = await standby.query<{ id: string }>('SELECT id FROM apps WHERE id = ANY($1)', [
      appsAcknowledged,
    ]);
    appsFound = new Set(apps.rows.map((r) => r.id));
  } finally {
    await standby.end();
  }
  const missing = acknowledged.filter((id) => !found.has(id));
  t.diagnostic(
    `[durability] ${acknowledged.length} payments acknowledged (${ackedBeforeKill} before the kill), ` +
      `${found.size} on the promoted standby, ${failedAfterKill} requests failed after the kill`,
  );
  assert.ok(ackedBeforeKill >= CLIENTS, `a load ran (${ackedBeforeKill} payments)`);
  assert.deepEqual(missing, [], 'every acknowledged payment is on the promoted standby');
  t.diagnostic(
    `[durability] ${appsAcknowledged.length} apps acknowledged, ${appsFound.size} found`,
  );
  assert.ok(appsAcknowledged.length > 0, 'apps were created under the load');
  assert.deepEqual(
    appsAcknowledged.filter((id) => !appsFound.has(id)),
    [],
    'every acknowledged app (answered after the barrier alone) is on the promoted standby',
  );
});
