import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import {
  claimDueDeliveries,
  claimStatement,
  recordDeliveryAttempts,
  type DeliveryAttempt,
} from '../../../src/db/deliveries.js';
import { disableFailingEndpoints } from '../../../src/db/endpoints.js';
import { enqueueEvent } from '../../../src/db/outbox.js';
import { AttemptRecorder } from '../../../src/delivery/recorder.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

// Only a delivery's current claim changes its state (src/db/deliveries.ts RECORD_CTES,
// docs/operations.md "Delivery attempts, written in batches"). Instances A, B and C below
// are claims and records made the way the worker makes them, on real leases: A's lease has
// run out (claimed with a lease already over) when B claims the delivery again.

let gw: TestGateway;
let app: AppWithSecrets;
let pool: pg.Pool;
before(async () => {
  // No delivery worker: the test's claims and records are the only ones.
  gw = await startTestGateway({}, { workers: false });
  app = await gw.createApp({ name: 'Record guard' });
  pool = new pg.Pool({ connectionString: gw.databaseUrl, max: 4 });
  pool.on('error', () => undefined);
});
after(async () => {
  await pool?.end();
  await gw?.stop();
});

const LEASE = 60_000;
/** A lease that has run out as soon as it is taken. */
const EXPIRED = -1_000;
const CAP = 100;

/** Claims everything due now and keeps it leased: each test starts with nothing due. */
async function drain(): Promise<void> {
  while ((await claimDueDeliveries(pool, 100, LEASE, CAP)).length > 0);
}

async function pendingDelivery(): Promise<string> {
  await drain();
  const e = await enqueueEvent(pool, {
    appId: app.app_id,
    paymentId: null,
    eventType: 'payment.succeeded',
    body: '{"n":1}',
  });
  assert.ok(e?.deliveryId);
  return e.deliveryId;
}

function attempt(
  deliveryId: string,
  n: number,
  verdict: DeliveryAttempt['verdict'],
  statusCode: number,
): DeliveryAttempt {
  return {
    deliveryId,
    verdict,
    statusCode,
    error: null,
    responseBody: `answer ${statusCode}`,
    delayMs: 0,
    attempt: n,
    startedAt: new Date(),
    durationMs: 5,
  };
}

interface State {
  status: string;
  attempts: number;
  leased: boolean;
  last_status_code: number | null;
  history: string[];
}

async function state(id: string): Promise<State> {
  const r = await pool.query<State>(
    `SELECT d.status, d.attempts, d.locked_until IS NOT NULL AS leased, d.last_status_code,
       ARRAY(SELECT a.attempt || ':' || a.outcome || ':' || a.status_code FROM delivery_attempts a
         WHERE a.delivery_id = d.id ORDER BY a.attempt, a.id) AS history
     FROM deliveries d WHERE d.id = $1`,
    [id],
  );
  return r.rows[0] as State;
}

async function claimOne(leaseMs: number): Promise<number> {
  const c = await claimDueDeliveries(pool, 10, leaseMs, CAP);
  assert.equal(c.length, 1);
  return c[0]!.attempts;
}

test('a late retry of an attempt whose lease ran out leaves the delivery to the instance that claimed it again: no third claim, both attempts on record', async () => {
  const id = await pendingDelivery();
  assert.equal(await claimOne(EXPIRED), 1); // A
  assert.equal(await claimOne(LEASE), 2); // B, sending
  // A's answer (a 503) lands late, folded into A's next claim.
  assert.deepEqual(
    await claimDueDeliveries(pool, 10, LEASE, CAP, [attempt(id, 1, 'retry', 503)]),
    [],
  );
  assert.deepEqual(await state(id), {
    status: 'pending',
    attempts: 2,
    leased: true,
    last_status_code: null,
    history: ['1:retry:503'],
  });
  // C claims nothing while B is sending (before: it claimed attempt 3, a second send at once).
  assert.deepEqual(await claimDueDeliveries(pool, 10, LEASE, CAP), []);
  // B's answer is the delivery's state.
  await recordDeliveryAttempts(pool, [attempt(id, 2, 'delivered', 200)]);
  assert.deepEqual(await state(id), {
    status: 'delivered',
    attempts: 2,
    leased: false,
    last_status_code: 200,
    history: ['1:retry:503', '2:delivered:200'],
  });
});

