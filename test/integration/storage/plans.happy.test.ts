import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import pg from 'pg';
import * as apps from '../../../src/db/apps.js';
import * as idem from '../../../src/db/idempotency.js';
import * as payments from '../../../src/db/payments.js';
import { finalizeInitiated } from '../../../src/db/paymentFinalize.js';
import {
  createPaymentWithFreshClaim,
  storeInitiatedRegistration,
} from '../../../src/db/paymentCreation.js';
import { analyzeGrownTables, grownTables } from '../../../src/db/planGuard.js';
import { createPool, type Pool } from '../../../src/db/pool.js';
import { createTestDatabase } from '../../helpers/db.js';
import { type PlanNode, finalization as successOf, insertPlansApp } from '../../helpers/plans.js';

// Issue 28: a named statement keeps the generic plan PostgreSQL made for it while its table
// was small. The session below plans generically from the first execution (what PostgreSQL
// chooses by itself after five), on tables of a few rows; the tables then grow to 30,000
// rows, and every prepared hot statement is EXPLAINed as its session would run it. A
// sequential scan of a grown table, or an index read from end to end (no Index Cond), is a
// plan gone bad. The plan guard (src/db/planGuard.ts, run by every instance's workers) must
// leave none.

const GROWN = 30_000;
const GROWN_TABLES = ['payments', 'idempotency_keys', 'customers'];

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: Pool;
let session: pg.Client;

/** Scans of a grown table that read all of it: "Seq Scan on t", "full scan of index i". */
function fullScans(node: PlanNode, out: string[] = []): string[] {
  const rel = node['Relation Name'];
  if (rel && GROWN_TABLES.includes(rel)) {
    if (node['Node Type'] === 'Seq Scan') out.push(`Seq Scan on ${rel}`);
    if (/Index/.test(node['Node Type']) && !node['Index Cond'])
      out.push(`full scan of index ${node['Index Name']}`);
  }
  for (const child of node.Plans ?? []) fullScans(child, out);
  return out;
}

/** Every statement prepared in the session, EXPLAINed with its cached plan: name -> bad scans. */
async function badPlans(): Promise<Map<string, string[]>> {
  const prepared = await session.query<{ name: string; n: number }>(
    `SELECT name, cardinality(parameter_types) AS n FROM pg_prepared_statements
     WHERE name NOT LIKE 'plan_guard%' ORDER BY name`,
  );
  const out = new Map<string, string[]>();
  for (const { name, n } of prepared.rows) {
    // A generic plan does not depend on the values; NULLs only fill the parameter list.
    const args = n > 0 ? `(${Array(n).fill('NULL').join(', ')})` : '';
    const res = await session.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      `EXPLAIN (FORMAT JSON) EXECUTE "${name}"${args}`,
    );
    out.set(name, fullScans(res.rows[0]!['QUERY PLAN'][0].Plan));
  }
  return out;
}

before(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 2);
  session = new pg.Client({ connectionString: db.url });
  await session.connect();
  await session.query('SET plan_cache_mode = force_generic_plan');
});

after(async () => {
  await session?.end();
  await pool?.end();
  await db?.drop();
});

