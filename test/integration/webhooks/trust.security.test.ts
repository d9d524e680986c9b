/**
 * Trust no provider event (docs/providers/*.md, "What a notification is trusted for"): a
 * webhook that passes its signature check moves money only as far as the signature covers
 * its body and the provider confirms it. Each test drives the gateway over HTTP the way an
 * attacker would, with what an attacker can hold: a real delivery's headers and body (the
 * inbound archive), a notification edited where its signature does not reach, a short-paid
 * order the provider really signed.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PaymentsController } from '@paypal/paypal-server-sdk';
import { simulatorEndpoint } from '../../helpers/drivers/sim.js';
import type { Webhook } from 'standardwebhooks';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { sql, TEXT_PLAIN } from '../../helpers/core.js';
import { cardPspTestSigner, postCardPspEvent } from '../../helpers/cardPspNotify.js';
import { crc32Of, forgeCrc } from '../../helpers/crcForge.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { idrNotification, idrTestServerKey, postWebhook } from '../../helpers/idrNotify.js';
import { createPayment, paidPayment } from '../../helpers/payments.js';
import { paypalClient } from '../../helpers/paypalSdk.js';
import { receivedBody, type ArchivedBodyColumns } from '../../helpers/inboundBody.js';

let gw: TestGateway;
let shop: AppWithSecrets;
let victim: AppWithSecrets;
let signer: Webhook;
let serverKey: string;

before(async () => {
  gw = await startTestGateway();
  shop = await gw.createApp({ name: 'attacker shop' });
  victim = await gw.createApp({ name: 'victim shop' });
  signer = cardPspTestSigner(gw.config.masterKey);
  serverKey = idrTestServerKey(gw.config.masterKey);
});
after(async () => {
  await gw?.stop();
});

const ACK = '{"acknowledged":true}';
const NONE = '{"acknowledged":true,"action":"none"}';
const ALREADY = '{"acknowledged":true,"action":"already_finalized"}';

async function statusOf(id: string) {
  const [row] = await sql<{ status: string; last_error: string }>(
    gw.databaseUrl,
    'SELECT status, last_error FROM payments WHERE id = $1',
    [id],
  );
  return row;
}

async function eventsOf(id: string) {
  const rows = await sql<{ event_type: string }>(
    gw.databaseUrl,
    'SELECT event_type FROM outbound_events WHERE payment_id = $1 ORDER BY created_at',
    [id],
  );
  return rows.map((r) => r.event_type);
}

async function lastOutcome(provider: string) {
  const [row] = await sql<{ outcome: string; signature_valid: boolean }>(
    gw.databaseUrl,
    `SELECT outcome, signature_valid FROM inbound_events WHERE provider = $1
     ORDER BY id DESC LIMIT 1`,
    [provider],
  );
  return row;
}

async function exceptionsOf(id: string) {
  return sql<{ kind: string; amount_minor: number; currency: string; resolution: string }>(
    gw.databaseUrl,
    `SELECT kind, amount_minor, currency, resolution FROM payment_exceptions
     WHERE payment_id = $1 ORDER BY detected_at`,
    [id],
  );
}

async function refundsOf(id: string) {
  return sql<{ status: string; amount_minor: number; provider_ref: string; additional: boolean }>(
    gw.databaseUrl,
    `SELECT status, amount_minor, provider_ref, additional FROM refunds
     WHERE payment_id = $1 ORDER BY created_at, id`,
    [id],
  );
}

// ---- wallet_psp: the signature covers a CRC32 of the body ---------------------------------

/** A real delivery the gateway archived: its headers and body, as an attacker finds them. */
async function archivedCapture(paymentId: string) {
  const [row] = await sql<{ headers: Record<string, string> } & ArchivedBodyColumns>(
    gw.databaseUrl,
    `SELECT headers, provider, raw_body, body_codec FROM inbound_events
     WHERE provider = 'wallet_psp' AND payment_id = $1 AND event_type = 'PAYMENT.CAPTURE.COMPLETED'
     ORDER BY id LIMIT 1`,
    [paymentId],
  );
  assert.ok(row, 'the capture delivery is archived');
  return { headers: row.headers, raw_body: receivedBody(row).toString('utf8') };
}