test('a late delivered of an attempt whose lease ran out marks the delivery delivered; the current claim then records its own attempt and frees its lease', async () => {
  const id = await pendingDelivery();
  assert.equal(await claimOne(EXPIRED), 1); // A
  assert.equal(await claimOne(LEASE), 2); // B, sending
  // The receiver has the event: A's 200 is a fact.
  await recordDeliveryAttempts(pool, [attempt(id, 1, 'delivered', 200)]);
  assert.deepEqual(await state(id), {
    status: 'delivered',
    attempts: 2,
    leased: true,
    last_status_code: 200,
    history: ['1:delivered:200'],
  });
  // B's send ends with a 503: recorded (before: dropped), the delivery stays delivered.
  await recordDeliveryAttempts(pool, [attempt(id, 2, 'retry', 503)]);
  assert.deepEqual(await state(id), {
    status: 'delivered',
    attempts: 2,
    leased: false,
    last_status_code: 200,
    history: ['1:delivered:200', '2:retry:503'],
  });
});

test('a late delivered of an attempt whose lease ran out settles a delivery the next attempt made dead: the receiver has the event', async () => {
  const id = await pendingDelivery();
  assert.equal(await claimOne(EXPIRED), 1); // A
  assert.equal(await claimOne(LEASE), 2); // B, its last attempt
  await recordDeliveryAttempts(pool, [attempt(id, 2, 'dead', 410)]);
  assert.equal((await state(id)).status, 'dead');
  // A's 200 lands afterwards (before: the delivery stayed dead, and a recover sent it again).
  await recordDeliveryAttempts(pool, [attempt(id, 1, 'delivered', 200)]);
  assert.deepEqual(await state(id), {
    status: 'delivered',
    attempts: 2,
    leased: false,
    last_status_code: 200,
    history: ['1:delivered:200', '2:dead:410'],
  });
  // A late failure never revives it.
  await recordDeliveryAttempts(pool, [attempt(id, 1, 'retry', 503)]);
  assert.equal((await state(id)).status, 'delivered');
});

test('an attempt written again after its folded statement committed (the client saw an error) changes nothing and adds no second attempt row', async () => {
  const id = await pendingDelivery();
  assert.equal(await claimOne(LEASE), 1);
  const recorder = new AttemptRecorder(pool);
  recorder.fold(() => undefined);
  const recorded = recorder.record({ ...attempt(id, 1, 'retry', 503), delayMs: 3_600_000 });
  const batch = recorder.take();
  // The statement that records it (and claims nothing) commits...
  await claimDueDeliveries(pool, 0, LEASE, CAP, batch.attempts);
  const first = await pool.query<{ next: Date }>(
    'SELECT next_attempt_at AS next FROM deliveries WHERE id = $1',
    [id],
  );
  // ...and the worker, told it failed, writes the batch again one attempt at a time.
  await recorder.failed(batch);
  await recorded;
  assert.deepEqual(await state(id), {
    status: 'pending',
    attempts: 1,
    leased: false,
    last_status_code: 503,
    history: ['1:retry:503'],
  });
  const again = await pool.query<{ next: Date }>(
    'SELECT next_attempt_at AS next FROM deliveries WHERE id = $1',
    [id],
  );
  assert.equal(again.rows[0]?.next.getTime(), first.rows[0]?.next.getTime());
});

test('a rewrite that runs while the first write of the same attempt has not committed yet waits for it, then changes nothing', async () => {
  const id = await pendingDelivery();
  assert.equal(await claimOne(LEASE), 1);
  const a1 = { ...attempt(id, 1, 'retry', 502), delayMs: 3_600_000 };
  const firstWrite = await pool.connect();
  try {
    await firstWrite.query('BEGIN');
    await recordDeliveryAttempts(firstWrite, [a1]);
    // The rewrite starts before the first write commits: it waits on the delivery's row.
    const rewrite = recordDeliveryAttempts(pool, [a1]);
    await eventually(async () => {
      const w = await pool.query(
        `SELECT 1 FROM pg_stat_activity WHERE datname = current_database()
           AND wait_event_type = 'Lock' AND query LIKE '%unnest($1::text[], $2::text[]%'`,
      );
      return (w.rowCount ?? 0) > 0;
    }, 'the rewrite waiting on the first write');
    await firstWrite.query('COMMIT');
    await rewrite;
  } finally {
    await firstWrite.query('ROLLBACK').catch(() => undefined);
    firstWrite.release();
  }
  assert.deepEqual(await state(id), {
    status: 'pending',
    attempts: 1,
    leased: false,
    last_status_code: 502,
    history: ['1:retry:502'],
  });
});

test('a late stale attempt written twice is on record once', async () => {
  const id = await pendingDelivery();
  assert.equal(await claimOne(EXPIRED), 1); // A
  assert.equal(await claimOne(LEASE), 2); // B
  // The rewrite is the same attempt (the recorder writes the object it was given again).
  const late = attempt(id, 1, 'retry', 504);
  await recordDeliveryAttempts(pool, [late]);
  await recordDeliveryAttempts(pool, [late]);
  assert.deepEqual((await state(id)).history, ['1:retry:504']);
});

