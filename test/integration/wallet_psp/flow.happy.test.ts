import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { walletPsp, walletPspSim, actRaw as act } from '../../helpers/drivers/wallet_psp.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

let gw: TestGateway;
let app: AppWithSecrets;

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp({ webhook_url: 'http://127.0.0.1:9/hook' });
});
after(async () => {
  await gw?.stop();
});

interface View {
  payment_id: string;
  status: string;
  provider_ref: string;
  last_error: string;
}

async function newPayment(currency = 'EUR'): Promise<View> {
  const res = await gw.v1(app, 'POST', '/v1/payments', {
    external_user_id: 'user-flow',
    email: 'buyer@example.com',
    amount_minor: 2599,
    currency,
    method: 'wallet_psp',
    return_url: 'https://shop.example/return',
  });
  assert.equal(res.status, 201, res.text);
  const id = res.json<{ payment_id: string }>().payment_id;
  return read(id);
}

async function read(id: string): Promise<View> {
  const res = await gw.v1(app, 'GET', `/v1/payments/${id}`);
  assert.equal(res.status, 200);
  return res.json<View>();
}

test('pay: approval, the gateway captures, the capture event settles: succeeded', async () => {
  const p = await newPayment();
  const r = await act(gw, p.provider_ref, 'pay');
  assert.equal(r.status, 200);
  // The last event's answer: the capture completion finalized the payment.
  assert.deepEqual(JSON.parse(r.text), {
    gateway_status: 200,
    gateway_body: '{"acknowledged":true}',
  });
  const after = await read(p.payment_id);
  assert.equal(after.status, 'succeeded');
  assert.equal(after.last_error, '');
  const again = await act(gw, p.provider_ref, 'pay');
  assert.equal(again.status, 409);
  assert.equal(
    again.text,
    `cannot pay: order ${p.provider_ref} is COMPLETED, not CREATED or PAYER_ACTION_REQUIRED`,
  );
});

test('fail: the capture is declined: failed with the provider reason', async () => {
  const p = await newPayment('USD');
  const r = await act(gw, p.provider_ref, 'fail');
  assert.equal(r.status, 200);
  assert.deepEqual(JSON.parse(r.text), {
    gateway_status: 200,
    gateway_body: '{"acknowledged":true}',
  });
  const after = await read(p.payment_id);
  assert.equal(after.status, 'failed');
  assert.equal(after.last_error, 'DECLINED_BY_PROCESSOR');
});

test('cancel and expire: the order is voided: canceled', async () => {
  for (const action of ['cancel', 'expire']) {
    const p = await newPayment('GBP');
    const r = await act(gw, p.provider_ref, action);
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.text), {
      gateway_status: 200,
      gateway_body: '{"acknowledged":true}',
    });
    assert.equal((await read(p.payment_id)).status, 'canceled', action);
  }
});

test('the approval page buttons answer a browser with HTML', async () => {
  const p = await newPayment();
  const r = await act(gw, p.provider_ref, 'pay', 'text/html,application/xhtml+xml');
  assert.equal(r.status, 200);
  assert.match(r.type, /^text\/html/);
  assert.ok(r.text.includes('Done'));
  assert.equal((await read(p.payment_id)).status, 'succeeded');
});

test('a canceled payment stays canceled when the order is later voided again or paid', async () => {
  const p = await newPayment();
  assert.equal((await act(gw, p.provider_ref, 'cancel')).status, 200);
  const r = await act(gw, p.provider_ref, 'pay');
  assert.equal(r.status, 409);
  assert.equal((await read(p.payment_id)).status, 'canceled');
});

test('a capture outside a buyer action (the reconciler) still gets its event: succeeded', async () => {
  const core = gw.running.gw;
  const p = await newPayment();
  // The buyer approved but the approval event was lost: only the provider knows.
  const sim = walletPspSim(core, gw.simClock);
  await sim.orders.update(p.provider_ref, (o) => ({
    ...o,
    approval: 'pay',
    order: { ...o.order, status: 'APPROVED' },
  }));
  const endpoint = core.providers.endpoint('wallet_psp', 'test');
  assert.ok(endpoint);
  const ctx = { mode: 'test' as const, endpoint, timeoutMs: 5000, now: () => core.now() };
  const ref = { paymentId: p.payment_id, providerRef: p.provider_ref };
  assert.deepEqual(await walletPsp.fetchStatus(ctx, ref), { kind: 'capture_required' });
  await walletPsp.capture!(ctx, ref);
  for (let i = 0; i < 100 && (await read(p.payment_id)).status === 'initiated'; i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal((await read(p.payment_id)).status, 'succeeded');
  assert.deepEqual(await walletPsp.fetchStatus(ctx, ref), {
    kind: 'payment',
    outcome: 'succeeded',
    // PayPal's fee from the capture's seller_receivable_breakdown (the ledger's fee_minor).
    paid: { amountMinor: 2599, currency: 'EUR', feeMinor: 140 },
  });
});
