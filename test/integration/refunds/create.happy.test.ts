import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { eventually } from '../../helpers/eventually.js';
import {
  startWithReceiver,
  type GatewayWithReceiver,
  type TestGateway,
} from '../../helpers/gateway.js';
import { createPayment, paidPayment, simAction } from '../../helpers/payments.js';
import { type Receiver } from '../../helpers/receiver.js';

// POST /v1/refunds and the operator's refund and cancel (docs/api.md#refunds, #admin-api, #admin-cancel, #create-a-refund).

let gw: TestGateway;
let receiver: Receiver;
let app: AppWithSecrets;

let setup: GatewayWithReceiver;
before(async () => {
  setup = await startWithReceiver({}, { name: 'Refunds' });
  ({ gw, receiver, app } = setup);
});
after(() => setup?.stop());

interface RefundBody {
  refund_id: string;
  payment_id: string;
  status: string;
  amount_minor: number;
  currency: string;
  provider_ref: string;
  reason: string;
  created_at: string;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function eventFor(paymentId: string, event: string) {
  return eventually(async () =>
    receiver.received.find((r) => {
      const b = JSON.parse(r.body) as { payment_id: string; event: string };
      return b.payment_id === paymentId && b.event === event;
    }),
  );
}

test('201: a synchronous refund answers succeeded; refund.succeeded reaches the app, signed, documented body (docs/api.md#event-bodies)', async () => {
  const p = await paidPayment(gw, app, 'idr', 40000);
  const res = await gw.v1(app, 'POST', '/v1/refunds', {
    payment_id: p.id,
    amount_minor: 15000,
    reason: 'damaged box',
  });
  assert.equal(res.status, 201, res.text);
  const r = res.json<RefundBody>();
  assert.deepEqual(Object.keys(r), [
    'refund_id',
    'payment_id',
    'status',
    'amount_minor',
    'currency',
    'provider_ref',
    'reason',
    'created_at',
  ]);
  assert.match(r.refund_id, /^[0-9a-f]{32}$/);
  assert.equal(r.payment_id, p.id);
  assert.equal(r.status, 'succeeded');
  assert.equal(r.amount_minor, 15000);
  assert.equal(r.currency, 'IDR');
  assert.notEqual(r.provider_ref, '');
  assert.equal(r.reason, 'damaged box');
  assert.match(r.created_at, RFC3339);

  const got = await eventFor(p.id, 'refund.succeeded');
  assert.equal(got.signatureValid, true);
  const body = JSON.parse(got.body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body), [
    'event',
    'refund_id',
    'payment_id',
    'status',
    'amount',
    'currency',
    'provider',
    'provider_ref',
    'reason',
    'timestamp',
    'metadata',
  ]);
  assert.equal(body.refund_id, r.refund_id);
  assert.equal(body.status, 'succeeded');
  assert.equal(body.amount, 15000);
  assert.equal(body.provider, 'idr_psp');
  assert.equal(body.provider_ref, r.provider_ref);
  assert.equal(body.reason, 'damaged box');
  assert.match(String(body.timestamp), RFC3339);
  assert.deepEqual(body.metadata, { order: 'O-1' });

  // The payment itself stays succeeded (docs/api.md#refunds); a second refund is refused.
  const read = await gw.v1(app, 'GET', `/v1/payments/${p.id}`);
  assert.equal(read.json<{ status: string }>().status, 'succeeded');
  const again = await gw.v1(app, 'POST', '/v1/refunds', { payment_id: p.id });
  assert.equal(again.status, 422);
  assert.equal(again.text, 'payment already has a refund');
});

test('amount omitted: a full refund of the original amount; reason defaults to empty', async () => {
  const p = await paidPayment(gw, app, 'idr', 9900);
  const res = await gw.v1(app, 'POST', '/v1/refunds', { payment_id: p.id });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.json<RefundBody>().amount_minor, 9900);
  assert.equal(res.json<RefundBody>().reason, '');
});

test('idempotent: the same key and body replays the same 201 and refunds once', async () => {
  const p = await paidPayment(gw, app, 'idr', 5000);
  const key = randomUUID();
  const body = { payment_id: p.id, reason: 'retry me' };
  const first = await gw.v1(app, 'POST', '/v1/refunds', body, { 'Idempotency-Key': key });
  const second = await gw.v1(app, 'POST', '/v1/refunds', body, { 'Idempotency-Key': key });
  assert.equal(first.status, 201);
  assert.equal(second.status, 201);
  assert.equal(second.text, first.text);
  const conflict = await gw.v1(
    app,
    'POST',
    '/v1/refunds',
    { ...body, reason: 'other' },
    { 'Idempotency-Key': key },
  );
  assert.equal(conflict.status, 409);
  assert.equal(conflict.text, 'idempotency conflict — different body for same key');
  const rows = await gw.running.gw.pool.query('SELECT 1 FROM refunds WHERE payment_id = $1', [
    p.id,
  ]);
  assert.equal(rows.rowCount, 1);
});

