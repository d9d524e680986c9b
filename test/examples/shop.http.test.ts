/**
 * The example shop over real HTTP beside a real gateway: checkout, webhooks the gateway
 * really sends, the order status, both shapes of the create answer. The browser walk
 * through the same pages is test/browser/shop.checkout.test.ts.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, test } from 'node:test';
import { startShop, type RunningShop } from '../../examples/shop/shop.js';
import { eventually } from '../helpers/eventually.js';
import { sql } from '../helpers/core.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { decodeQrPng } from '../helpers/emvQr.js';

let gw: TestGateway;
let shop: RunningShop;

before(async () => {
  gw = await startTestGateway();
  shop = await startShop({ gatewayUrl: gw.url, adminToken: ADMIN_TOKEN, port: 0 });
});
after(async () => {
  await shop?.stop();
  await gw?.stop();
});

async function checkout(s: RunningShop, product: string) {
  const res = await fetch(`${s.url}/checkout`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ product, email: 'buyer@example.com' }).toString(),
    redirect: 'manual',
  });
  assert.equal(res.status, 303, await res.text());
  const order = [...s.orders.values()].at(-1);
  assert.ok(order);
  return { location: res.headers.get('location') ?? '', order };
}

async function providerRef(paymentId: string): Promise<string> {
  const [row] = await gwSql<{ provider_ref: string }>(
    'SELECT provider_ref FROM payments WHERE id = $1',
    [paymentId],
  );
  return row?.provider_ref ?? '';
}

function gwSql<R extends Record<string, unknown>>(text: string, params: unknown[]) {
  return sql<R>(gw.databaseUrl, text, params);
}

async function simulate(ref: string, action: string) {
  const res = await fetch(`${gw.url}/sim/idr_psp/payments/${ref}/${action}`, { method: 'POST' });
  assert.equal(res.status, 200, await res.text());
}

async function orderStatus(s: RunningShop, id: string) {
  const res = await fetch(`${s.url}/orders/${id}/status`);
  assert.equal(res.status, 200);
  return (await res.json()) as { status: string; events: { id: string; type: string }[] };
}

test('the product page lists the products with a checkout form', async () => {
  const res = await fetch(shop.url);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
  const page = await res.text();
  assert.match(page, /Buy Kopi Toraja with QRIS/);
  assert.match(page, /Rp 85\.000/);
  assert.doesNotMatch(page, /(src|href)="https?:\/\/(?!127\.0\.0\.1|localhost)/);
});

test('checkout creates a QRIS payment and sends the buyer to the checkout page; pay arrives by webhook', async () => {
  const { location, order } = await checkout(shop, 'kopi');
  assert.equal(location, order.checkoutUrl);
  assert.match(location, /\/sim\/idr_psp\/snap\/v2\/vtweb\//);
  const [row] = await gwSql<{ amount_minor: number; method: string; return_url: string }>(
    'SELECT amount_minor, method, return_url FROM payments WHERE id = $1',
    [order.paymentId],
  );
  assert.deepEqual(row, {
    amount_minor: 85000,
    method: 'qris',
    return_url: `${shop.url}/orders/${order.id}`,
  });

  const page = await (await fetch(`${shop.url}/orders/${order.id}`)).text();
  assert.match(page, /data-status="initiated">Waiting for payment</);

  await simulate(await providerRef(order.paymentId), 'pay');
  const done = await eventually(async () => {
    const s = await orderStatus(shop, order.id);
    return s.events.length > 0 ? s : undefined;
  });
  assert.equal(done.status, 'succeeded');
  assert.deepEqual(
    done.events.map((e) => e.type),
    ['payment.succeeded'],
  );
});

test('a failed payment shows failed; a redelivered event is recorded once', async () => {
  const { order } = await checkout(shop, 'teh');
  await simulate(await providerRef(order.paymentId), 'fail');
  const failed = await eventually(async () => {
    const s = await orderStatus(shop, order.id);
    return s.events.length > 0 ? s : undefined;
  });
  assert.equal(failed.status, 'failed');
  assert.deepEqual(
    failed.events.map((e) => e.type),
    ['payment.failed'],
  );

  // The operator's retry-webhook redelivers the same event (same X-PAY-Event-Id).
  const retry = await gw.admin('POST', `/admin/payments/${order.paymentId}/retry-webhook`);
  assert.equal(retry.status, 202, retry.text);
  const deliveryId = retry.json<{ delivery_id: string }>().delivery_id;
  await eventually(async () => {
    const rows = await gwSql<{ status: string }>('SELECT status FROM deliveries WHERE id = $1', [
      deliveryId,
    ]);
    return rows[0]?.status === 'delivered' ? true : undefined;
  });
  assert.equal((await orderStatus(shop, order.id)).events.length, 1);
});

test('the webhook endpoint refuses forged and stale deliveries with 400 and the reason', async () => {
  const body = JSON.stringify({
    event: 'payment.succeeded',
    payment_id: [...shop.orders.values()][0]?.paymentId,
    status: 'succeeded',
  });
  const ts = Math.floor(Date.now() / 1000);
  const post = (headers: Record<string, string>) =>
    fetch(`${shop.url}/webhooks/paygate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
  const wrongKey = createHmac('sha256', 'whsec_guess').update(`${ts}.${body}`).digest('hex');
  const forged = await post({ 'x-pay-timestamp': String(ts), 'x-pay-signature': wrongKey });
  assert.equal(forged.status, 400);
  assert.equal(await forged.text(), 'bad signature');
  const stale = await post({ 'x-pay-timestamp': String(ts - 3600), 'x-pay-signature': wrongKey });
  assert.equal(stale.status, 400);
  assert.equal(await stale.text(), 'timestamp out of range');
  const bare = await post({});
  assert.equal(await bare.text(), 'missing signature headers');
});

test('direct QR: the checkout shows the QR on the order page instead of redirecting away', async () => {
  const direct = await startTestGateway({ IDR_PSP_DIRECT_QR: 'true' });
  const qrShop = await startShop({ gatewayUrl: direct.url, adminToken: ADMIN_TOKEN });
  try {
    const { location, order } = await checkout(qrShop, 'kopi');
    assert.equal(location, `/orders/${order.id}`);
    assert.ok(order.qrString && order.qrImageUrl);
    const page = await (await fetch(`${qrShop.url}${location}`)).text();
    assert.ok(page.includes(`<img alt="QRIS code" src="${order.qrImageUrl}">`));
    assert.ok(page.includes(order.qrString));
    const img = await fetch(order.qrImageUrl);
    assert.equal(img.status, 200);
    assert.equal(img.headers.get('content-type'), 'image/png');
    // What the shop shows is a real QR code of the string it got.
    assert.equal(decodeQrPng(Buffer.from(await img.arrayBuffer())), order.qrString);
  } finally {
    await qrShop.stop();
    await direct.stop();
  }
});
