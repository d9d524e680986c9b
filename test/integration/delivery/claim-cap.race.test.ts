import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CLAIM_TURN_SQL,
  claimDueDeliveries,
  type DeliveryAttempt,
} from '../../../src/db/deliveries.js';
import { enqueueEvent } from '../../../src/db/outbox.js';
import { createPool, type Pool } from '../../../src/db/pool.js';
import { eventually } from '../../helpers/eventually.js';
import { appPlansDatabase, deliveredAttempt, enqueueDeliveries } from '../../helpers/plans.js';

// The per-endpoint cap (DELIVERY_ENDPOINT_CONCURRENCY) holds across instances: each instance's
// worker claims on a connection of its own, and the claims of one endpoint race. A claim
// counts the endpoint's leases; one that counted while another instance's claim was taking
// rows, and took its own once those were committed, would lease more than the cap (seen as
// "the receiver held 4 requests at once" with a cap of 3 and two gateways).
//
// Here six workers claim one endpoint's deliveries as the delivery worker does, in five
// rounds of 120: each records the attempts it finished with its next claim. A worker counts
// its deliveries as in flight from its claim's commit to just before the statement recording
// them, so the sum never exceeds what the database holds leased; any sum above the cap is a
// cap broken. On the claim without turns every run failed (18 leased at once).

const CAP = 3;
const WORKERS = 6;
const ROUNDS = 5;
const PER_ROUND = 120;
const LEASE = 60_000;

const db = appPlansDatabase(4);

test('workers claiming one endpoint on connections of their own never lease more than its cap at once', async () => {
  let inFlight = 0;
  let maxInFlight = 0;
  // The worker's pools, as the gateway makes them.
  const pools: Pool[] = Array.from({ length: WORKERS }, () =>
    createPool(db.url, 1, false, { genericPlans: true }),
  );
  // A round: the workers start together (as instances woken by one NOTIFY) and take the
  // round's deliveries until none is left.
  const round = async (pool: Pool, deliveries: number, sent: { n: number }): Promise<void> => {
    let finished: DeliveryAttempt[] = [];
    let idle = 0;
    while (sent.n < deliveries && idle < 200) {
      inFlight -= finished.length;
      const claimed = await claimDueDeliveries(pool, 4, LEASE, CAP, finished);
      inFlight += claimed.length;
      maxInFlight = Math.max(maxInFlight, inFlight);
      sent.n += claimed.length;
      idle = claimed.length === 0 ? idle + 1 : 0;
      // The receiver's answers come back after a moment.
      await new Promise((r) => setTimeout(r, Math.random() * 3));
      finished = claimed.map((d) => deliveredAttempt(d.id, d.attempts));
    }
    inFlight -= finished.length;
    if (finished.length > 0) await claimDueDeliveries(pool, 0, LEASE, CAP, finished);
  };
  try {
    for (let r = 0; r < ROUNDS; r++) {
      await enqueueDeliveries(db.pool, PER_ROUND, r * PER_ROUND);
      const sent = { n: 0 };
      await Promise.all(pools.map((p) => round(p, PER_ROUND, sent)));
    }
  } finally {
    await Promise.all(pools.map((p) => p.end()));
  }
  const states = await db.pool.query<{ status: string; attempts: number; n: number }>(
    `SELECT status, attempts, count(*)::int AS n FROM deliveries GROUP BY 1, 2`,
  );
  assert.deepEqual(states.rows, [{ status: 'delivered', attempts: 1, n: ROUNDS * PER_ROUND }]);
  assert.ok(maxInFlight <= CAP, `${maxInFlight} deliveries of the endpoint leased at once`);
  assert.equal(maxInFlight, CAP, 'the workers together reached the cap');
});

test('a turn held by a session that went quiet ends after 5 s: the other workers claim again, and the quiet session is gone', async () => {
  await enqueueEvent(db.pool, {
    appId: 'app_plans',
    paymentId: null,
    eventType: 'payment.succeeded',
    body: '{"n":"quiet"}',
  });
  const quietPool = createPool(db.url, 1, false, { genericPlans: true });
  const workerPool = createPool(db.url, 1, false, { genericPlans: true });
  const quiet = await quietPool.connect();
  let ended: Error | undefined;
  quiet.on('error', (e) => (ended = e));
  try {
    const pid = (await quiet.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    // A worker's process stopped right after taking its turn.
    await quiet.query(CLAIM_TURN_SQL);
    const started = Date.now();
    const claimed = await claimDueDeliveries(workerPool, 4, LEASE, CAP);
    const waited = Date.now() - started;
    assert.deepEqual(
      claimed.map((d) => d.body),
      ['{"n":"quiet"}'],
    );
    assert.ok(waited >= 4_000, `the claim waited for the quiet turn (${waited} ms)`);
    // The server ended the quiet session, and with it its transaction.
    await eventually(async () => ended, 'the quiet session ended');
    const left = await db.pool.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid]);
    assert.equal(left.rowCount, 0);
    const err = await quiet.query('SELECT 1').then(
      () => null,
      (e: unknown) => e as Error,
    );
    assert.match(String(err?.message), /not queryable/);
  } finally {
    quiet.release(true);
    await quietPool.end();
    await workerPool.end();
  }
});
