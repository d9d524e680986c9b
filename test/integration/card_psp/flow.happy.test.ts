import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { signCardPspEvent, actRaw as act } from '../../helpers/drivers/card_psp.js';
import { assertError, assertTimestamp, paymentBody, sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import type { HttpResult } from '../../helpers/http.js';
import { Receiver } from '../../helpers/receiver.js';

// End to end: simulator action -> signed card_psp webhook -> gateway -> outbound delivery.

let gw: TestGateway;
let app: AppWithSecrets;
let receiver: Receiver;
const APP_METADATA = {
  card_psp_product_id: 'prod_pro_monthly',
  order: 'A-77',
  nested: { k: [1, 2] },
};

before(async () => {
  gw = await startTestGateway();
  receiver = new Receiver();
  await receiver.start();
  app = await gw.createApp({ webhook_url: receiver.url });
  receiver.secret = app.webhook_secret;
});
after(async () => {
  await receiver?.stop();
  await gw?.stop();
});
beforeEach(() => {
  receiver.received.length = 0;
});

interface PaymentJson {
  payment_id: string;
  status: string;
  amount_minor: number;
  currency: string;
  provider_ref: string;
  last_error: string;
  metadata: Record<string, unknown>;
}

async function newPayment(): Promise<{ id: string; ref: string }> {
  const res = await gw.v1(
    app,
    'POST',
    '/v1/payments',
    paymentBody({
      currency: 'USD',
      method: 'card_psp',
      amount_minor: 1999,
      metadata: APP_METADATA,
    }),
  );
  assert.equal(res.status, 201, res.text);
  const body = res.json<{ payment_id: string; checkout_url: string }>();
  return { id: body.payment_id, ref: new URL(body.checkout_url).pathname.split('/').pop() ?? '' };
}

async function read(id: string): Promise<PaymentJson> {
  const res = await gw.v1(app, 'GET', `/v1/payments/${id}`);
  assert.equal(res.status, 200, res.text);
  return res.json<PaymentJson>();
}

const ACK = JSON.stringify({ gateway_status: 200, gateway_body: '{"acknowledged":true}' });

async function eventsFor(paymentId: string, n: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const got = receiver.received
      .map((r) => ({ ...r, json: JSON.parse(r.body) as Record<string, unknown> }))
      .filter((r) => r.json.payment_id === paymentId);
    if (got.length >= n) return got;
    if (Date.now() > deadline)
      throw new Error(`got ${got.length} of ${n} deliveries for ${paymentId}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('pay -> succeeded with the app metadata verbatim plus card_psp enrichment', async () => {
  const { id, ref } = await newPayment();
  const res = await act(gw, ref, 'pay');
  assert.deepEqual(res, { status: 200, text: ACK, type: 'application/json; charset=utf-8' });
  const p = await read(id);
  assert.equal(p.status, 'succeeded');
  assert.equal(p.provider_ref, ref);
  const { card_psp_subscription_id, current_period_end, card_psp_event_type, ...rest } = p.metadata;
  assert.deepEqual(rest, APP_METADATA);
  assert.equal(card_psp_event_type, 'order.paid');
  assert.equal(typeof card_psp_subscription_id, 'string');
  assertTimestamp(current_period_end);
  const days = (Date.parse(current_period_end as string) - Date.now()) / 86_400_000;
  assert.ok(days > 27 && days < 32, `period end ${String(current_period_end)}`);

  const [delivery] = await eventsFor(id, 1);
  assert.ok(delivery);
  assert.equal(delivery.signatureValid, true);
  assert.equal(delivery.json.event, 'payment.succeeded');
  assert.equal(delivery.json.provider, 'card_psp');
  assert.deepEqual(delivery.json.metadata, p.metadata);

  assert.deepEqual(await act(gw, ref, 'pay'), {
    status: 409,
    text: 'checkout is succeeded, cannot pay',
    type: 'text/plain; charset=utf-8',
  });
  // The page now offers the subscription actions instead of Pay.
  const page = await (await fetch(`${gw.url}/sim/card_psp/checkout/${ref}`)).text();
  for (const a of ['renew', 'refund', 'subscription_cancel', 'subscription_revoke']) {
    assert.ok(page.includes(`/payments/${ref}/${a}"`), a);
  }
  assert.ok(!page.includes(`/payments/${ref}/pay"`));
});

test('fail -> failed with the provider text as last_error', async () => {
  const { id, ref } = await newPayment();
  assert.equal((await act(gw, ref, 'fail')).text, ACK);
  const p = await read(id);
  assert.equal(p.status, 'failed');
  assert.equal(p.last_error, 'Your card was declined.');
  const [d] = await eventsFor(id, 1);
  assert.equal(d?.json.event, 'payment.failed');
});

test('cancel and expire -> canceled', async () => {
  for (const action of ['cancel', 'expire']) {
    const { id, ref } = await newPayment();
    assert.equal((await act(gw, ref, action)).text, ACK, action);
    assert.equal((await read(id)).status, 'canceled', action);
    assert.deepEqual(await act(gw, ref, 'pay'), {
      status: 409,
      text: 'checkout is expired, cannot pay',
      type: 'text/plain; charset=utf-8',
    });
  }
});

