/**
 * A renewal delivered before its first checkout's own event (docs/api.md#exceptions): the
 * provider does not order its deliveries, so order.paid of a renewal can reach the gateway
 * while the first payment is still initiated. The first payment is settled from the
 * provider's answer first; a renewal is never a succeeded child of a payment that is not
 * succeeded, and while the provider cannot confirm the first charge the renewal is refused
 * with a retryable 503 so the provider redelivers it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Webhook } from 'standardwebhooks';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { paymentBody, sql, TEXT_PLAIN } from '../../helpers/core.js';
import { cardPspTestSigner, postCardPspEvent } from '../../helpers/cardPspNotify.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { act } from '../../helpers/drivers/card_psp.js';
import { receivedBody, type ArchivedBodyColumns } from '../../helpers/inboundBody.js';

let gw: TestGateway;
let app: AppWithSecrets;
let signer: Webhook;

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp();
  signer = cardPspTestSigner(gw.config.masterKey);
});
after(async () => {
  await gw?.stop();
});

const ACK = '{"acknowledged":true}';

async function cardPayment(metadata: Record<string, unknown> = {}) {
  const res = await gw.v1(
    app,
    'POST',
    '/v1/payments',
    paymentBody({
      currency: 'USD',
      method: 'card_psp',
      amount_minor: 1999,
      metadata: { card_psp_product_id: 'prod_pro_monthly', ...metadata },
    }),
  );
  assert.equal(res.status, 201, res.text);
  const body = res.json<{ payment_id: string; checkout_url: string }>();
  return { id: body.payment_id, ref: new URL(body.checkout_url).pathname.split('/').pop() ?? '' };
}

/** A renewal order.paid as the provider sends it, signed with the provider's own library. */
async function postRenewal(paymentId: string, orderId: string, subscriptionId: string) {
  const body = JSON.stringify({
    type: 'order.paid',
    timestamp: new Date().toISOString(),
    data: {
      id: orderId,
      status: 'paid',
      billing_reason: 'subscription_cycle',
      total_amount: 1999,
      refunded_amount: 0,
      currency: 'usd',
      checkout_id: null,
      subscription_id: subscriptionId,
      metadata: { payment_id: paymentId },
    },
  });
  return postCardPspEvent(gw.url, signer, body);
}

async function rowsOf(firstId: string) {
  const first = await sql<{ status: string; subscription_id: string | null }>(
    gw.databaseUrl,
    'SELECT status, subscription_id FROM payments WHERE id = $1',
    [firstId],
  );
  const children = await sql<{ id: string; status: string; provider_ref: string }>(
    gw.databaseUrl,
    'SELECT id, status, provider_ref FROM payments WHERE parent_payment_id = $1',
    [firstId],
  );
  const exceptions = await sql<{ kind: string }>(
    gw.databaseUrl,
    'SELECT kind FROM payment_exceptions WHERE payment_id = $1',
    [firstId],
  );
  const events = await sql<{ payment_id: string; event_type: string }>(
    gw.databaseUrl,
    `SELECT payment_id, event_type FROM outbound_events
     WHERE payment_id = $1 OR payment_id IN (SELECT id FROM payments WHERE parent_payment_id = $1)
     ORDER BY payment_id, event_type`,
    [firstId],
  );
  return { first: first[0], children, exceptions, events };
}

test('renewal before the first checkout event: the first payment is settled from the provider, then the renewal is its child', async () => {
  // The provider charged the first checkout, but its events never reached the gateway.
  const p = await cardPayment({ test_scenario: 'lost_webhook' });
  assert.equal((await act(gw, p.ref, 'pay')).gateway_status, 0);
  assert.equal((await rowsOf(p.id)).first?.status, 'initiated');

  const res = await postRenewal(p.id, 'order_early_renewal_1', 'sub_early_1');
  assert.equal(res.status, 200, res.text);
  assert.equal(res.text, ACK);

  const after = await rowsOf(p.id);
  assert.equal(after.first?.status, 'succeeded');
  assert.equal(after.first?.subscription_id, 'sub_early_1');
  assert.equal(after.children.length, 1);
  assert.equal(after.children[0]?.status, 'succeeded');
  assert.equal(after.children[0]?.provider_ref, 'order_early_renewal_1');
  assert.deepEqual(after.exceptions, []);
  // payment.succeeded for each, in the order the money moved: the first charge, then the renewal.
  const child = after.children[0]?.id ?? '';
  assert.deepEqual(
    after.events
      .map((e) => [
        e.payment_id === p.id ? 'first' : e.payment_id === child ? 'child' : e.payment_id,
        e.event_type,
      ])
      .sort(),
    [
      ['child', 'payment.succeeded'],
      ['first', 'payment.succeeded'],
    ],
  );

  // A redelivery of the renewal records nothing twice.
  const again = await postRenewal(p.id, 'order_early_renewal_1', 'sub_early_1');
  assert.equal(again.status, 200, again.text);
  assert.equal(again.text, '{"acknowledged":true,"action":"already_finalized"}');
  assert.equal((await rowsOf(p.id)).children.length, 1);
});

