import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { cardPspTestSigner, postCardPspEvent } from '../../helpers/cardPspNotify.js';
import { sql } from '../../helpers/core.js';
import { eventually } from '../../helpers/eventually.js';
import {
  startWithReceiver,
  type GatewayWithReceiver,
  type TestGateway,
} from '../../helpers/gateway.js';
import { idrNotification, idrTestServerKey, postWebhook } from '../../helpers/idrNotify.js';
import { createPayment, lostWebhookPayment, silentAction } from '../../helpers/payments.js';
import { type Receiver } from '../../helpers/receiver.js';

// docs/api.md#payment-states: the move out of initiated is atomic; only one event per payment performs it.
// idr_psp notifications are hints (signed over three fields): the gateway applies what the
// provider's status API answers. So the idr_psp races first change the provider's state
// (test_scenario lost_webhook: the buyer acts, nothing is notified), then post the
// notifications themselves; outcomes that really differ race through card_psp, whose
// signature covers the body and whose events are applied as they come.

let gw: TestGateway;
let receiver: Receiver;
let app: AppWithSecrets;

let setup: GatewayWithReceiver;
before(async () => {
  setup = await startWithReceiver({}, {});
  ({ gw, receiver, app } = setup);
});
after(() => setup?.stop());

/**
 * What 100 concurrent events left behind: exactly one transition (its outbound event, its
 * delivery), and for each later charge on a failed or canceled payment one exception.
 */
async function assertOneTransition(id: string, answers: { status: number; text: string }[]) {
  assert.ok(answers.every((a) => a.status === 200));
  const winners = answers.filter((a) => a.text === '{"acknowledged":true}');
  const losers = answers.filter(
    (a) => a.text === '{"acknowledged":true,"action":"already_finalized"}',
  );
  assert.equal(winners.length, 1);
  assert.equal(losers.length, answers.length - 1);

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
      `SELECT status FROM deliveries WHERE event_id IN (SELECT id FROM outbound_events WHERE payment_id = $1)`,
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
  return finalStatus;
}

test("100 concurrent events claiming mixed outcomes for one paid payment: one transition, the provider's, one outbound event", async () => {
  const { id, providerRef } = await lostWebhookPayment(gw, app, 'idr', 77000);
  await silentAction(gw, 'idr', providerRef, 'pay');
  const key = idrTestServerKey(gw.config.masterKey);
  // The bodies claim four outcomes; the provider's status API says settlement for all.
  const statuses = ['settlement', 'expire', 'cancel', 'deny'];
  const bodies = Array.from({ length: 100 }, (_, i) =>
    idrNotification(key, { orderId: id, status: statuses[i % 4] as string, grossAmount: 77000 }),
  );
  const answers = await Promise.all(bodies.map((b) => postWebhook(gw.url, 'idr_psp', b)));
  assert.equal(await assertOneTransition(id, answers), 'succeeded');
});

test('100 concurrent card_psp events, paid, failed and expired, for one payment: one transition, one outbound event', async () => {
  const { id, providerRef } = await createPayment(gw, app, 'card', 1999);
  const signer = cardPspTestSigner(gw.config.masterKey);
  const checkout = (status: string) =>
    JSON.stringify({
      type: 'checkout.updated',
      timestamp: new Date().toISOString(),
      data: {
        id: providerRef,
        status,
        ...(status === 'failed' ? { failure_reason: 'card declined' } : {}),
        metadata: { payment_id: id },
      },
    });
  const orderPaid = JSON.stringify({
    type: 'order.paid',
    timestamp: new Date().toISOString(),
    data: {
      id: `ord_${id.slice(0, 12)}`,
      status: 'paid',
      billing_reason: 'purchase',
      subtotal_amount: 1999,
      discount_amount: 0,
      net_amount: 1999,
      tax_amount: 0,
      total_amount: 1999,
      refunded_amount: 0,
      currency: 'usd',
      checkout_id: providerRef,
      subscription_id: null,
      metadata: { payment_id: id },
    },
  });
  const bodies = Array.from({ length: 100 }, (_, i) =>
    i % 3 === 0 ? orderPaid : checkout(i % 3 === 1 ? 'failed' : 'expired'),
  );
  const answers = await Promise.all(bodies.map((b) => postCardPspEvent(gw.url, signer, b)));
  await assertOneTransition(id, answers);
});

test('a failure first, then 25 concurrent settlements: the failure stands, one exception, one payment event', async () => {
  const { id, providerRef } = await lostWebhookPayment(gw, app, 'idr', 78000);
  await silentAction(gw, 'idr', providerRef, 'expire');
  const key = idrTestServerKey(gw.config.masterKey);
  const first = await postWebhook(
    gw.url,
    'idr_psp',
    idrNotification(key, { orderId: id, status: 'expire', grossAmount: 78000 }),
  );
  assert.equal(first.text, '{"acknowledged":true}');
  // The provider settles the expired transaction anyway (a late confirmation from the paying
  // bank; no buyer action can do that), so its status API now reports a charge.
  await sql(
    gw.databaseUrl,
    `UPDATE paygate_sim.sim_objects SET data = data || '{"transaction_status":"settlement"}'::jsonb
     WHERE provider = 'idr_psp' AND kind = 'transaction' AND id = $1`,
    [id],
  );
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