test('renew -> a new succeeded payment linked by card_psp_subscription_id, period advanced', async () => {
  const { id, ref } = await newPayment();
  await act(gw, ref, 'pay');
  const first = await read(id);
  const res = await act(gw, ref, 'renew');
  assert.equal(res.text, ACK);
  const rows = await sql<{ id: string; parent_payment_id: string; provider_ref: string }>(
    gw.databaseUrl,
    'SELECT id, parent_payment_id, provider_ref FROM payments WHERE parent_payment_id = $1',
    [id],
  );
  assert.equal(rows.length, 1);
  const renewalRow = rows[0];
  assert.ok(renewalRow);
  assert.notEqual(renewalRow.id, id);
  assert.notEqual(renewalRow.provider_ref, ref);
  const renewal = await read(renewalRow.id);
  assert.equal(renewal.status, 'succeeded');
  assert.equal(renewal.amount_minor, 1999);
  assert.equal(renewal.currency, 'USD');
  const { current_period_end, ...rest } = renewal.metadata;
  const { current_period_end: firstEnd, ...firstRest } = first.metadata;
  assert.deepEqual(rest, firstRest);
  assert.ok(
    Date.parse(current_period_end as string) > Date.parse(firstEnd as string) + 27 * 86_400_000,
  );
  const [d] = await eventsFor(renewalRow.id, 1);
  assert.equal(d?.json.event, 'payment.succeeded');
  // The first charge is untouched.
  assert.deepEqual(await read(id), first);
});

test('refund at the provider -> a succeeded refund record; a second refund is refused', async () => {
  const { id, ref } = await newPayment();
  await act(gw, ref, 'pay');
  assert.equal((await act(gw, ref, 'refund')).text, ACK);
  const refunds = await sql<{ status: string; amount_minor: number; provider_ref: string }>(
    gw.databaseUrl,
    'SELECT status, amount_minor, provider_ref FROM refunds WHERE payment_id = $1',
    [id],
  );
  assert.equal(refunds.length, 1);
  assert.equal(refunds[0]?.status, 'succeeded');
  assert.equal(refunds[0]?.amount_minor, 1999);
  assert.equal((await read(id)).status, 'succeeded');
  const deliveries = await eventsFor(id, 2);
  assert.deepEqual(deliveries.map((d) => d.json.event).sort(), [
    'payment.succeeded',
    'refund.succeeded',
  ]);
  assert.deepEqual(await act(gw, ref, 'refund'), {
    status: 409,
    text: 'order is already refunded',
    type: 'text/plain; charset=utf-8',
  });
});

test('subscription_cancel and subscription_revoke are forwarded; renew then refused', async () => {
  const { id, ref } = await newPayment();
  await act(gw, ref, 'pay');
  const subId = (await read(id)).metadata.card_psp_subscription_id;
  assert.equal((await act(gw, ref, 'subscription_cancel')).text, ACK);
  assert.deepEqual(await act(gw, ref, 'renew'), {
    status: 409,
    text: 'subscription is canceled, it ends at the current period end',
    type: 'text/plain; charset=utf-8',
  });
  assert.equal((await act(gw, ref, 'subscription_revoke')).text, ACK);
  assert.deepEqual(await act(gw, ref, 'subscription_revoke'), {
    status: 409,
    text: 'subscription is already revoked',
    type: 'text/plain; charset=utf-8',
  });
  const deliveries = await eventsFor(id, 3);
  const subs = deliveries.filter((d) => String(d.json.event).startsWith('subscription.'));
  assert.deepEqual(subs.map((d) => d.json.event).sort(), [
    'subscription.canceled',
    'subscription.revoked',
  ]);
  for (const d of subs) {
    assert.equal(d.json.subscription_id, subId);
    assert.equal((d.json.metadata as Record<string, unknown>).order, 'A-77');
  }
  // The payment itself stays succeeded.
  assert.equal((await read(id)).status, 'succeeded');
});

test('a browser gets an HTML result page from an action', async () => {
  const { ref } = await newPayment();
  const res = await act(gw, ref, 'pay', 'text/html,application/xhtml+xml');
  assert.equal(res.status, 200);
  assert.equal(res.type, 'text/html; charset=utf-8');
  assert.ok(res.text.includes('Done'));
  assert.ok(res.text.includes(`/sim/card_psp/checkout/${ref}`));
});

test('the gateway refuses a card_psp webhook with a bad or stale signature', async () => {
  const { ref } = await newPayment();
  const body = JSON.stringify({
    type: 'checkout.updated',
    timestamp: new Date().toISOString(),
    data: { id: ref, status: 'expired' },
  });
  const post = (headers: Record<string, string>) =>
    fetch(`${gw.url}/webhooks/card_psp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    }).then(async (r): Promise<HttpResult> => {
      const text = await r.text();
      return { status: r.status, text, headers: r.headers, json: <T>() => JSON.parse(text) as T };
    });
  assertError(await post(signCardPspEvent('whsec_not_the_secret', body)), 401, 'bad signature');
  const endpoint = gw.running.gw.providers.endpoint('card_psp', 'test');
  assert.ok(endpoint);
  assertError(
    await post(signCardPspEvent(endpoint.webhookSecret, body, Date.now() - 10 * 60_000)),
    401,
    'bad signature',
  );
  const ok = await post(signCardPspEvent(endpoint.webhookSecret, body));
  assert.equal(ok.status, 200);
  assert.equal(ok.text, '{"acknowledged":true}');
});