test('race: 20 concurrent refunds with different keys: one reaches the provider, 19 get 422', async () => {
  const p = await paidPayment(gw, app, 'idr', 60000);
  const answers = await Promise.all(
    Array.from({ length: 20 }, () =>
      gw.v1(app, 'POST', '/v1/refunds', { payment_id: p.id }, { 'Idempotency-Key': randomUUID() }),
    ),
  );
  assert.equal(
    answers.filter((a) => a.status === 201).length,
    1,
    JSON.stringify(answers.map((a) => [a.status, a.text])),
  );
  // Exactly these answers, under load too: a deadlock between a refund settling and a second
  // request once made one of them a 500 (docs/operations.md, "Concurrent refunds of one payment").
  const refused = answers.filter((a) => a.status === 422);
  assert.equal(refused.length, 19, JSON.stringify(answers.map((a) => [a.status, a.text])));
  assert.ok(refused.every((a) => a.text === 'payment already has a refund'));
  const db = gw.running.gw.pool;
  const rows = await db.query('SELECT 1 FROM refunds WHERE payment_id = $1', [p.id]);
  assert.equal(rows.rowCount, 1);
  // The provider saw exactly one refund of the transaction.
  const sim = await db.query<{ refunds: unknown[] | null }>(
    `SELECT data->'refunds' AS refunds FROM paygate_sim.sim_objects WHERE provider = 'idr_psp' AND kind = 'transaction' AND data->>'order_id' = $1`,
    [p.id],
  );
  assert.equal(sim.rows[0]?.refunds?.length, 1);
  // The books moved the money once too: the charge and one refund (docs/api.md#ledger).
  const ledger = await db.query<{ type: string; amount_minor: number }>(
    'SELECT type, amount_minor FROM ledger_entries WHERE payment_id = $1 ORDER BY amount_minor DESC',
    [p.id],
  );
  assert.deepEqual(ledger.rows, [
    { type: 'charge', amount_minor: 60000 },
    { type: 'refund', amount_minor: -60000 },
  ]);
});

test('admin refund: 201 in the POST /v1/refunds shape; the app still gets refund.succeeded', async () => {
  const p = await paidPayment(gw, app, 'idr', 7000);
  const res = await gw.admin('POST', `/admin/payments/${p.id}/refund`, {
    amount_minor: 2000,
    reason: 'goodwill',
  });
  assert.equal(res.status, 201, res.text);
  const r = res.json<RefundBody>();
  assert.equal(r.amount_minor, 2000);
  assert.equal(r.status, 'succeeded');
  assert.equal(r.reason, 'goodwill');
  await eventFor(p.id, 'refund.succeeded');
  const over = await gw.admin('POST', `/admin/payments/${p.id}/refund`, {});
  assert.equal(over.status, 422);
  assert.equal(over.text, 'payment already has a refund');
  const missing = await gw.admin('POST', `/admin/payments/${'c'.repeat(32)}/refund`, {});
  assert.equal(missing.status, 404);
  assert.equal(missing.text, 'payment not found');
  const bad = await gw.admin('POST', `/admin/payments/${p.id}/refund`, { amount_minor: 0 });
  assert.equal(bad.status, 400);
  assert.equal(bad.text, 'amount_minor must be a positive integer');
});

test('admin cancel: initiated -> 200 canceled (at the provider too) and payment.canceled', async () => {
  const p = await createPayment(gw, app, 'idr', 8000);
  const res = await gw.admin('POST', `/admin/payments/${p.id}/cancel`);
  assert.equal(res.status, 200, res.text);
  const body = res.json<{ payment_id: string; status: string }>();
  assert.equal(body.payment_id, p.id);
  assert.equal(body.status, 'canceled');
  await eventFor(p.id, 'payment.canceled');
  // The provider no longer takes the payment.
  const pay = await fetch(`${gw.url}/sim/idr_psp/payments/${p.providerRef}/pay`, {
    method: 'POST',
  });
  assert.equal(pay.status, 409);
  const events = await gw.running.gw.pool.query(
    'SELECT 1 FROM outbound_events WHERE payment_id = $1',
    [p.id],
  );
  assert.equal(events.rowCount, 1);
});

test('admin cancel: succeeded -> 201 full refund; failed or canceled -> 422; unknown -> 404', async () => {
  const paid = await paidPayment(gw, app, 'idr', 3300);
  const res = await gw.admin('POST', `/admin/payments/${paid.id}/cancel`);
  assert.equal(res.status, 201, res.text);
  const r = res.json<RefundBody>();
  assert.equal(r.payment_id, paid.id);
  assert.equal(r.amount_minor, 3300);
  assert.equal(r.status, 'succeeded');
  assert.equal(r.reason, 'canceled by operator');

  const failed = await createPayment(gw, app, 'idr', 3300);
  await simAction(gw, 'idr', failed.providerRef, 'fail');
  const f = await gw.admin('POST', `/admin/payments/${failed.id}/cancel`);
  assert.equal(f.status, 422);
  assert.equal(f.text, 'payment already finalized (status failed)');

  const canceled = await createPayment(gw, app, 'idr', 3300);
  await simAction(gw, 'idr', canceled.providerRef, 'cancel');
  const c = await gw.admin('POST', `/admin/payments/${canceled.id}/cancel`);
  assert.equal(c.status, 422);
  assert.equal(c.text, 'payment already finalized (status canceled)');

  const unknown = await gw.admin('POST', `/admin/payments/${'d'.repeat(32)}/cancel`);
  assert.equal(unknown.status, 404);
  assert.equal(unknown.text, 'payment not found');
  const noToken = await gw.admin(
    'POST',
    `/admin/payments/${paid.id}/cancel`,
    undefined,
    'wrong-token',
  );
  assert.equal(noToken.status, 401);
  assert.equal(noToken.text, 'unauthorized');
});

test('admin cancel of a card_psp checkout (no provider cancel operation) cancels it locally', async () => {
  const p = await createPayment(gw, app, 'card', 1500);
  const res = await gw.admin('POST', `/admin/payments/${p.id}/cancel`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json<{ status: string }>().status, 'canceled');
});