test('renewal while the provider still reports the first checkout open: 503 with Retry-After, nothing recorded; the redelivery after the first charge is recorded', async () => {
  const p = await cardPayment();
  const early = await postRenewal(p.id, 'order_early_renewal_2', 'sub_early_2');
  assert.equal(early.status, 503, early.text);
  assert.equal(early.text, 'service unavailable');
  assert.equal(early.contentType, TEXT_PLAIN);
  assert.equal(early.retryAfter, '60');
  const waiting = await rowsOf(p.id);
  assert.equal(waiting.first?.status, 'initiated');
  assert.deepEqual(waiting.children, []);
  assert.deepEqual(waiting.exceptions, []);
  assert.deepEqual(waiting.events, []);
  const archived = (
    await sql<{ outcome: string } & ArchivedBodyColumns>(
      gw.databaseUrl,
      `SELECT outcome, provider, raw_body, body_codec FROM inbound_events WHERE provider = 'card_psp' ORDER BY id`,
    )
  ).filter((r) => receivedBody(r).toString('utf8').includes('order_early_renewal_2'));
  assert.deepEqual(
    archived.map((r) => r.outcome),
    ['renewal_before_first_payment'],
  );

  assert.deepEqual(await act(gw, p.ref, 'pay'), { gateway_status: 200, gateway_body: ACK });
  const redelivered = await postRenewal(p.id, 'order_early_renewal_2', 'sub_early_2');
  assert.equal(redelivered.status, 200, redelivered.text);
  assert.equal(redelivered.text, ACK);
  const done = await rowsOf(p.id);
  assert.equal(done.first?.status, 'succeeded');
  assert.deepEqual(
    done.children.map((c) => [c.status, c.provider_ref]),
    [['succeeded', 'order_early_renewal_2']],
  );
  assert.deepEqual(done.exceptions, []);
});

test('race: the first charge and its renewal arrive at once; each is recorded exactly once', async () => {
  for (let i = 0; i < 5; i++) {
    const p = await cardPayment({ test_scenario: 'lost_webhook' });
    await act(gw, p.ref, 'pay');
    // The first checkout's own order.paid (the simulator's delivery, lost above, made by us
    // here with the same shape) and the renewal, concurrently.
    const firstOrder = JSON.stringify({
      type: 'order.paid',
      timestamp: new Date().toISOString(),
      data: {
        id: `order_first_${i}_${p.id.slice(0, 8)}`,
        status: 'paid',
        billing_reason: 'subscription_create',
        total_amount: 1999,
        net_amount: 1999,
        refunded_amount: 0,
        currency: 'usd',
        checkout_id: p.ref,
        subscription_id: `sub_race_${i}_${p.id.slice(0, 8)}`,
        metadata: { payment_id: p.id },
      },
    });
    const [firstRes, renewalRes] = await Promise.all([
      postCardPspEvent(gw.url, signer, firstOrder),
      postRenewal(
        p.id,
        `order_race_renewal_${i}_${p.id.slice(0, 8)}`,
        `sub_race_${i}_${p.id.slice(0, 8)}`,
      ),
    ]);
    assert.equal(firstRes.status, 200, firstRes.text);
    assert.equal(renewalRes.status, 200, renewalRes.text);
    const r = await rowsOf(p.id);
    assert.equal(r.first?.status, 'succeeded');
    assert.deepEqual(
      r.children.map((c) => c.status),
      ['succeeded'],
    );
    assert.deepEqual(r.exceptions, []);
    assert.equal(r.events.filter((e) => e.payment_id === p.id).length, 1);
    assert.equal(r.events.length, 2);
  }
});