/**
 * PAYMENT.CAPTURE.COMPLETED for another payment, with the CRC32 of the real delivery's body:
 * its signature (over transmission id, time, webhook id and that CRC) still verifies.
 */
function forgedCapture(realBody: string, target: { id: string; providerRef: string }) {
  const real = JSON.parse(realBody) as { resource: Record<string, unknown> };
  const resource = {
    ...real.resource,
    custom_id: target.id,
    supplementary_data: { related_ids: { order_id: target.providerRef } },
  };
  const json = JSON.stringify({ ...real, resource, summary: '@@' });
  const [before, after] = json.split('@@') as [string, string];
  return forgeCrc(before, after, crc32Of(Buffer.from(realBody, 'utf8')));
}

async function postPayPal(headers: Record<string, string>, body: string) {
  const res = await fetch(`${gw.url}/webhooks/wallet_psp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'paypal-transmission-id': headers['paypal-transmission-id'] as string,
      'paypal-transmission-time': headers['paypal-transmission-time'] as string,
      'paypal-transmission-sig': headers['paypal-transmission-sig'] as string,
      'paypal-cert-url': headers['paypal-cert-url'] as string,
      'paypal-auth-algo': headers['paypal-auth-algo'] as string,
    },
    body,
  });
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') };
}

test('wallet_psp: a real delivery replayed over a CRC-forged body for another app is refused', async () => {
  const paid = await paidPayment(gw, shop, 'wallet', 2599);
  const target = await createPayment(gw, victim, 'wallet', 2599);
  const real = await archivedCapture(paid.id);
  const forged = forgedCapture(real.raw_body, target);
  assert.notEqual(forged, real.raw_body);

  const res = await postPayPal(real.headers, forged);
  assert.deepEqual(res, { status: 401, text: 'bad signature', type: TEXT_PLAIN });
  assert.deepEqual(await lastOutcome('wallet_psp'), {
    outcome: 'replayed_transmission',
    signature_valid: true,
  });
  assert.deepEqual(await statusOf(target.id), { status: 'initiated', last_error: '' });
  assert.deepEqual(await eventsOf(target.id), []);
  // The same delivery again, byte for byte, is a redelivery: acknowledged, nothing new.
  const again = await postPayPal(real.headers, real.raw_body);
  assert.deepEqual(again, { status: 200, text: ALREADY, type: 'application/json; charset=utf-8' });
});

test('wallet_psp: a forged capture whose transmission the gateway never saw is checked with the provider and changes nothing', async () => {
  const paid = await paidPayment(gw, shop, 'wallet', 1500);
  const target = await createPayment(gw, victim, 'wallet', 1500);
  const real = await archivedCapture(paid.id);
  // As if the attacker had intercepted the delivery before it reached the gateway.
  await sql(gw.databaseUrl, 'DELETE FROM provider_transmissions WHERE transmission_id = $1', [
    real.headers['paypal-transmission-id'],
  ]);
  const res = await postPayPal(real.headers, forgedCapture(real.raw_body, target));
  // The signature verifies; the provider says the order still waits for its payer.
  assert.deepEqual(res, { status: 200, text: NONE, type: 'application/json; charset=utf-8' });
  assert.deepEqual(await lastOutcome('wallet_psp'), {
    outcome: 'not_confirmed',
    signature_valid: true,
  });
  assert.deepEqual(await statusOf(target.id), { status: 'initiated', last_error: '' });
  assert.deepEqual(await eventsOf(target.id), []);
});

// ---- idr_psp: the signature covers order_id, status_code and gross_amount ------------------

test('idr_psp: a signed pending notification relabelled settlement finalizes nothing', async () => {
  const p = await createPayment(gw, victim, 'idr', 10_000);
  const pending = JSON.parse(
    idrNotification(serverKey, { orderId: p.id, status: 'pending', grossAmount: 10_000 }),
  ) as Record<string, unknown>;
  const relabelled = JSON.stringify({ ...pending, transaction_status: 'settlement' });
  const res = await postWebhook(gw.url, 'idr_psp', relabelled);
  assert.equal(res.status, 200);
  assert.equal(res.text, NONE);
  assert.equal((await lastOutcome('idr_psp'))?.outcome, 'not_confirmed');
  assert.deepEqual(await statusOf(p.id), { status: 'initiated', last_error: '' });
  assert.deepEqual(await eventsOf(p.id), []);
});

test('idr_psp: a settlement for 1.00 of a 10,000 payment, signed, finalizes nothing the provider did not see', async () => {
  const p = await createPayment(gw, victim, 'idr', 10_000);
  const short = idrNotification(serverKey, { orderId: p.id, status: 'settlement', grossAmount: 1 });
  const res = await postWebhook(gw.url, 'idr_psp', short);
  assert.equal(res.status, 200);
  assert.equal(res.text, NONE);
  assert.deepEqual(await statusOf(p.id), { status: 'initiated', last_error: '' });
  assert.deepEqual(await eventsOf(p.id), []);
});

test('idr_psp: a settlement notification edited to decline a pending refund leaves the refund pending', async () => {
  // Paid with another wallet than the acquirer's: its refund waits for that wallet.
  const p = await paidPayment(gw, victim, 'idr', 12_000, '?wallet=ovo');
  const created = await gw.v1(victim, 'POST', '/v1/refunds', { payment_id: p.id });
  assert.equal(created.status, 201, created.text);
  const refund = created.json<{ refund_id: string; status: string }>();
  assert.equal(refund.status, 'initiated');
  const body = JSON.parse(
    idrNotification(serverKey, { orderId: p.id, status: 'settlement', grossAmount: 12_000 }),
  ) as Record<string, unknown>;
  body.refunds = [{ refund_key: refund.refund_id, refund_amount: '12000.00', status: 'failed' }];
  const res = await postWebhook(gw.url, 'idr_psp', JSON.stringify(body));
  assert.equal(res.status, 200);
  assert.equal(res.text, ALREADY);
  assert.deepEqual(
    (await refundsOf(p.id)).map((r) => r.status),
    ['initiated'],
  );
  assert.deepEqual(await eventsOf(p.id), ['payment.succeeded']);
});

test('idr_psp: a real settlement notification edited into a refund records no refund', async () => {
  const p = await paidPayment(gw, victim, 'idr', 10_000);
  const [archived] = await sql<ArchivedBodyColumns>(
    gw.databaseUrl,
    `SELECT provider, raw_body, body_codec FROM inbound_events WHERE provider = 'idr_psp' AND payment_id = $1
     AND event_type = 'settlement' ORDER BY id LIMIT 1`,
    [p.id],
  );
  assert.ok(archived);
  const real = JSON.parse(receivedBody(archived).toString('utf8')) as Record<string, unknown>;
  const edited = JSON.stringify({
    ...real,
    transaction_status: 'refund',
    refund_amount: '10000.00',
    refunds: [{ refund_chargeback_id: 1, refund_amount: '10000.00', refund_key: 'forged' }],
  });
  const res = await postWebhook(gw.url, 'idr_psp', edited);
  assert.equal(res.status, 200);
  assert.equal(res.text, ALREADY);
  assert.deepEqual(await refundsOf(p.id), []);
  assert.deepEqual(await eventsOf(p.id), ['payment.succeeded']);
});

// ---- card_psp: the Standard Webhooks HMAC covers the body: trusted, and still compared ------

async function cardPayment(amount = 1999) {
  return createPayment(gw, victim, 'card', amount);
}

function orderPaid(
  paymentId: string,
  checkoutId: string,
  o: { net: number; total?: number; currency?: string },
) {
  return JSON.stringify({
    type: 'order.paid',
    timestamp: new Date().toISOString(),
    data: {
      id: `ord_${paymentId.slice(0, 8)}_${o.net}_${o.currency ?? 'usd'}`,
      status: 'paid',
      billing_reason: 'purchase',
      subtotal_amount: 1999,
      discount_amount: 1999 - o.net,
      net_amount: o.net,
      tax_amount: 0,
      total_amount: o.total ?? o.net,
      refunded_amount: 0,
      currency: o.currency ?? 'usd',
      checkout_id: checkoutId,
      subscription_id: null,
      metadata: { payment_id: paymentId },
    },
  });
}

for (const [name, order, expected] of [
  ['a discount code (500 of 1,999)', { net: 500 }, '500 USD'],
  ['a trial (0)', { net: 0 }, '0 USD'],
  ['another currency (1,999 EUR)', { net: 1999, currency: 'eur' }, '1999 EUR'],
] as const) {
  test(`card_psp: an order.paid for ${name} never marks the payment paid`, async () => {
    const p = await cardPayment();
    const body = orderPaid(p.id, p.providerRef, order);
    const res = await postCardPspEvent(gw.url, signer, body);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.text, ACK);
    assert.deepEqual(await statusOf(p.id), {
      status: 'failed',
      last_error: `amount mismatch: the provider took ${expected}, the payment is 1999 USD`,
    });
    assert.deepEqual(await eventsOf(p.id), ['payment.failed']);
    const [amount, currency] = expected.split(' ');
    // card_psp has no refund API: the money waits for the operator.
    assert.deepEqual(await exceptionsOf(p.id), [
      {
        kind: 'amount_mismatch',
        amount_minor: Number(amount),
        currency,
        resolution: 'manual',
      },
    ]);
    // The provider redelivers: nothing new, no second exception.
    const again = await postCardPspEvent(gw.url, signer, body);
    assert.equal(again.text, ALREADY);
    assert.equal((await exceptionsOf(p.id)).length, 1);
    assert.deepEqual(await eventsOf(p.id), ['payment.failed']);
  });
}

test('card_psp: checkouts are created with discount codes and trials off', async () => {
  const p = await cardPayment();
  const [row] = await sql<{ data: { allow_discount_codes?: boolean; allow_trial?: boolean } }>(
    gw.databaseUrl,
    `SELECT data FROM paygate_sim.sim_objects WHERE provider = 'card_psp' AND id = $1`,
    [p.providerRef],
  );
  assert.ok(row);
  assert.equal(row.data.allow_discount_codes, false);
  assert.equal(row.data.allow_trial, false);
});

// ---- every provider refund is on record -------------------------------------------------

function orderRefunded(paymentId: string, checkoutId: string, orderId: string, refunded: number) {
  return JSON.stringify({
    type: 'order.refunded',
    timestamp: new Date().toISOString(),
    data: {
      id: orderId,
      status: refunded >= 1999 ? 'refunded' : 'partially_refunded',
      billing_reason: 'purchase',
      subtotal_amount: 1999,
      net_amount: 1999,
      total_amount: 1999,
      refunded_amount: refunded,
      currency: 'usd',
      checkout_id: checkoutId,
      subscription_id: null,
      metadata: { payment_id: paymentId },
    },
  });
}

test('card_psp: a second refund at the provider is recorded and the app told', async () => {
  const p = await cardPayment();
  const paid = await postCardPspEvent(
    gw.url,
    signer,
    orderPaid(p.id, p.providerRef, { net: 1999 }),
  );
  assert.equal(paid.text, ACK);
  const orderId = `ord_${p.id}`;
  const first = await postCardPspEvent(
    gw.url,
    signer,
    orderRefunded(p.id, p.providerRef, orderId, 500),
  );
  assert.equal(first.text, ACK);
  const second = await postCardPspEvent(
    gw.url,
    signer,
    orderRefunded(p.id, p.providerRef, orderId, 1999),
  );
  assert.equal(second.text, ACK);
  assert.deepEqual(await refundsOf(p.id), [
    { status: 'succeeded', amount_minor: 500, provider_ref: orderId, additional: false },
    {
      status: 'succeeded',
      amount_minor: 1499,
      provider_ref: `${orderId}:1999`,
      additional: true,
    },
  ]);
  assert.deepEqual(await eventsOf(p.id), [
    'payment.succeeded',
    'refund.succeeded',
    'refund.succeeded',
  ]);
  // Redelivered: nothing more.
  const again = await postCardPspEvent(
    gw.url,
    signer,
    orderRefunded(p.id, p.providerRef, orderId, 1999),
  );
  assert.equal(again.text, ALREADY);
  assert.equal((await refundsOf(p.id)).length, 2);
  // The reports count both.
  const summary = await gw.admin('GET', '/admin/summary?days=1');
  const row = summary
    .json<{ by_app: { app_id: string; refunded_minor: number | string }[] }>()
    .by_app.find((a) => a.app_id === victim.app_id);
  assert.ok(row);
  assert.ok(Number(row.refunded_minor) >= 1999);
  // The API's one refund per payment is taken by the provider's refunds.
  const refund = await gw.v1(victim, 'POST', '/v1/refunds', { payment_id: p.id });
  assert.equal(refund.status, 422);
  assert.equal(refund.text, 'payment already has a refund');
});

test('idr_psp: a second refund made in the provider dashboard is recorded from the provider', async () => {
  const p = await paidPayment(gw, victim, 'idr', 10_000);
  const ours = await gw.v1(victim, 'POST', '/v1/refunds', {
    payment_id: p.id,
    amount_minor: 4000,
  });
  assert.equal(ours.status, 201, ours.text);
  // The operator refunds the rest in the provider's dashboard (its refund API, its own key).
  const auth = `Basic ${Buffer.from(`${serverKey}:`).toString('base64')}`;
  const dash = await fetch(`${gw.url}/sim/idr_psp/v2/${p.id}/refund`, {
    method: 'POST',
    headers: {
      authorization: auth,
      'content-type': 'application/json',
      accept: 'application/json',
    },
    body: JSON.stringify({ refund_key: 'dashboard-1', amount: 6000 }),
  });
  assert.equal(dash.status, 200, await dash.text());
  // The provider's notification follows; the gateway records what its status API lists.
  for (let i = 0; i < 100; i++) {
    if ((await refundsOf(p.id)).length === 2) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const refunds = await refundsOf(p.id);
  assert.equal(refunds.length, 2);
  assert.deepEqual(
    refunds.map((r) => [r.status, r.amount_minor, r.additional]),
    [
      ['succeeded', 4000, false],
      ['succeeded', 6000, true],
    ],
  );
  assert.equal(refunds[1]?.provider_ref, 'dashboard-1');
  assert.deepEqual(await eventsOf(p.id), [
    'payment.succeeded',
    'refund.succeeded',
    'refund.succeeded',
  ]);
});

test('wallet_psp: a second refund made at the provider (its own SDK) is recorded from the provider', async () => {
  const p = await paidPayment(gw, victim, 'wallet', 2599);
  const ours = await gw.v1(victim, 'POST', '/v1/refunds', { payment_id: p.id, amount_minor: 599 });
  assert.equal(ours.status, 201, ours.text);
  // The merchant refunds the rest outside the gateway, with PayPal's own server SDK.
  const creds = simulatorEndpoint('wallet_psp', gw.config.masterKey, '').credentials;
  const payments = new PaymentsController(
    paypalClient(`${gw.url}/sim/wallet_psp`, {
      clientId: creds.clientId ?? '',
      clientSecret: creds.clientSecret ?? '',
    }),
  );
  const [order] = await sql<{
    data: { order: { purchase_units: { payments: { captures: { id: string }[] } }[] } };
  }>(
    gw.databaseUrl,
    `SELECT data FROM paygate_sim.sim_objects WHERE provider = 'wallet_psp' AND kind = 'order' AND id = $1`,
    [p.providerRef],
  );
  const captureId = order?.data.order.purchase_units[0]?.payments.captures[0]?.id ?? '';
  const rest = await payments.refundCapturedPayment({
    captureId,
    paypalRequestId: 'merchant-dashboard-1',
    body: { amount: { currencyCode: 'EUR', value: '20.00' } },
  });
  assert.equal(rest.statusCode, 201);
  // PAYMENT.CAPTURE.REFUNDED follows; the gateway reads the refund from the provider.
  for (let i = 0; i < 100; i++) {
    if ((await refundsOf(p.id)).length === 2) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const refunds = await refundsOf(p.id);
  assert.deepEqual(
    refunds.map((r) => [r.status, r.amount_minor, r.additional]),
    [
      ['succeeded', 599, false],
      ['succeeded', 2000, true],
    ],
  );
  assert.equal(refunds[1]?.provider_ref, rest.result.id);
  assert.deepEqual(await eventsOf(p.id), [
    'payment.succeeded',
    'refund.succeeded',
    'refund.succeeded',
  ]);
});
