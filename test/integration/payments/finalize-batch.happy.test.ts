import assert from 'node:assert/strict';
import { test } from 'node:test';
import { packEventBody, unpackEventBody } from '../../../src/db/eventBody.js';
import {
  finalizeInitiated,
  finalizeInitiatedBatch,
  type Finalization,
} from '../../../src/db/paymentFinalize.js';
import { appPlansDatabase, finalization as successOf } from '../../helpers/plans.js';

// Finalizations written for many payments at once (issue 28): one statement moves each
// payment that is still initiated, with its own ledger entry, exception, outbound event and
// delivery, and leaves the others untouched, as one statement per payment did.

// Payments 1 to 40, initiated but for 4 (canceled).
const db = appPlansDatabase(4, (pool) =>
  pool.query(
    `INSERT INTO payments (id, app_id, mode, status, amount_minor, currency, method, provider,
       provider_ref, external_user_id, return_url, metadata, finalized_at)
     SELECT 'pay-' || g, 'app_plans', 'test', CASE WHEN g = 4 THEN 'canceled' ELSE 'initiated' END,
       1000 * g, 'IDR', 'qris', 'idr_psp', 'ref-' || g, 'buyer', 'https://shop.example/', '{}',
       CASE WHEN g = 4 THEN now() END
     FROM generate_series(1, 40) g`,
  ),
);

/** Payment n's finalization, its metadata and event body naming n, at one fixed time. */
function finalization(n: number, over: Partial<Finalization> = {}): Finalization {
  return successOf(`pay-${n}`, `evt-${n}`, `dlv-${n}`, {
    metadata: { n },
    at: new Date('2026-11-26T10:00:00Z'),
    eventType: over.outcome === 'failed' ? 'payment.failed' : 'payment.succeeded',
    eventBody: packEventBody('payment.succeeded', `{"n":${n}}`),
    ...over,
  });
}

