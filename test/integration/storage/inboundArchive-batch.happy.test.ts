import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { archiveInbound, recordInboundOutcome } from '../../../src/db/inbound.js';
import { unpackBody } from '../../../src/db/inboundBody.js';
import { appPlansDatabase, seqScans, type PlanNode } from '../../helpers/plans.js';
import { statementSizes } from '../../helpers/statements.js';

// Webhooks archived together share one statement (issue 28): each request is answered with
// its own row's id and the payment its own body names, whatever order the rows were
// inserted in, and a batch whose payment read fails still archives every body.

// Payments 1 to 20 of app_plans, initiated, each with its own amount.
const db = appPlansDatabase(4, (pool) =>
  pool.query(
    `INSERT INTO payments (id, app_id, mode, status, amount_minor, currency, method, provider,
       provider_ref, external_user_id, return_url, metadata)
     SELECT 'pay-' || g, 'app_plans', 'test', 'initiated', 1000 * g, 'IDR', 'qris', 'idr_psp',
       'ref-' || g, 'buyer', 'https://shop.example/', '{}'
     FROM generate_series(1, 20) g`,
  ),
);

/** A notification body of its own size per n (so a row paired with the wrong request shows). */
const bodyOf = (n: number) =>
  Buffer.from(
    JSON.stringify({ order_id: `pay-${n}`, transaction_status: 'settlement', pad: 'x'.repeat(n) }),
  );

test('concurrent archives share a statement, each answered with its own row and payment', async (t) => {
  const archives = await statementSizes(db.pool, 'inbound_events', 'INSERT');

  // 24 webhooks at once: 20 naming a payment (one of them twice), 3 naming none, one unknown.
  const hints: (string | null)[] = [
    ...Array.from({ length: 20 }, (_, i) => `pay-${i + 1}`),
    'pay-7',
    null,
    null,
    'pay-unknown',
  ];
  const results = await Promise.all(
    hints.map((hint, i) =>
      archiveInbound(
        db.pool,
        'idr_psp',
        { 'content-type': 'application/json', 'x-n': String(i) },
        bodyOf(i),
        65_536,
        hint,
      ),
    ),
  );

  assert.equal(new Set(results.map((r) => r.id)).size, hints.length, 'one row each');
  for (const [i, r] of results.entries()) {
    const [row] = (
      await db.pool.query<{
        raw_body: Buffer;
        body_codec: number | null;
        body_size: number;
        body_digest: Buffer;
        headers: Record<string, string>;
        outcome: string;
      }>(
        `SELECT raw_body, body_codec, body_size, body_digest, headers, outcome
         FROM inbound_events WHERE id = $1`,
        [r.id],
      )
    ).rows;
    assert.ok(row, `row ${r.id} of request ${i}`);
    const body = bodyOf(i);
    assert.deepEqual(unpackBody('idr_psp', row.raw_body, row.body_codec), body);
    assert.equal(row.body_size, body.length);
    assert.deepEqual(row.body_digest, createHash('sha256').update(body).digest());
    assert.deepEqual(r.bodySha256, row.body_digest);
    assert.deepEqual(row.headers, { 'content-type': 'application/json', 'x-n': String(i) });
    assert.equal(row.outcome, 'received');
    assert.equal(r.truncated, false);
    const hint = hints[i] ?? null;
    if (hint === null || hint === 'pay-unknown') assert.equal(r.payment, null);
    else {
      assert.equal(r.payment?.id, hint);
      assert.equal(r.payment?.amount_minor, 1000 * Number(hint.slice(4)));
      assert.equal(r.payment?.status, 'initiated');
    }
  }

  const sizes = await archives.sizes();
  assert.equal(
    sizes.reduce((a, b) => a + b, 0),
    hints.length,
  );
  t.diagnostic(`rows per archive statement: ${sizes.join(', ')}`);
  assert.ok(Math.max(...sizes) > 1, 'concurrent archives shared a statement');
});