// The first write is A's folded statement, held open on its own connection; the rewrite is
// the recorder's, told that statement failed. Before migration 0040 the rewrite checked for
// an attempt row of that number as of its statement's start, before the first write
// committed, and wrote a second one.
for (const [verdict, code, status, lastStatus] of [
  ['retry', 504, 'pending', null],
  ['delivered', 200, 'delivered', 200],
] as const) {
  test(`a late ${verdict} whose rewrite starts while its first write has not committed yet is on record once`, async () => {
    const id = await pendingDelivery();
    assert.equal(await claimOne(EXPIRED), 1); // A
    assert.equal(await claimOne(LEASE), 2); // B, sending
    const recorder = new AttemptRecorder(pool);
    recorder.fold(() => undefined);
    const recorded = recorder.record(attempt(id, 1, verdict, code));
    const batch = recorder.take();
    const firstWrite = await pool.connect();
    try {
      await firstWrite.query('BEGIN');
      assert.deepEqual(await claimStatement(firstWrite, 0, LEASE, CAP, batch.attempts), []);
      const rewrite = recorder.failed(batch);
      await eventually(async () => {
        const w = await pool.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database()
             AND wait_event_type = 'Lock' AND query LIKE '%unnest($1::text[], $2::text[]%'`,
        );
        return (w.rowCount ?? 0) > 0;
      }, 'the rewrite waiting on the first write');
      await firstWrite.query('COMMIT');
      await rewrite;
      await recorded;
    } finally {
      await firstWrite.query('ROLLBACK').catch(() => undefined);
      firstWrite.release();
    }
    assert.deepEqual(await state(id), {
      status,
      attempts: 2,
      leased: true,
      last_status_code: lastStatus,
      history: [`1:${verdict}:${code}`],
    });
  });
}

// An endpoint's failure record (failing_since, auto-disable) is written by the same
// statement; an endpoint row held by another transaction is skipped, never waited for.

async function endpoint(): Promise<string> {
  const res = await gw.admin('POST', `/admin/apps/${app.app_id}/endpoints`, {
    url: 'http://127.0.0.1:9/hook',
    event_types: ['payment.succeeded'],
  });
  assert.equal(res.status, 201);
  return res.json<{ endpoint_id: string }>().endpoint_id;
}

/** A pending delivery to the endpoint (of a fresh event whose default delivery is drained). */
async function endpointDelivery(endpointId: string): Promise<string> {
  const e = await enqueueEvent(pool, {
    appId: app.app_id,
    paymentId: null,
    eventType: 'payment.succeeded',
    body: '{"n":2}',
  });
  assert.ok(e);
  await drain();
  const r = await pool.query<{ id: string }>(
    `INSERT INTO deliveries (id, event_id, app_id, endpoint_id)
     VALUES ('dlv_' || substr(md5(random()::text), 1, 24), $1, $2, $3) RETURNING id`,
    [e.eventId, app.app_id, endpointId],
  );
  return r.rows[0]!.id;
}

async function failingSince(endpointId: string): Promise<Date | null> {
  const r = await pool.query<{ f: Date | null }>(
    'SELECT failing_since AS f FROM webhook_endpoints WHERE id = $1',
    [endpointId],
  );
  return r.rows[0]!.f;
}

test('an endpoint row held by another transaction (an admin replay) blocks no record: the statement records and claims for other endpoints; the failure record waits for a later batch', async () => {
  const held = await endpoint();
  const free = await endpoint();
  const d1 = await endpointDelivery(held);
  assert.equal(await claimOne(LEASE), 1);
  const d2 = await endpointDelivery(free);
  // The gateway's role with a lock_timeout: a record that waits on the endpoint fails
  // instead of waiting for as long as the holder holds it.
  const ltPool = new pg.Pool({
    connectionString: gw.databaseUrl,
    options: '-c lock_timeout=1000',
    max: 1,
  });
  ltPool.on('error', () => undefined);
  const holder = await pool.connect();
  try {
    await holder.query('BEGIN');
    // What enqueueRecovery (the admin replay) holds for its whole INSERT ... SELECT.
    await holder.query('SELECT 1 FROM webhook_endpoints WHERE id = $1 FOR UPDATE', [held]);
    const claimed = await claimDueDeliveries(ltPool, 10, LEASE, CAP, [
      attempt(d1, 1, 'retry', 503),
    ]);
    assert.deepEqual(
      claimed.map((d) => [d.id, d.endpoint_id]),
      [[d2, free]],
    );
    assert.deepEqual(await state(d1), {
      status: 'pending',
      attempts: 1,
      leased: false,
      last_status_code: 503,
      history: ['1:retry:503'],
    });
    // Left for a later batch.
    assert.equal(await failingSince(held), null);
  } finally {
    await holder.query('ROLLBACK').catch(() => undefined);
    holder.release();
    await ltPool.end();
  }
  // The next failure recorded for it starts its failure record.
  assert.deepEqual(
    (await claimDueDeliveries(pool, 10, LEASE, CAP)).map((d) => [d.id, d.attempts]),
    [[d1, 2]],
  );
  await recordDeliveryAttempts(pool, [attempt(d1, 2, 'retry', 503)]);
  assert.ok((await failingSince(held)) instanceof Date);
});

test('auto-disable: an endpoint with a delivery delivered since its failing_since (a success whose record skipped it) is not disabled, and its failing_since is cleared', async () => {
  const healed = await endpoint();
  const failing = await endpoint();
  const d = await endpointDelivery(healed);
  await endpointDelivery(failing);
  await pool.query(
    `UPDATE webhook_endpoints SET failing_since = now() - interval '10 days' WHERE id = ANY($1)`,
    [[healed, failing]],
  );
  await pool.query(
    `UPDATE deliveries SET status = 'delivered', delivered_at = now() WHERE id = $1`,
    [d],
  );
  const disabled = await disableFailingEndpoints(pool, 3);
  assert.deepEqual(
    disabled.map((r) => r.id),
    [failing],
  );
  const r = await pool.query<{ id: string; disabled: boolean; failing: boolean }>(
    `SELECT id, disabled, failing_since IS NOT NULL AS failing FROM webhook_endpoints
     WHERE id = ANY($1) ORDER BY array_position($1, id)`,
    [[healed, failing]],
  );
  assert.deepEqual(r.rows, [
    { id: healed, disabled: false, failing: false },
    { id: failing, disabled: true, failing: true },
  ]);
});

test('auto-disable: a success recorded in the same statement as the failure that set failing_since does not count as healed', async () => {
  const ep = await endpoint();
  const ok = await endpointDelivery(ep);
  const bad = await endpointDelivery(ep);
  // endpointDelivery drains what is due (ok too): ok pending and unclaimed again.
  await pool.query(`UPDATE deliveries SET locked_until = NULL, attempts = 0 WHERE id = $1`, [ok]);
  const claimed = await claimDueDeliveries(pool, 10, LEASE, CAP);
  assert.deepEqual(claimed.map((c) => c.id).sort(), [ok, bad].sort());
  // One batch: the success first, then the failure: failing_since = now() of that statement,
  // which is also the success's delivered_at.
  await recordDeliveryAttempts(pool, [
    attempt(ok, 1, 'delivered', 200),
    attempt(bad, 1, 'retry', 503),
  ]);
  const r0 = await pool.query<{ same: boolean }>(
    `SELECT ep.failing_since = d.delivered_at AS same FROM webhook_endpoints ep, deliveries d
     WHERE ep.id = $1 AND d.id = $2`,
    [ep, ok],
  );
  assert.deepEqual(r0.rows, [{ same: true }]);
  // Every attempt since then failed for the whole period (before: the sweep took the
  // success as a heal, cleared failing_since and restarted the clock).
  await pool.query(
    `UPDATE webhook_endpoints SET failing_since = failing_since - interval '10 days' WHERE id = $1`,
    [ep],
  );
  await pool.query(
    `UPDATE deliveries SET delivered_at = delivered_at - interval '10 days' WHERE id = $1`,
    [ok],
  );
  const disabled = await disableFailingEndpoints(pool, 3);
  assert.deepEqual(
    disabled.map((x) => x.id),
    [ep],
  );
});

test('a late success written again after a later failure leaves the endpoint failure record to that failure', async () => {
  const ep = await endpoint();
  const id = await endpointDelivery(ep);
  assert.equal(await claimOne(EXPIRED), 1); // A
  assert.equal(await claimOne(LEASE), 2); // B
  const late = attempt(id, 1, 'delivered', 200);
  await recordDeliveryAttempts(pool, [late]);
  assert.equal(await failingSince(ep), null);
  await recordDeliveryAttempts(pool, [attempt(id, 2, 'retry', 503)]);
  const since = await failingSince(ep);
  assert.ok(since instanceof Date);
  // A's attempt written again (its statement committed, its client saw an error): no row of
  // it is written, so it is not the endpoint's latest answer either.
  await recordDeliveryAttempts(pool, [late]);
  assert.deepEqual(await failingSince(ep), since);
  assert.deepEqual((await state(id)).history, ['1:delivered:200', '2:retry:503']);
});
