import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import {
  claimDueDeliveries,
  claimStatement,
  type DeliveryAttempt,
} from '../../../src/db/deliveries.js';
import { enqueueEvent } from '../../../src/db/outbox.js';
import { AttemptRecorder } from '../../../src/delivery/recorder.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

// The delivery-attempt recorder's fallback (src/delivery/recorder.ts, docs/operations.md
// "Delivery attempts, written in batches"): when the one statement of a batch fails, its
// attempts are written again one at a time; an attempt whose own write fails too is rejected
// (the worker logs it and the delivery's lease runs out, so it is attempted again) and the
// others are recorded. Real failures of real statements: a delivery's row held by another
// transaction past the connection's lock_timeout, and a connection terminated under a batch.

let gw: TestGateway;
let app: AppWithSecrets;
before(async () => {
  // No delivery worker: the deliveries below are recorded by the test's recorder only.
  gw = await startTestGateway({}, { workers: false });
  app = await gw.createApp({ name: 'Recorder' });
});
after(() => gw?.stop());

async function pendingDeliveries(n: number, appId = app.app_id): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const e = await enqueueEvent(gw.running.gw.pool, {
      appId,
      paymentId: null,
      eventType: 'payment.succeeded',
      body: `{"n":${i}}`,
    });
    assert.ok(e?.deliveryId);
    ids.push(e.deliveryId);
  }
  return ids;
}

function attempt(deliveryId: string, statusCode: number): DeliveryAttempt {
  return {
    deliveryId,
    verdict: 'delivered',
    statusCode,
    error: null,
    responseBody: `ok ${statusCode}`,
    delayMs: 0,
    attempt: 1,
    startedAt: new Date(),
    durationMs: 12,
  };
}

interface Recorded {
  id: string;
  status: string;
  last_status_code: number | null;
  attempt_rows: number;
}

async function recorded(ids: string[]): Promise<Recorded[]> {
  const res = await gw.running.gw.pool.query<Recorded>(
    `SELECT d.id, d.status, d.last_status_code,
       (SELECT count(*)::int FROM delivery_attempts a WHERE a.delivery_id = d.id) AS attempt_rows
     FROM deliveries d WHERE d.id = ANY($1) ORDER BY array_position($1, d.id)`,
    [ids],
  );
  return res.rows;
}

/** Claims due deliveries, these among them (leased, one attempt each). */
async function claimed(ids: string[]): Promise<void> {
  const c = await claimDueDeliveries(gw.running.gw.pool, 100, 60_000, 100);
  const got = new Set(c.map((d) => d.id));
  assert.ok(ids.every((id) => got.has(id)));
}

/** A transaction of its own holding one delivery's row, as another writer would. */
async function holdRow(deliveryId: string): Promise<pg.PoolClient> {
  const c = await gw.running.gw.pool.connect();
  await c.query('BEGIN');
  await c.query('SELECT 1 FROM deliveries WHERE id = $1 FOR UPDATE', [deliveryId]);
  return c;
}

function recorderPool(name: string, options = ''): pg.Pool {
  const pool = new pg.Pool({
    connectionString: gw.databaseUrl,
    application_name: name,
    options,
    max: 2,
  });
  pool.on('error', () => undefined);
  return pool;
}

