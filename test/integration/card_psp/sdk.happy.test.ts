import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Polar } from '@polar-sh/sdk';
import { ResourceNotFound } from '@polar-sh/sdk/models/errors/resourcenotfound.js';
import { validateEvent } from '@polar-sh/sdk/webhooks';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { simulatorEndpoint } from '../../helpers/drivers/sim.js';
import { paymentBody, sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { act } from '../../helpers/drivers/card_psp.js';
import { receivedBody, type ArchivedBodyColumns } from '../../helpers/inboundBody.js';

// The card_psp simulator seen from Polar's side of the wire: Polar's own TypeScript SDK
// drives it (every answer goes through the SDK's response schemas, which throw on a missing
// field), and every webhook it sends is checked with the SDK's validateEvent (signature and
// payload schema).

let gw: TestGateway;
let app: AppWithSecrets;
let polar: Polar;
let webhookSecret: string;

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp();
  const endpoint = simulatorEndpoint('card_psp', gw.config.masterKey, '');
  webhookSecret = endpoint.webhookSecret;
  polar = new Polar({
    accessToken: endpoint.credentials.accessToken ?? '',
    serverURL: `${gw.url}/sim/card_psp`,
    retryConfig: { strategy: 'none' },
  });
});
after(async () => {
  await gw?.stop();
});

/** Every card_psp webhook the gateway received since the given archive id, oldest first. */
async function inboundSince(sinceId: number) {
  const rows = await sql<{ id: string; headers: Record<string, string> } & ArchivedBodyColumns>(
    gw.databaseUrl,
    `SELECT id, headers, provider, raw_body, body_codec FROM inbound_events
     WHERE provider = 'card_psp' AND id > $1 ORDER BY id`,
    [sinceId],
  );
  return rows.map((r) => ({ id: r.id, headers: r.headers, raw_body: receivedBody(r) }));
}

async function lastInboundId(): Promise<number> {
  const [row] = await sql<{ id: string | null }>(
    gw.databaseUrl,
    `SELECT max(id)::text AS id FROM inbound_events`,
  );
  return Number(row?.id ?? 0);
}

/** validateEvent over each webhook; answers the parsed events (the SDK's typed objects). */
async function validatedSince(sinceId: number) {
  const rows = await inboundSince(sinceId);
  assert.ok(rows.length > 0, 'the simulator sent no webhook');
  return rows.map((r) => validateEvent(r.raw_body, r.headers, webhookSecret));
}

test('checkouts.create and checkouts.get through the Polar SDK', async () => {
  const created = await polar.checkouts.create({
    products: ['prod_sdk_monthly'],
    prices: {
      prod_sdk_monthly: [{ amountType: 'fixed', priceAmount: 2500, priceCurrency: 'eur' }],
    },
    customerEmail: 'buyer@example.com',
    externalCustomerId: 'user-1',
    successUrl: 'https://shop.example/return',
    metadata: { payment_id: 'p'.repeat(32) },
  });
  assert.equal(created.status, 'open');
  assert.equal(created.totalAmount, 2500);
  assert.equal(created.currency, 'eur');
  assert.equal(created.productId, 'prod_sdk_monthly');
  assert.equal(created.customerEmail, 'buyer@example.com');
  assert.equal(created.externalCustomerId, 'user-1');
  assert.deepEqual(created.metadata, { payment_id: 'p'.repeat(32) });
  assert.ok(created.url.endsWith(`/sim/card_psp/checkout/${created.id}`));
  assert.ok(created.expiresAt instanceof Date);

  const got = await polar.checkouts.get({ id: created.id });
  assert.equal(got.id, created.id);
  assert.equal(got.clientSecret, created.clientSecret);
  assert.equal(got.subscriptionId, null);

  await assert.rejects(polar.checkouts.get({ id: 'no-such-checkout' }), ResourceNotFound);
});

test('a wrong access token is refused as Polar refuses it', async () => {
  const stranger = new Polar({
    accessToken: 'polar_oat_wrong',
    serverURL: `${gw.url}/sim/card_psp`,
    retryConfig: { strategy: 'none' },
  });
  await assert.rejects(stranger.checkouts.get({ id: 'x' }), (err: Error) => {
    assert.match(err.message, /401/);
    return true;
  });
});

test('every webhook of a gateway payment is accepted by validateEvent, every action', async () => {
  const res = await gw.v1(
    app,
    'POST',
    '/v1/payments',
    paymentBody({
      currency: 'USD',
      method: 'card_psp',
      amount_minor: 1999,
      metadata: { card_psp_product_id: 'prod_pro_monthly' },
    }),
  );
  assert.equal(res.status, 201, res.text);
  const ref = new URL(res.json<{ checkout_url: string }>().checkout_url).pathname.split('/').pop();
  assert.ok(ref);

  let since = await lastInboundId();
  assert.equal((await act(gw, ref, 'pay')).gateway_status, 200);
  const paid = await validatedSince(since);
  assert.deepEqual(
    paid.map((e) => e.type),
    ['checkout.updated', 'order.paid'],
  );
  const order = paid[1];
  assert.ok(order?.type === 'order.paid');
  assert.equal(order.data.billingReason, 'subscription_create');
  assert.equal(order.data.totalAmount, 1999);
  assert.equal(order.data.refundableAmount, 1999);
  assert.equal(order.data.items[0]?.amount, 1999);
  const subscriptionId = order.data.subscriptionId;
  assert.ok(subscriptionId);

  const checkout = await polar.checkouts.get({ id: ref });
  assert.equal(checkout.status, 'succeeded');
  assert.equal(checkout.subscriptionId, subscriptionId);
  const sub = await polar.subscriptions.get({ id: subscriptionId });
  assert.equal(sub.status, 'active');
  assert.equal(sub.checkoutId, ref);

  const expected: [string, string[]][] = [
    ['renew', ['order.paid']],
    ['refund', ['order.refunded']],
    ['subscription_cancel', ['subscription.canceled']],
    ['subscription_revoke', ['subscription.revoked']],
  ];
  for (const [action, types] of expected) {
    since = await lastInboundId();
    await act(gw, ref, action);
    const events = await validatedSince(since);
    assert.deepEqual(
      events.map((e) => e.type),
      types,
      action,
    );
  }
  const revoked = await polar.subscriptions.get({ id: subscriptionId });
  assert.equal(revoked.status, 'canceled');
  assert.ok(revoked.endedAt instanceof Date);
});

test('fail, cancel and expire send checkout.updated bodies validateEvent accepts', async () => {
  for (const action of ['fail', 'cancel', 'expire']) {
    const created = await polar.checkouts.create({
      products: ['prod_pro_monthly'],
      metadata: { payment_id: `${action}-${Date.now()}` },
    });
    const since = await lastInboundId();
    await act(gw, created.id, action);
    const [event, ...rest] = await validatedSince(since);
    assert.equal(rest.length, 0);
    assert.ok(event?.type === 'checkout.updated', action);
    assert.equal(event.data.status, action === 'fail' ? 'failed' : 'expired');
    const got = await polar.checkouts.get({ id: created.id });
    assert.equal(got.status, event.data.status);
  }
});
