import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { claimStatement } from '../../../src/db/deliveries.js';
import { enqueueEvent } from '../../../src/db/outbox.js';
import { analyzeGrownTables } from '../../../src/db/planGuard.js';
import { createPool, type Pool } from '../../../src/db/pool.js';
import { createTestDatabase } from '../../helpers/db.js';
import { deliveredAttempt, insertPlansApp, seqScans, type PlanNode } from '../../helpers/plans.js';

// The delivery worker claims and records on a pool that plans each statement once,
// generically (src/gateway.ts deliveryPool, db/deliveries.ts claimStatements): a custom plan
// of its claim took longer to make than the claim to run. A generic plan is made on whatever
// the tables held when the statement was first run: here, one delivery. The tables then grow
// to a backlog (30,000 deliveries, 10,000 of them due, 2,000 endpoints), the plan guard runs
// as the workers run it, and the statements the worker's connection prepared are EXPLAINed
// as they would run next. A sequential scan of a grown table, an index read from end to end,
// or a claim that does not take its rows from the due index's first entries is a plan gone
// bad.

const LEASE = 60_000;
const CAP = 8;
const GROWN_TABLES = ['deliveries', 'outbound_events', 'webhook_endpoints'];
/** Deliveries of the young installation (all delivered). */
const YOUNG = 1_500;

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let workerPool: Pool;
let admin: Pool;
let session: pg.PoolClient;

before(async () => {
  db = await createTestDatabase();
  admin = createPool(db.url, 2);
  await insertPlansApp(admin);
  // The worker's pool as the gateway makes it, one connection held for the test.
  workerPool = createPool(db.url, 1, false, { genericPlans: true });
  session = await workerPool.connect();
});

after(async () => {
  session?.release();
  await workerPool?.end();
  await admin?.end();
  await db?.drop();
});

/**
 * The partial index of deliveries in flight holds only the leased ones (at most the workers'
 * slots, whatever the backlog): the claim reads all of it by design, as its custom plan did.
 */
const WHOLE_BY_DESIGN = ['deliveries_in_flight_idx'];

function badScans(node: PlanNode, out: string[] = []): string[] {
  const rel = node['Relation Name'];
  if (rel && GROWN_TABLES.includes(rel)) {
    if (node['Node Type'] === 'Seq Scan') out.push(`Seq Scan on ${rel}`);
    const index = node['Index Name'] ?? '';
    if (/Index/.test(node['Node Type']) && !node['Index Cond'] && !WHOLE_BY_DESIGN.includes(index))
      out.push(`full scan of index ${node['Index Name']}`);
  }
  for (const child of node.Plans ?? []) badScans(child, out);
  return out;
}

/** The plan a statement the worker's connection prepared would run next (its parameters NULL). */
async function preparedPlan(session: pg.PoolClient, name: string): Promise<PlanNode> {
  const n = name.startsWith('deliveries_record') ? 11 : 2;
  const res = await session.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
    `EXPLAIN (FORMAT JSON) EXECUTE ${name}(${Array(n).fill('NULL').join(', ')})`,
  );
  return res.rows[0]!['QUERY PLAN'][0].Plan;
}

function indexesUsed(node: PlanNode, out: string[] = []): string[] {
  if (node['Index Name']) out.push(node['Index Name']);
  for (const child of node.Plans ?? []) indexesUsed(child, out);
  return out;
}

/**
 * One delivery enqueued, claimed, then recorded by the next claim (which takes nothing): the
 * worker's two statements prepared on `session`. Returns the delivery's id.
 */
async function claimAndRecordOne(
  admin: Pool,
  session: pg.PoolClient,
  body: string,
): Promise<string> {
  const one = await enqueueEvent(admin, {
    appId: 'app_plans',
    paymentId: null,
    eventType: 'payment.succeeded',
    body,
  });
  assert.ok(one?.deliveryId);
  const claimed = await claimStatement(session, 31, LEASE, CAP);
  assert.deepEqual(
    claimed.map((d) => [d.id, d.attempts]),
    [[one.deliveryId, 1]],
  );
  assert.deepEqual(
    await claimStatement(session, 31, LEASE, CAP, [deliveredAttempt(one.deliveryId, 1)]),
    [],
  );
  return one.deliveryId;
}

// A young installation: 1,500 deliveries, all delivered. Below about 2,000 rows, a generic
// plan of the record-and-claim joined its batch of attempts and its picked rows to
// `deliveries` by hash over a sequential scan: the whole table read twice per claim, for a
// handful of rows (seen in the webhook bench, with `auto_explain`). The rows are found by
// primary key whatever the statistics.
test("on a young installation's tables the worker's claims find their rows by primary key", async () => {
  // A database of its own: the test below starts from one delivery.
  const young = await createTestDatabase();
  const youngAdmin = createPool(young.url, 2);
  const youngPool = createPool(young.url, 1, false, { genericPlans: true });
  const worker = await youngPool.connect();
  try {
    await checkYoungInstallation(youngAdmin, worker);
  } finally {
    worker.release();
    await youngPool.end();
    await youngAdmin.end();
    await young.drop();
  }
});