test('no hot statement keeps a whole-table plan made while its tables were small', async (t) => {
  // A few rows, as on a new installation, and the hot statements prepared on them.
  await insertPlansApp(session);
  const scope = { appId: 'app_plans', endpoint: 'POST /v1/payments', key: 'k-small' };
  await idem.tryInsertClaim(session, scope, 'h', 60_000);
  const created = await payments.createPaymentRecord(
    session,
    {
      id: 'f'.repeat(32),
      app_id: 'app_plans',
      mode: 'test',
      amount_minor: 1000,
      currency: 'IDR',
      method: 'qris',
      provider: 'idr_psp',
      external_user_id: 'buyer-small',
      email: 'b@example.com',
      return_url: 'https://shop.example/',
      metadata: {},
    },
    { invoicePrefix: null, claim: scope, registrationDeadline: new Date(Date.now() + 60_000) },
  );
  const reg = {
    providerRef: 'ref-small',
    checkoutUrl: 'https://sim.example/pay',
    qrString: null,
    qrImageUrl: null,
    providerDeadline: null,
  };
  await payments.storeRegistration(session, created.id, reg);
  // The fresh path's two statements (written for batches: joins of unnest with the tables).
  const freshScope = { ...scope, key: 'k-small-fresh' };
  const fresh = await createPaymentWithFreshClaim(
    session,
    { ...created, id: 'e'.repeat(32), external_user_id: 'buyer-fresh' },
    { invoicePrefix: 'INV', registrationDeadline: new Date(Date.now() + 60_000) },
    { scope: freshScope, requestHash: 'h', leaseMs: 60_000 },
  );
  assert.ok(fresh);
  assert.equal(
    await storeInitiatedRegistration(
      session,
      fresh.id,
      { ...reg, providerRef: 'ref-fresh' },
      {
        scope: freshScope,
        status: 201,
        body: '{}',
      },
    ),
    true,
  );
  await idem.readClaim(session, scope);
  await idem.complete(session, scope, 201, '{}');
  await idem.release(session, scope);
  await payments.findPayment(session, created.id);
  await payments.findAppPayment(session, 'app_plans', created.id);
  await payments.findPaymentByProviderRef(session, 'idr_psp', 'ref-small');
  await new payments.PaymentReadBatcher(session).get(created.id);
  await apps.findAppByApiKey(session, 'key_plans');
  await finalizeInitiated(session, successOf(created.id, 'e'.repeat(32), 'd'.repeat(32)));
  const hot = [
    'apps_by_key',
    'idem_complete',
    'idem_insert',
    'idem_read',
    'idem_release',
    'payments_by_app_and_id',
    'payments_by_id',
    'payments_by_ids',
    'payments_by_provider_ref',
    'payments_create',
    'payments_create_claimed_batch',
    'payments_finalize_batch',
    'payments_store_registration',
    'payments_store_registration_complete_batch',
  ];
  assert.deepEqual([...(await badPlans()).keys()], hot);

  // The tables grow to production size in one go, as under load, faster than autovacuum.
  await session.query(
    `WITH p AS (
       INSERT INTO payments (id, app_id, mode, status, amount_minor, currency, method, provider,
         provider_ref, external_user_id, email, return_url, metadata, finalized_at)
       SELECT md5(g::text), 'app_plans', 'test',
         CASE WHEN g % 10 = 0 THEN 'initiated' ELSE 'succeeded' END, 1000 + g, 'IDR', 'qris',
         'idr_psp', 'ref-' || g, 'buyer-' || g, 'b@example.com', 'https://shop.example/', '{}',
         CASE WHEN g % 10 = 0 THEN NULL ELSE now() END
       FROM generate_series(1, $1) g RETURNING id, external_user_id),
     c AS (
       INSERT INTO customers (app_id, external_user_id, email, payments_count)
       SELECT 'app_plans', external_user_id, 'b@example.com', 1 FROM p)
     INSERT INTO idempotency_keys (app_id, endpoint, key, request_hash, state, resource_id)
     SELECT 'app_plans', 'POST /v1/payments', 'k-' || id, 'h', 'completed', id FROM p`,
    [GROWN],
  );
  assert.deepEqual((await grownTables(pool)).sort(), [...GROWN_TABLES].sort());

  // What PostgreSQL would run now, left alone: the check finds the bad plans it exists for.
  const stale = [...(await badPlans())].filter(([, scans]) => scans.length > 0);
  assert.ok(
    stale.length > 0,
    'generic plans made on tiny tables scan the grown ones (the check can fail)',
  );

  t.diagnostic(`left alone: ${JSON.stringify(stale)}`);

  // The guard analyses the grown tables; every session plans again, for their size.
  const guard = await analyzeGrownTables(pool);
  assert.deepEqual(guard.analysed.sort(), [...GROWN_TABLES].sort());
  assert.deepEqual(guard.refused, []);
  assert.deepEqual(await grownTables(pool), []);
  const after = [...(await badPlans())].filter(([, scans]) => scans.length > 0);
  assert.deepEqual(after, [], `stale plans before the guard: ${JSON.stringify(stale)}`);
});

test('a table the gateway may not analyse is reported once and not tried again', async () => {
  const role = `plan_guard_${process.pid}`;
  // A password: the embedded server asks for one (SCRAM); a trust server ignores it.
  const password = randomBytes(12).toString('hex');
  await session.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
  const u = new URL(db.url);
  u.username = role;
  u.password = password;
  const notOwner = createPool(u.toString(), 1);
  try {
    await session.query(
      `INSERT INTO provider_transmissions (provider, transmission_id, body_sha256, received_at)
       SELECT 'wallet_psp', 'tx-' || g, sha256(g::text::bytea), now() FROM generate_series(1, 5000) g`,
    );
    assert.ok((await grownTables(pool)).includes('provider_transmissions'));
    const first = await analyzeGrownTables(notOwner);
    assert.deepEqual(first, { analysed: [], refused: ['provider_transmissions'] });
    assert.deepEqual(await analyzeGrownTables(notOwner), { analysed: [], refused: [] });
    // Its owner can.
    assert.deepEqual((await analyzeGrownTables(pool)).analysed, ['provider_transmissions']);
  } finally {
    await notOwner.end();
    await session.query(`DROP ROLE ${role}`);
  }
});

test('refunds, read beside every row of the admin payment list, are analysed as they grow', async () => {
  // Refunds of the payments the first test grew, never analysed (autovacuum off).
  await session.query(
    `INSERT INTO refunds (id, payment_id, app_id, mode, status, amount_minor, currency,
       provider, provider_ref)
     SELECT md5('refund-' || g), md5(g::text), 'app_plans', 'test', 'succeeded', 1, 'IDR',
       'idr_psp', 'refund-ref-' || g
     FROM generate_series(1, 3000) g`,
  );
  assert.ok((await grownTables(pool)).includes('refunds'));
  assert.ok((await analyzeGrownTables(pool)).analysed.includes('refunds'));
  const { rows } = await session.query<{ n: number }>(
    `SELECT reltuples::int AS n FROM pg_class WHERE relname = 'refunds'`,
  );
  assert.equal(rows[0]?.n, 3000);
  assert.ok(!(await grownTables(pool)).includes('refunds'));
});
