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
  const created = await gw.v1(app, 'POST', '/v1/payments', {
    external_user_id: 'race',
    email: 'race@example.com',
    amount_minor: 77000,
    currency: 'IDR',
    method: 'qris',
    return_url: 'https://shop.example/',
  });
  assert.equal(created.status, 201, created.text);
  const id = created.json<{ payment_id: string }>().payment_id;
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
  const events = await db.query<{ event_type: string }>(
    `SELECT event_type FROM outbound_events WHERE payment_id = $1`,
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
  await eventually(async () => {
    const d = await db.query<{ status: string }>(
      `SELECT status FROM deliveries WHERE payment_id = $1`,
      [id],
    );
    return d.rows.length === 1 && d.rows[0]?.status === 'delivered';
  });
  const received = receiver.received.filter((r) => JSON.parse(r.body).payment_id === id);
  assert.equal(received.length, 1);
  assert.equal(JSON.parse(received[0]?.body ?? '{}').status, finalStatus);
});