test('one statement finalizes each initiated payment with its own rows, and no other', async () => {
  // Two provider events archived (their outcome is written by the finalization), and a
  // listener for the delivery workers' wake-up.
  const archived = await db.pool.query<{ id: string }>(
    `INSERT INTO inbound_events (provider, headers, raw_body)
     SELECT 'idr_psp', '{}', '\\x00' FROM generate_series(1, 2) RETURNING id`,
  );
  const [archive1, archive2] = archived.rows.map((r) => Number(r.id));
  const listener = await db.pool.connect();
  const notices: string[] = [];
  listener.on('notification', (n) => notices.push(n.channel));
  await listener.query('LISTEN paygate_delivery');
  try {
    const done = await finalizeInitiatedBatch(db.pool, [
      finalization(1, { feeMinor: 70, archive: { id: archive1!, eventType: 'settlement' } }),
      // Already canceled: nothing written for it, in the middle of the batch.
      finalization(4, { archive: { id: archive2!, eventType: 'settlement' } }),
      finalization(2, { outcome: 'failed', errorText: 'declined by the issuer' }),
      // The reconciler's conditional failure: only while unregistered under its claim (this
      // payment has a reference), so nothing is written for it either.
      finalization(5, { outcome: 'failed', onlyIfUnregisteredUntil: new Date() }),
      finalization(3, {
        outcome: 'failed',
        errorText: 'amount mismatch',
        mismatch: {
          exceptionId: 'exc-3',
          providerRef: 'ref-3',
          amountMinor: 2500,
          currency: 'IDR',
        },
      }),
    ]);
    assert.deepEqual(done, [true, false, true, false, true]);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(notices, ['paygate_delivery'], 'one wake-up at commit');
  } finally {
    listener.release();
  }
  const archives = await db.pool.query(
    `SELECT id::int, signature_valid, outcome, event_type, payment_id FROM inbound_events ORDER BY id`,
  );
  assert.deepEqual(archives.rows, [
    {
      id: archive1,
      signature_valid: true,
      outcome: 'finalized_succeeded',
      event_type: 'settlement',
      payment_id: 'pay-1',
    },
    {
      id: archive2,
      signature_valid: false,
      outcome: 'received',
      event_type: null,
      payment_id: null,
    },
  ]);
  const untouched = await db.pool.query(
    `SELECT id, status FROM payments WHERE id IN ('pay-4', 'pay-5') ORDER BY id`,
  );
  assert.deepEqual(untouched.rows, [
    { id: 'pay-4', status: 'canceled' },
    { id: 'pay-5', status: 'initiated' },
  ]);

  const payments = await db.pool.query(
    `SELECT id, status, last_error, metadata, finalized_at FROM payments WHERE id = ANY($1) ORDER BY id`,
    [['pay-1', 'pay-2', 'pay-3']],
  );
  const at = new Date('2026-11-26T10:00:00Z');
  assert.deepEqual(payments.rows, [
    { id: 'pay-1', status: 'succeeded', last_error: '', metadata: { n: 1 }, finalized_at: at },
    {
      id: 'pay-2',
      status: 'failed',
      last_error: 'declined by the issuer',
      metadata: { n: 2 },
      finalized_at: at,
    },
    {
      id: 'pay-3',
      status: 'failed',
      last_error: 'amount mismatch',
      metadata: { n: 3 },
      finalized_at: at,
    },
  ]);
  const ledger = await db.pool.query(
    `SELECT type, payment_id, exception_id, amount_minor::int, fee_minor::int FROM ledger_entries ORDER BY payment_id`,
  );
  assert.deepEqual(ledger.rows, [
    { type: 'charge', payment_id: 'pay-1', exception_id: null, amount_minor: 1000, fee_minor: 70 },
    {
      type: 'late_charge',
      payment_id: 'pay-3',
      exception_id: 'exc-3',
      amount_minor: 2500,
      fee_minor: null,
    },
  ]);
  const exceptions = await db.pool.query(
    `SELECT id, payment_id, kind, amount_minor::int FROM payment_exceptions`,
  );
  assert.deepEqual(exceptions.rows, [
    { id: 'exc-3', payment_id: 'pay-3', kind: 'amount_mismatch', amount_minor: 2500 },
  ]);
  const events = await db.pool.query<{
    id: string;
    payment_id: string;
    event_type: string;
    body_codec: number | null;
    body_size: number | null;
    body_packed: Buffer;
    delivery: string;
  }>(
    `SELECT e.id, e.payment_id, e.event_type, e.body_codec, e.body_size, e.body_packed, d.id AS delivery
     FROM outbound_events e JOIN deliveries d ON d.event_id = e.id ORDER BY e.id`,
  );
  assert.deepEqual(
    events.rows.map((e) => [e.id, e.payment_id, e.event_type, e.delivery]),
    [
      ['evt-1', 'pay-1', 'payment.succeeded', 'dlv-1'],
      ['evt-2', 'pay-2', 'payment.failed', 'dlv-2'],
      ['evt-3', 'pay-3', 'payment.failed', 'dlv-3'],
    ],
  );
  for (const [i, e] of events.rows.entries())
    assert.equal(unpackEventBody({ ...e, body: null }), `{"n":${i + 1}}`);
});

test('finalizations on a pool that arrive together share a statement; each is answered', async () => {
  const ids = Array.from({ length: 30 }, (_, i) => i + 10);
  // Each payment twice: exactly one of its two finalizations moves it.
  const answers = await Promise.all(
    [...ids, ...ids].map((n, k) =>
      finalizeInitiated(
        db.pool,
        finalization(n, { eventId: `evt-many-${k}`, deliveryId: `dlv-many-${k}` }),
      ),
    ),
  );
  assert.deepEqual(
    ids.map((_, i) => Number(answers[i]) + Number(answers[i + ids.length])),
    ids.map(() => 1),
  );
  const [row] = (
    await db.pool.query<{ succeeded: number; events: number; charges: number }>(
      `SELECT (SELECT count(*)::int FROM payments WHERE status = 'succeeded' AND id = ANY($1)) AS succeeded,
         (SELECT count(*)::int FROM outbound_events WHERE payment_id = ANY($1)) AS events,
         (SELECT count(*)::int FROM ledger_entries WHERE payment_id = ANY($1)) AS charges`,
      [ids.map((n) => `pay-${n}`)],
    )
  ).rows;
  assert.deepEqual(row, { succeeded: 30, events: 30, charges: 30 });
});