test('a payment read that fails costs no archive: the body is kept, the payment looked up later', async () => {
  // A hint that cannot be compared with payments.id fails the read (not the insert): the
  // batch is run again item by item, and that item archived without its payment.
  const results = await Promise.all([
    archiveInbound(db.pool, 'idr_psp', {}, bodyOf(1), 65_536, 'pay-1'),
    archiveInbound(db.pool, 'idr_psp', {}, bodyOf(2), 65_536, 'pay-\u0000'),
    archiveInbound(db.pool, 'idr_psp', {}, bodyOf(3), 65_536, 'pay-3'),
  ]);
  const [one, bad, three] = results;
  assert.equal(one?.payment?.id, 'pay-1');
  assert.equal(three?.payment?.id, 'pay-3');
  assert.equal(bad?.payment, null);
  const kept = await db.pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM inbound_events WHERE id = ANY($1::bigint[])`,
    [[one?.id, bad?.id, three?.id]],
  );
  assert.equal(Number(kept.rows[0]?.n), 3);
});

test('outcomes recorded together share a statement, each written to its own row only', async (t) => {
  const outcomes = await statementSizes(db.pool, 'inbound_events', 'UPDATE');
  const archived = await Promise.all(
    Array.from({ length: 21 }, (_, i) =>
      archiveInbound(db.pool, 'idr_psp', {}, bodyOf(100 + i), 65_536, null),
    ),
  );
  // The last row keeps its outcome: a batch touches only the rows it names.
  const recorded = archived.slice(0, 20);
  await Promise.all(
    recorded.map((a, i) =>
      recordInboundOutcome(db.pool, a.id, {
        signatureValid: i % 3 !== 0,
        outcome: `outcome-${i}`,
        mode: i % 2 === 0 ? 'test' : null,
        eventType: `type-\u0000${i}`,
        paymentId: i % 4 === 0 ? `pay-${i + 1}` : null,
      }),
    ),
  );
  const rows = await db.pool.query<{
    id_text: string;
    signature_valid: boolean;
    outcome: string;
    mode: string | null;
    event_type: string | null;
    payment_id: string | null;
  }>(
    `SELECT id::text AS id_text, signature_valid, outcome, mode, event_type, payment_id FROM inbound_events
     WHERE id = ANY($1::bigint[])`,
    [archived.map((a) => a.id)],
  );
  const byId = new Map(rows.rows.map(({ id_text, ...r }) => [Number(id_text), r]));
  for (const [i, a] of recorded.entries()) {
    assert.deepEqual(byId.get(a.id), {
      signature_valid: i % 3 !== 0,
      outcome: `outcome-${i}`,
      mode: i % 2 === 0 ? 'test' : null,
      // A NUL is not text PostgreSQL can hold: stored as U+FFFD (storableText).
      event_type: `type-\uFFFD${i}`,
      payment_id: i % 4 === 0 ? `pay-${i + 1}` : null,
    });
  }
  const untouched = byId.get((archived[20] as { id: number }).id);
  assert.deepEqual(
    [untouched?.outcome, untouched?.signature_valid, untouched?.event_type],
    ['received', false, null],
  );
  const sizes = await outcomes.sizes();
  t.diagnostic(`rows per outcome statement: ${sizes.join(', ')}`);
  assert.equal(
    sizes.reduce((a, b) => a + b, 0),
    recorded.length,
  );
  assert.ok(Math.max(...sizes) > 1, 'concurrent outcomes shared a statement');
});

// A young installation's burst: a batch of 46 webhooks against a payments table of 7,000
// rows. A plan that reads the payments by hash over a sequential scan read the whole table
// for 46 rows (seen in the webhook bench's pending phase, with auto_explain); the payments
// are found by primary key whatever the statistics.
test("a batch reads its webhooks' payments by primary key on a young installation's table", async () => {
  await db.pool.query(
    `INSERT INTO payments (id, app_id, mode, status, amount_minor, currency, method, provider,
       provider_ref, external_user_id, return_url, metadata)
     SELECT 'young-' || g, 'app_plans', 'test', 'initiated', 1000, 'IDR', 'qris', 'idr_psp',
       'young-ref-' || g, 'buyer', 'https://shop.example/', '{}'
     FROM generate_series(1, 7000) g`,
  );
  await db.pool.query('ANALYZE payments');
  const session = await db.pool.connect();
  try {
    // The statement prepared on this connection (on a client, a batch of one).
    await archiveInbound(session, 'idr_psp', {}, bodyOf(1), 65_536, 'young-1');
    const n = 46;
    const res = await session.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      `EXPLAIN (FORMAT JSON) EXECUTE inbound_archive_batch(
         array_fill('idr_psp'::text, ARRAY[${n}]), array_fill('{}'::jsonb, ARRAY[${n}]),
         array_fill('\\x7b7d'::bytea, ARRAY[${n}]), array_fill(NULL::smallint, ARRAY[${n}]),
         array_fill(2, ARRAY[${n}]), array_fill('\\x00'::bytea, ARRAY[${n}]),
         array_fill(false, ARRAY[${n}]),
         ARRAY[${Array.from({ length: n }, (_, i) => `'young-${i + 1}'`).join(', ')}])`,
    );
    assert.deepEqual(seqScans(res.rows[0]!['QUERY PLAN'][0].Plan, 'payments'), []);
  } finally {
    session.release();
  }
});
