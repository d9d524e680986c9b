import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AppWithSecrets } from '../../src/services/apps.js';
import { eventually } from '../helpers/eventually.js';
import {
  startWithReceiver,
  type GatewayWithReceiver,
  type TestGateway,
} from '../helpers/gateway.js';
import { idrNotification, idrTestServerKey, postWebhook } from '../helpers/idrNotify.js';
import { createPayment } from '../helpers/payments.js';
import { type Receiver } from '../helpers/receiver.js';

// docs/api.md#payment-states: the move out of initiated is atomic; only one event per payment performs it.

let gw: TestGateway;
let receiver: Receiver;
let app: AppWithSecrets;

let setup: GatewayWithReceiver;
before(async () => {
  setup = await startWithReceiver({}, {});
  ({ gw, receiver, app } = setup);
});
after(() => setup?.stop());

test('100 concurrent mixed success/failure events for one payment: one transition, one outbound event', async () => {
  const { id } = await createPayment(gw, app, 'idr', 77000);
  const key = idrTestServerKey(gw.config.masterKey);
  const statuses = ['settlement', 'expire', 'cancel', 'deny'];
  const bodies = Array.from({ length: 100 }, (_, i) =>
    idrNotification(key, { orderId: id, status: statuses[i % 4] as string, grossAmount: 77000 }),
  );
  const answers = await Promise.all(bodies.map((b) => postWebhook(gw.url, 'idr_psp', b)));
  assert.ok(answers.every((a) => a.status === 200));
  const winners = answers.filter((a) => a.text === '{"acknowledged":true}');
  const losers = answers.filter(
    (a) => a.text === '{"acknowledged":true,"action":"already_finalized"}',
  );
  assert.equal(winners.length, 1);
  assert.equal(losers.length, 99);

  const db = gw.running.gw.pool;
  // Only the payment's own transition counts here: when a failure or cancel wins, each later
  // settlement is a charge on a finalized payment (docs/api.md#exceptions), recorded once as
  // an exception whose refund attempt sends refund events of its own.
  const events = await db.query<{ event_type: string }>(
    `SELECT event_type FROM outbound_events WHERE payment_id = $1 AND event_type LIKE 'payment.%'`,
    [id],
  );
  assert.equal(events.rows.length, 1);
  const payment = await gw.v1(app, 'GET', `/v1/payments/${id}`);
  const finalStatus = payment.json<{ status: string }>().status;
  const expectedEvent = {
    succeeded: 'payment.succeeded',
    failed: 'payment.failed',
    canceled: 'payment.canceled',
  }[finalStatus];
  assert.equal(events.rows[0]?.event_type, expectedEvent);
  const exceptions = await db.query<{ kind: string }>(
    `SELECT kind FROM payment_exceptions WHERE payment_id = $1`,
    [id],
  );
  const expectedExceptions = {
    succeeded: [],
    failed: ['paid_after_failure'],
    canceled: ['paid_after_cancel'],
  }[finalStatus];
  assert.deepEqual(
    exceptions.rows.map((r) => r.kind),
    expectedExceptions,
  );
  await eventually(async () => {
    const d = await db.query<{ status: string }>(
      `SELECT status FROM deliveries WHERE payment_id = $1`,
      [id],
    );
    return (
      d.rows.length > 0 && d.rows.every((r) => r.status === 'delivered' || r.status === 'dead')
    );
  });
  const received = receiver.received
    .map((r) => JSON.parse(r.body) as { payment_id: string; event: string; status: string })
    .filter((b) => b.payment_id === id && b.event.startsWith('payment.'));
  assert.equal(received.length, 1);
  assert.equal(received[0]?.status, finalStatus);
});

test('a failure first, then 25 concurrent settlements: the failure stands, one exception, one payment event', async () => {
  const { id } = await createPayment(gw, app, 'idr', 78000);
  const key = idrTestServerKey(gw.config.masterKey);
  const first = await postWebhook(
    gw.url,
    'idr_psp',
    idrNotification(key, { orderId: id, status: 'expire', grossAmount: 78000 }),
  );
  assert.equal(first.text, '{"acknowledged":true}');
  const late = await Promise.all(
    Array.from({ length: 25 }, () =>
      postWebhook(
        gw.url,
        'idr_psp',
        idrNotification(key, { orderId: id, status: 'settlement', grossAmount: 78000 }),
      ),
    ),
  );
  assert.ok(late.every((a) => a.status === 200));
  const db = gw.running.gw.pool;
  const events = await db.query<{ event_type: string }>(
    `SELECT event_type FROM outbound_events WHERE payment_id = $1 AND event_type LIKE 'payment.%'`,
    [id],
  );
  assert.deepEqual(
    events.rows.map((r) => r.event_type),
    ['payment.failed'],
  );
  const exceptions = await db.query<{ kind: string }>(
    `SELECT kind FROM payment_exceptions WHERE payment_id = $1`,
    [id],
  );
  assert.deepEqual(
    exceptions.rows.map((r) => r.kind),
    ['paid_after_failure'],
  );
  const payment = await gw.v1(app, 'GET', `/v1/payments/${id}`);
  assert.equal(payment.json<{ status: string }>().status, 'failed');
});