async function checkYoungInstallation(admin: Pool, session: pg.PoolClient): Promise<void> {
  await insertPlansApp(admin);
  await admin.query(
    `INSERT INTO outbound_events (id, app_id, event_type, body, created_at)
     SELECT 'young_evt_' || n, 'app_plans', 'payment.succeeded', '{"n":' || n || '}',
       now() - interval '2 hours' + n * interval '1 ms'
     FROM generate_series(1, ${YOUNG}) n`,
  );
  await admin.query(
    `INSERT INTO deliveries (id, event_id, app_id, status, attempts, next_attempt_at,
       delivered_at, created_at)
     SELECT 'young_dlv_' || n, 'young_evt_' || n, 'app_plans', 'delivered', 1,
       now() - interval '2 hours', now(), now() - interval '2 hours'
     FROM generate_series(1, ${YOUNG}) n`,
  );
  await admin.query('ANALYZE deliveries, outbound_events');
  // The statements prepared on the worker's connection, and EXPLAINed as they would run next.
  await claimAndRecordOne(admin, session, '{"young":true}');
  for (const name of ['deliveries_claim_31', 'deliveries_record_claim_31']) {
    const plan = await preparedPlan(session, name);
    assert.deepEqual(
      [...seqScans(plan, 'deliveries'), ...seqScans(plan, 'outbound_events')],
      [],
      name,
    );
  }
}

test("the worker's claims plan once, generically, and stay on their indexes as a backlog grows", async () => {
  const mode = await session.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode');
  assert.equal(mode.rows[0]?.plan_cache_mode, 'force_generic_plan');

  // One delivery on a new installation.
  const firstId = await claimAndRecordOne(admin, session, '{"n":1}');
  const names = await session.query<{ name: string }>(
    `SELECT name FROM pg_prepared_statements WHERE name LIKE 'deliveries%' ORDER BY name`,
  );
  assert.deepEqual(
    names.rows.map((r) => r.name),
    ['deliveries_claim_31', 'deliveries_record_claim_31'],
  );

  // The backlog: 30,000 events each with a delivery, the first 20,000 delivered, the last
  // 10,000 due (the even ones to 2,000 endpoints of the app).
  await admin.query(
    `INSERT INTO outbound_events (id, app_id, event_type, body, created_at)
     SELECT 'evt_' || n, 'app_plans', 'payment.succeeded', '{"n":' || n || '}',
       now() - interval '1 hour' + n * interval '1 ms'
     FROM generate_series(1, 30000) n`,
  );
  // Endpoints after the events: the outbox's fan-out gives none of these a delivery of its own.
  await admin.query(
    `INSERT INTO webhook_endpoints (id, app_id, url, event_types, secret_enc)
     SELECT 'ep_' || n, 'app_plans', 'https://hooks.example/' || n, '{payment.succeeded}', 'x'
     FROM generate_series(1, 2000) n`,
  );
  await admin.query(
    `INSERT INTO deliveries (id, event_id, app_id, endpoint_id, status, attempts,
       next_attempt_at, delivered_at, created_at)
     SELECT 'dlv_' || n, 'evt_' || n, 'app_plans',
       CASE WHEN n % 2 = 0 THEN 'ep_' || (n % 2000 + 1) END,
       CASE WHEN n <= 20000 THEN 'delivered' ELSE 'pending' END, CASE WHEN n <= 20000 THEN 1 ELSE 0 END,
       now() - interval '1 hour' + n * interval '1 ms',
       CASE WHEN n <= 20000 THEN now() END, now() - interval '1 hour'
     FROM generate_series(1, 30000) n`,
  );
  const analysed = await analyzeGrownTables(admin);
  for (const table of ['deliveries', 'outbound_events', 'webhook_endpoints']) {
    assert.ok(analysed.analysed.includes(table), `${table} analysed: ${analysed.analysed}`);
  }

  for (const name of ['deliveries_claim_31', 'deliveries_record_claim_31']) {
    const plan = await preparedPlan(session, name);
    assert.deepEqual(badScans(plan), [], name);
    assert.ok(indexesUsed(plan).includes('deliveries_due_idx'), `${name}: ${indexesUsed(plan)}`);
  }

  // And the claim does what it says on the backlog: the 31 earliest due rows, of which the
  // app's default endpoint (odd rows) keeps its cap of 8 and each endpoint (even rows, one
  // each) its one; the 8 other rows of the default endpoint are left due.
  const taken = await claimStatement(session, 31, LEASE, CAP, [deliveredAttempt(firstId, 1)]);
  const earliest = Array.from({ length: 31 }, (_, i) => 20001 + i);
  const expected = [
    ...earliest.filter((n) => n % 2 === 1).slice(0, CAP),
    ...earliest.filter((n) => n % 2 === 0),
  ].map((n) => `dlv_${n}`);
  assert.deepEqual(taken.map((d) => d.id).sort(), expected.sort());
});
