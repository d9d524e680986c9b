import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import type { AppWithSecrets } from '../../src/services/apps.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startReplicatedPostgres, type ReplicatedPostgres } from '../helpers/replicatedPostgres.js';

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
  const load = Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));
  await new Promise((r) => setTimeout(r, LOAD_MS));
  const ackedBeforeKill = acknowledged.length;
  db.killPrimary();
  killed = true;
  await load;
  await db.promoteStandby();

  const standby = new pg.Client({ connectionString: db.nodeUrl(db.standby) });
  await standby.connect();
  let found: Set<string>;
  try {
    const rows = await standby.query<{ id: string }>('SELECT id FROM payments WHERE id = ANY($1)', [
      acknowledged,
    ]);
    found = new Set(rows.rows.map((r) => r.id));
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
});