test('a batch that fails on one locked delivery (lock_timeout): the others are recorded one at a time, the locked one is rejected and recorded on its next attempt', async () => {
  const [first, before, locked, afterIt] = await pendingDeliveries(4);
  const ids = [first!, before!, locked!, afterIt!];
  // Claimed first (leased, one attempt each), as the worker's claim would have: only a
  // delivery's current claim is recorded as its state.
  await claimed(ids);
  const holder = await holdRow(locked!);
  // The gateway's role with a lock_timeout, as operators often set (ALTER ROLE ... SET
  // lock_timeout): a write that would queue behind the held row fails instead.
  const pool = recorderPool('recorder-lock-test', '-c lock_timeout=300');
  try {
    const recorder = new AttemptRecorder(pool);
    // The first attempt is written alone, at once; the three that finish while that write is
    // out go together in the next statement, which fails on the locked row.
    const results = await Promise.allSettled([
      recorder.record(attempt(first!, 200)),
      recorder.record(attempt(before!, 201)),
      recorder.record(attempt(locked!, 202)),
      recorder.record(attempt(afterIt!, 204)),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
    );
    const err = (results[2] as PromiseRejectedResult).reason as { code?: string; message: string };
    assert.deepEqual([err.code, err.message], ['55P03', 'canceling statement due to lock timeout']);

    // Recorded: each of the others once, with its own answer. The rejected one is untouched
    // (still pending, no attempt row): its lease runs out and it is attempted again.
    assert.deepEqual(await recorded(ids), [
      { id: first, status: 'delivered', last_status_code: 200, attempt_rows: 1 },
      { id: before, status: 'delivered', last_status_code: 201, attempt_rows: 1 },
      { id: locked, status: 'pending', last_status_code: null, attempt_rows: 0 },
      { id: afterIt, status: 'delivered', last_status_code: 204, attempt_rows: 1 },
    ]);

    // The row is free again: the attempt, written again under its claim, is recorded.
    await holder.query('ROLLBACK');
    await recorder.record(attempt(locked!, 200));
    assert.deepEqual((await recorded([locked!]))[0], {
      id: locked,
      status: 'delivered',
      last_status_code: 200,
      attempt_rows: 1,
    });
  } finally {
    await holder.query('ROLLBACK').catch(() => undefined);
    holder.release();
    await pool.end();
  }
});

test('a batch whose connection is terminated: every attempt of it is still recorded, one at a time, none rejected', async () => {
  const [first, a, b, c] = await pendingDeliveries(4);
  const batch = [a!, b!, c!];
  await claimed([first!, ...batch]);
  const holder = await holdRow(b!);
  const pool = recorderPool('recorder-kill-test');
  const admin = gw.running.gw.pool;
  try {
    const recorder = new AttemptRecorder(pool);
    const waitingPid = () =>
      eventually(async () => {
        const w = await admin.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity
           WHERE application_name = 'recorder-kill-test' AND wait_event_type = 'Lock'`,
        );
        return w.rows[0]?.pid;
      }, 'a recorder statement waiting on the held row');
    const done = Promise.allSettled([
      recorder.record(attempt(first!, 200)),
      ...batch.map((id) => recorder.record(attempt(id, 200))),
    ]);
    // The batch of three waits on the held row; its connection dies under it.
    const batchPid = await waitingPid();
    await admin.query('SELECT pg_terminate_backend($1)', [batchPid]);
    // One at a time now: the held row's own write waits on a new connection; the row is
    // then released, as a finished transaction releases it.
    await eventually(async () => {
      const pid = await waitingPid();
      return pid !== batchPid ? pid : undefined;
    }, 'the one-at-a-time write of the held row');
    await holder.query('ROLLBACK');
    const results = await done;
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled'],
    );
    assert.deepEqual(
      (await recorded([first!, ...batch])).map((r) => [r.status, r.attempt_rows]),
      [
        ['delivered', 1],
        ['delivered', 1],
        ['delivered', 1],
        ['delivered', 1],
      ],
    );
  } finally {
    await holder.query('ROLLBACK').catch(() => undefined);
    holder.release();
    await pool.end();
  }
});

test('folded into a claim: the statement that records a batch and claims fails on one locked delivery; the batch is written one at a time, the locked one rejected', async () => {
  const [first, locked, last] = await pendingDeliveries(3);
  const ids = [first!, locked!, last!];
  const pool = recorderPool('recorder-fold-lock-test', '-c lock_timeout=300');
  // Claimed first (leased, one attempt each), as the worker's claim would have.
  const claimed = await claimDueDeliveries(pool, 10, 60_000, 100);
  assert.deepEqual(claimed.map((d) => d.id).sort(), [...ids].sort());
  const holder = await holdRow(locked!);
  try {
    const recorder = new AttemptRecorder(pool);
    let woken = 0;
    recorder.fold(() => woken++);
    const results = Promise.allSettled(ids.map((id) => recorder.record(attempt(id, 200))));
    // Folded: nothing is written until a claim takes the batch.
    assert.equal(woken, 3);
    assert.deepEqual(
      (await recorded(ids)).map((r) => r.attempt_rows),
      [0, 0, 0],
    );
    const batch = recorder.take();
    assert.deepEqual(
      batch.attempts.map((a) => a.deliveryId),
      ids,
    );
    const err = await claimDueDeliveries(pool, 10, 60_000, 100, batch.attempts).then(
      () => null,
      (e: unknown) => e as { code?: string },
    );
    assert.equal(err?.code, '55P03');
    await recorder.failed(batch);
    assert.deepEqual(
      (await results).map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(await recorded(ids), [
      { id: first, status: 'delivered', last_status_code: 200, attempt_rows: 1 },
      { id: locked, status: 'pending', last_status_code: null, attempt_rows: 0 },
      { id: last, status: 'delivered', last_status_code: 200, attempt_rows: 1 },
    ]);
  } finally {
    await holder.query('ROLLBACK').catch(() => undefined);
    holder.release();
    await pool.end();
  }
});

test('folded into a claim: the recorded deliveries no longer count against their target cap, and are not claimed again by the same statement', async () => {
  // An app of its own: the deliveries the tests above leave pending are not its target's.
  const own = await gw.createApp({ name: 'Recorder cap' });
  const [a, b] = await pendingDeliveries(2, own.app_id);
  // Cap of one per target: the first claim takes one of the two.
  const firstClaim = await claimDueDeliveries(gw.running.gw.durablePool, 10, 60_000, 1);
  assert.equal(firstClaim.length, 1);
  const taken = firstClaim[0]!.id;
  const other = taken === a ? b! : a!;
  // Without a record the target is at its cap: nothing more.
  assert.deepEqual(await claimDueDeliveries(gw.running.gw.durablePool, 10, 60_000, 1), []);
  // Recording the attempt and claiming in one statement: its delivery is done, so the other
  // one is claimed by that same statement.
  const secondClaim = await claimDueDeliveries(gw.running.gw.durablePool, 10, 60_000, 1, [
    { ...attempt(taken, 500), verdict: 'retry', delayMs: 0 },
  ]);
  assert.deepEqual(
    secondClaim.map((d) => [d.id, d.attempts]),
    [[other, 1]],
  );
  const states = await gw.running.gw.pool.query<{ id: string; attempts: number; leased: boolean }>(
    `SELECT id, attempts, locked_until IS NOT NULL AS leased FROM deliveries
     WHERE id = ANY($1) ORDER BY array_position($1, id)`,
    [[taken, other]],
  );
  // The retried one is free again (its retry due now) with one attempt; the other is leased.
  assert.deepEqual(
    states.rows.map((r) => [r.id, r.attempts, r.leased]),
    [
      [taken, 1, false],
      [other, 1, true],
    ],
  );
  assert.deepEqual(
    (await recorded([taken])).map((r) => [r.status, r.last_status_code, r.attempt_rows]),
    [['pending', 500, 1]],
  );
});

test('a claim that took deliveries commits synchronously (their durability barrier); one that took none, recording or not, does not wait for a flush', async () => {
  const own = await gw.createApp({ name: 'Recorder durability' });
  // A connection that commits asynchronously, as the worker's pool does; each claim in a
  // transaction of its own, so the setting its commit will use can be read before COMMIT.
  const pool = recorderPool('recorder-durability-test', '-c synchronous_commit=off');
  const commitSetting = async (run: (c: pg.PoolClient) => Promise<unknown>) => {
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      await run(c);
      const s = await c.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
      await c.query('COMMIT');
      return s.rows[0]?.synchronous_commit;
    } finally {
      c.release();
    }
  };
  try {
    // Drain what the tests above left due, so the claims below see only this test's rows.
    while ((await claimDueDeliveries(pool, 100, 60_000, 100)).length > 0);
    const [id] = await pendingDeliveries(1, own.app_id);
    let claimed: string[] = [];
    assert.equal(
      await commitSetting(async (c) => {
        claimed = (await claimStatement(c, 10, 60_000, 100)).map((d) => d.id);
      }),
      'on',
    );
    assert.deepEqual(claimed, [id]);
    // Nothing due: the claim records the attempt and takes nothing.
    assert.equal(
      await commitSetting(async (c) => {
        claimed = (await claimStatement(c, 10, 60_000, 100, [attempt(id!, 200)])).map((d) => d.id);
      }),
      'off',
    );
    assert.deepEqual(claimed, []);
    assert.deepEqual(
      (await recorded([id!])).map((r) => [r.status, r.attempt_rows]),
      [['delivered', 1]],
    );
  } finally {
    await pool.end();
  }
});

test("a claim's turn commits synchronously when it took deliveries, asynchronously when it took none", async () => {
  const own = await gw.createApp({ name: 'Recorder turn durability' });
  const pool = recorderPool('recorder-turn-durability-test', '-c synchronous_commit=off');
  // The setting each turn's COMMIT runs under, read on its connection just before it.
  const commits: string[] = [];
  const watched = {
    connect: async () => {
      const c = await pool.connect();
      const query = c.query.bind(c) as (q: unknown, ...rest: unknown[]) => Promise<pg.QueryResult>;
      const release = c.release.bind(c);
      return Object.assign(c, {
        query: async (q: unknown, ...rest: unknown[]) => {
          if (q === 'COMMIT') {
            const s = await query('SHOW synchronous_commit');
            commits.push(String(s.rows[0]?.synchronous_commit));
          }
          return query(q, ...rest);
        },
        release: (err?: Error | boolean) => {
          Object.assign(c, { query, release });
          release(err);
        },
      });
    },
    query: pool.query.bind(pool),
  } as unknown as pg.Pool;
  try {
    while ((await claimDueDeliveries(pool, 100, 60_000, 100)).length > 0);
    const [id] = await pendingDeliveries(1, own.app_id);
    const claimed = await claimDueDeliveries(watched, 10, 60_000, 100);
    assert.deepEqual(
      claimed.map((d) => d.id),
      [id],
    );
    assert.deepEqual(await claimDueDeliveries(watched, 10, 60_000, 100, [attempt(id!, 200)]), []);
    assert.deepEqual(await claimDueDeliveries(watched, 10, 60_000, 100), []);
    assert.deepEqual(commits, ['on', 'off', 'off']);
    // After the turn the connection commits as its pool does again.
    const s = await pool.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
    assert.equal(s.rows[0]?.synchronous_commit, 'off');
  } finally {
    await pool.end();
  }
});
