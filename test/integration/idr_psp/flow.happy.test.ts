import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

let gw: TestGateway;
let app: AppWithSecrets;
before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp();
});
after(async () => {
  await gw?.stop();
});

async function createPayment(method: string): Promise<{ id: string; ref: string }> {
  const res = await gw.v1(app, 'POST', '/v1/payments', {
    external_user_id: 'buyer-e2e',
    email: 'buyer@example.com',
    amount_minor: 10000,
    currency: 'IDR',
    method,
    return_url: 'https://shop.example/return',
  });
  assert.equal(res.status, 201, res.text);
  const id = res.json().payment_id as string;
  const view = await gw.v1(app, 'GET', `/v1/payments/${id}`);
  return { id, ref: view.json().provider_ref as string };
}

async function simAction(ref: string, action: string) {
  const res = await fetch(`${gw.url}/sim/idr_psp/payments/${ref}/${action}`, { method: 'POST' });
  const text = await res.text();
  return { status: res.status, text };
}

async function payment(id: string): Promise<Record<string, unknown>> {
  const res = await gw.v1(app, 'GET', `/v1/payments/${id}`);
  assert.equal(res.status, 200);
  return res.json();
}

test('pay: the gateway acknowledges the notification and the payment succeeds', async () => {
  const { id, ref } = await createPayment('qris');
  const res = await simAction(ref, 'pay');
  assert.equal(res.status, 200);
  const result = JSON.parse(res.text) as { gateway_status: number; gateway_body: string };
  assert.equal(result.gateway_status, 200, result.gateway_body);
  assert.equal((JSON.parse(result.gateway_body) as { acknowledged: boolean }).acknowledged, true);
  const p = await payment(id);
  assert.equal(p.status, 'succeeded');
  assert.equal(p.last_error, '');

  const again = await simAction(ref, 'pay');
  assert.equal(again.status, 409);
  assert.equal(again.text, 'transaction already settled');
});

test('expire: the payment is recorded as failed with the provider text', async () => {
  const { id, ref } = await createPayment('qris');
  const res = await simAction(ref, 'expire');
  assert.equal(res.status, 200);
  assert.equal((JSON.parse(res.text) as { gateway_status: number }).gateway_status, 200);
  const p = await payment(id);
  assert.equal(p.status, 'failed');
  assert.equal(p.last_error, 'Transaction expired: QR not paid within 20 minutes');
});

test('fail on a virtual account: failed with the decline text', async () => {
  const { id, ref } = await createPayment('va_bri');
  assert.equal((await simAction(ref, 'fail')).status, 200);
  const p = await payment(id);
  assert.equal(p.status, 'failed');
  assert.equal(p.last_error, 'Transaction denied by the issuer (simulated decline)');
  const again = await simAction(ref, 'cancel');
  assert.equal(again.status, 409);
  assert.equal(again.text, 'transaction already denied');
});

test('cancel: canceled', async () => {
  const { id, ref } = await createPayment('va_mandiri');
  assert.equal((await simAction(ref, 'cancel')).status, 200);
  assert.equal((await payment(id)).status, 'canceled');
});

test('a browser pressing Pay gets an HTML result page', async () => {
  const { id, ref } = await createPayment('va_bca');
  const res = await fetch(`${gw.url}/sim/idr_psp/payments/${ref}/pay`, {
    method: 'POST',
    headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
    body: 'action=pay',
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(await res.text(), /Gateway answered <strong>200<\/strong>/);
  assert.equal((await payment(id)).status, 'succeeded');
});

test('an unpaid QR left alone fails after 20 minutes of the simulator clock', async () => {
  const { id } = await createPayment('qris');
  const clock = await gw.admin('POST', '/sim/clock', { advance_ms: 20 * 60_000 + 1000 });
  assert.equal(clock.status, 200);
  try {
    // The simulator's own sweep (every 5 s) expires it and notifies the gateway.
    const deadline = Date.now() + 15_000;
    let p = await payment(id);
    while (p.status === 'initiated' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      p = await payment(id);
    }
    assert.equal(p.status, 'failed');
    assert.equal(p.last_error, 'Transaction expired: QR not paid within 20 minutes');
  } finally {
    await gw.admin('POST', '/sim/clock', { reset: true });
  }
});
