import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { finalizeInitiated } from '../../../src/db/paymentFinalize.js';
import { storeInitiatedRegistration } from '../../../src/db/paymentCreation.js';
import { grownTables } from '../../../src/db/planGuard.js';
import { createPool, type Pool } from '../../../src/db/pool.js';
import { createTestDatabase } from '../../helpers/db.js';
import { type PlanNode, finalization as successOf, insertPlansApp } from '../../helpers/plans.js';

// Issue 28: the statements that move one payment out of `initiated` (or store its
// registration) name it by id AND status = 'initiated'. Several partial indexes of payments
// hold only initiated (or unsucceeded) payments; while the statistics say there are almost
// none, reading one of those from end to end with a filter on id costs less than the primary
// key, and that plan walks every initiated payment once there are many (a provider outage,
// a burst of unpaid checkouts). The table does not double, so the plan guard
// (src/db/planGuard.ts) does not analyse it; autovacuum may take minutes. Each statement must
// find its row through the primary key whatever the statistics say, in a generic plan and in
// a custom one (the latter is made from the same stale statistics).

const TOTAL = 30_000;
const MANY_INITIATED = 12_000;

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: Pool;

/** The scans of payments in a plan: "Index Scan using payments_pkey", "Seq Scan", ... */
function paymentScans(node: PlanNode, out: string[] = []): string[] {
  const bitmapOfPayments =
    node['Node Type'] === 'Bitmap Index Scan' && node['Index Name']?.startsWith('payments_');
  if (
    (node['Relation Name'] === 'payments' && node['Node Type'] !== 'ModifyTable') ||
    bitmapOfPayments
  ) {
    out.push(
      node['Index Name'] ? `${node['Node Type']} using ${node['Index Name']}` : node['Node Type'],
    );
  }
  for (const child of node.Plans ?? []) paymentScans(child, out);
  return out;
}

/** A value as the SQL literal EXECUTE takes. */
function literal(c: pg.Client, v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (v instanceof Date) return c.escapeLiteral(v.toISOString());
  if (Buffer.isBuffer(v)) return `'\\x${v.toString('hex')}'`;
  if (Array.isArray(v)) return c.escapeLiteral(`{${v.map(arrayElement).join(',')}}`);
  return c.escapeLiteral(String(v));
}

/** One element of an array literal (the batch statements take their values as arrays). */
function arrayElement(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  const text = v instanceof Date ? v.toISOString() : String(v);
  return `"${text.replace(/["\\]/g, '\\$&')}"`;
}

/** A session that remembers the values its named statements last ran with. */
async function session(mode: string) {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  await c.query(`SET plan_cache_mode = ${mode}`);
  const lastValues = new Map<string, unknown[]>();
  const recording = {
    query: ((config: pg.QueryConfig) => {
      if (config.name) lastValues.set(config.name, config.values ?? []);
      return c.query(config);
    }) as pg.Client['query'],
  };
  /** The cached plan's scans of payments, EXPLAINed with the values it last ran with. */
  const scans = async (name: string): Promise<string[]> => {
    const values = lastValues.get(name);
    assert.ok(values, `${name} was prepared`);
    const res = await c.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      `EXPLAIN (FORMAT JSON) EXECUTE "${name}"(${values.map((v) => literal(c, v)).join(', ')})`,
    );
    return paymentScans(res.rows[0]!['QUERY PLAN'][0].Plan);
  };
  return { client: c, db: recording, scans };
}

before(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 2);
  // The statistics stay what the test makes them (autovacuum would analyse at any moment).
  await pool.query(`ALTER TABLE payments SET (autovacuum_enabled = off)`);
  await insertPlansApp(pool);
  // Every payment settled, as after a quiet night: the statistics see no initiated one.
  await pool.query(
    `INSERT INTO payments (id, app_id, mode, status, amount_minor, currency, method, provider,
       provider_ref, external_user_id, email, return_url, metadata, finalized_at, created_at)
     SELECT md5(g::text), 'app_plans', 'test', 'succeeded', 1000 + g, 'IDR', 'qris', 'idr_psp',
       'ref-' || g, 'buyer-' || g, 'b@example.com', 'https://shop.example/', '{}', now(),
       now() - ($1 - g) * interval '1 second'
     FROM generate_series(1, $1) g`,
    [TOTAL],
  );
  await pool.query('VACUUM ANALYZE payments');
});

after(async () => {
  await pool?.end();
  await db?.drop();
});

/** Finalization n of the test: its event and delivery ids from n. */
const finalization = (paymentId: string, n: number) =>
  successOf(paymentId, n.toString(16).padStart(32, 'e'), n.toString(16).padStart(32, 'd'));

const HOT = ['payments_finalize_batch', 'payments_store_registration_complete_batch'];

test('a payment leaves initiated through its primary key, however many are initiated', async (t) => {
  const sessions = await Promise.all(
    ['force_generic_plan', 'force_custom_plan'].map(async (mode) => ({
      mode,
      ...(await session(mode)),
    })),
  );
  try {
    // The statements prepared while no payment is initiated; the id names a payment that is
    // not initiated either, so nothing changes.
    let n = 0;
    for (const s of sessions) {
      for (let i = 0; i < 6; i++) {
        const id = `${i + 1}`.padStart(32, '0');
        assert.equal(await finalizeInitiated(s.db, finalization(id, ++n)), false);
        assert.equal(
          await finalizeInitiated(s.db, {
            ...finalization(id, ++n),
            archive: { id: 0, eventType: 'payment.succeeded' },
          }),
          false,
        );
        const reg = {
          providerRef: `ref-new-${n}`,
          checkoutUrl: 'https://sim.example/pay',
          qrString: null,
          qrImageUrl: null,
          providerDeadline: null,
        };
        const scope = { appId: 'app_plans', endpoint: 'POST /v1/payments', key: `k-${n}` };
        assert.equal(
          await storeInitiatedRegistration(s.db, id, reg, { scope, status: 201, body: '{}' }),
          false,
        );
      }
    }

    // Then many payments stay initiated (the provider stopped confirming). The table has not
    // doubled: the plan guard leaves its statistics alone.
    await pool.query(
      `UPDATE payments SET status = 'initiated', finalized_at = NULL
       WHERE id IN (SELECT id FROM payments ORDER BY created_at DESC LIMIT $1)`,
      [MANY_INITIATED],
    );
    assert.ok(!(await grownTables(pool)).includes('payments'));

    const plans: Record<string, Record<string, string[]>> = {};
    for (const s of sessions) {
      plans[s.mode] = {};
      for (const name of HOT) plans[s.mode]![name] = await s.scans(name);
    }
    // By the primary key: index scans of it, or (the batches' `id = ANY`) bitmaps of it alone.
    const byKey = (scans: string[]) =>
      scans.length > 0 &&
      scans.every((x) => x === 'Bitmap Heap Scan' || x.endsWith(' using payments_pkey'));
    for (const mode of Object.keys(plans))
      for (const name of HOT)
        assert.ok(
          byKey(plans[mode]![name]!),
          `${mode} ${name}: ${plans[mode]![name]!.join(' + ')}`,
        );
    t.diagnostic(JSON.stringify(plans));
  } finally {
    await Promise.all(sessions.map((s) => s.client.end()));
  }
});
