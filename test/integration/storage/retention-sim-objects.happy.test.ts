import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPool, type Pool } from '../../../src/db/pool.js';
import { purgeOldSimObjects } from '../../../src/simulators/db/objects.js';
import { purgeHistory } from '../../../src/workers.js';
import { startWithReceiver, type GatewayWithReceiver } from '../../helpers/gateway.js';
import { paidPayment } from '../../helpers/payments.js';

// docs/operations.md#retention: the simulators' objects (test mode) that nothing created or
// changed within SIM_OBJECTS_RETENTION_DAYS go with the retention job; an object changed
// recently (a refund weeks after its payment) stays, and so does a young one. Objects are
// made by the real flows (a test payment paid at the simulator), then aged.

let h: GatewayWithReceiver;
let pool: Pool;

before(async () => {
  h = await startWithReceiver({ SIM_OBJECTS_RETENTION_DAYS: '10' });
  pool = createPool(h.gw.databaseUrl, 4);
});
after(async () => {
  await pool?.end();
  await h?.stop();
});

type Key = string;

/** The objects made since `since` (provider/kind/id). */
async function objectsSince(since: Date): Promise<Key[]> {
  const res = await pool.query<{ k: string }>(
    `SELECT provider || '/' || kind || '/' || id AS k FROM paygate_sim.sim_objects WHERE created_at >= $1 ORDER BY 1`,
    [since],
  );
  return res.rows.map((r) => r.k);
}

async function age(keys: Key[], createdDays: number, updatedDays: number): Promise<void> {
  const res = await pool.query(
    `UPDATE paygate_sim.sim_objects SET created_at = now() - $2 * interval '1 day',
       updated_at = now() - $3 * interval '1 day'
     WHERE provider || '/' || kind || '/' || id = ANY($1)`,
    [keys, createdDays, updatedDays],
  );
  assert.equal(res.rowCount, keys.length);
}

async function present(keys: Key[]): Promise<number> {
  const res = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM paygate_sim.sim_objects WHERE provider || '/' || kind || '/' || id = ANY($1)`,
    [keys],
  );
  return res.rows[0]!.n;
}

/** A test payment paid at the simulator, and the objects the simulator made for it. */
async function paidWithObjects(amount: number): Promise<{ providerRef: string; keys: Key[] }> {
  const since = new Date(Date.now() - 1000);
  const p = await paidPayment(h.gw, h.app, 'idr', amount);
  // Objects of earlier payments were aged away from "now", so these are this payment's.
  const keys = await objectsSince(since);
  assert.ok(keys.length > 0, 'the simulator keeps state for a test payment');
  return { providerRef: p.providerRef, keys };
}

test('objects untouched past the retention go; recently changed and young ones stay', async () => {
  const old = await paidWithObjects(10_000);
  await age(old.keys, 11, 11);
  const changed = await paidWithObjects(11_000);
  await age(changed.keys, 40, 2); // paid 40 days ago, refunded or disputed 2 days ago
  const oldCreatedOnly = await paidWithObjects(12_000);
  await age(oldCreatedOnly.keys, 9, 9); // inside the 10 days
  const young = await paidWithObjects(13_000);

  const deleted = await purgeHistory(h.gw.running.gw, h.gw.running.simulators?.purgeOld);
  assert.equal(deleted['simulator objects'], old.keys.length);
  assert.equal(await present(old.keys), 0);
  assert.equal(await present(changed.keys), changed.keys.length);
  assert.equal(await present(oldCreatedOnly.keys), oldCreatedOnly.keys.length);
  assert.equal(await present(young.keys), young.keys.length);

  // The purged payment is gone at the simulator too: it answers as a provider does for an
  // unknown transaction, and the gateway's own payment is untouched.
  const r = await fetch(`${h.gw.url}/sim/idr_psp/payments/${old.providerRef}/pay`, {
    method: 'POST',
  });
  assert.deepEqual(
    { status: r.status, body: await r.text() },
    { status: 404, body: 'unknown reference' },
  );
  const again = await purgeHistory(h.gw.running.gw, h.gw.running.simulators?.purgeOld);
  assert.equal(again['simulator objects'], 0);
});

test('two instances purging at once in batches of one delete each old object once', async () => {
  const made = await Promise.all([1, 2, 3, 4].map((i) => paidWithObjects(20_000 + i)));
  const keys = [...new Set(made.flatMap((m) => m.keys))];
  const old = keys.slice(0, keys.length - 1);
  await age(old, 30, 30);
  const purger = async () => {
    let n = 0;
    for (let d; (d = await purgeOldSimObjects(pool, 10, 1)) > 0;) n += d;
    return n;
  };
  const [a, b] = await Promise.all([purger(), purger()]);
  assert.equal(a + b, old.length);
  assert.equal(await present(old), 0);
  assert.equal(await present(keys.slice(-1)), 1);
});
