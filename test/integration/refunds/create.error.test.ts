import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { createPayment, paidPayment, simAction } from '../../helpers/payments.js';
import { assertError } from '../../helpers/assert.js';

// POST /v1/refunds: every error row of docs/api.md#errors that refunds can produce, exact status and body.

let gw: TestGateway;
let app: AppWithSecrets;
let other: AppWithSecrets;

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp({ name: 'Refund shop' });
  other = await gw.createApp({ name: 'Other shop' });
});
after(async () => {
  await gw?.stop();
});

async function refund(body: unknown, as: AppWithSecrets = app) {
  return gw.v1(as, 'POST', '/v1/refunds', typeof body === 'string' ? body : (body as object));
}

async function refundCount(): Promise<number> {
  const r = await gw.running.gw.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM refunds');
  return r.rows[0]?.n ?? -1;
}

test('400s: invalid JSON, missing payment_id, bad amount_minor, bad reason; nothing stored', async () => {
  const paid = await paidPayment(gw, app, 'idr', 10000);
  assertError(await refund('{nope'), 400, 'invalid JSON body');
  assertError(await refund({}), 400, 'missing required fields: payment_id');
  assertError(await refund({ payment_id: '' }), 400, 'missing required fields: payment_id');
  assertError(await refund({ payment_id: null }), 400, 'missing required fields: payment_id');
  for (const amount of [0, -5, 1.5, '100', 2 ** 53]) {
    assertError(
      await refund({ payment_id: paid.id, amount_minor: amount }),
      400,
      'amount_minor must be a positive integer',
    );
  }
  assertError(await refund({ payment_id: paid.id, reason: 42 }), 400, 'reason must be a string');
  assert.equal(await refundCount(), 0);
});

test("404 'payment not found': unknown, malformed, or another app's payment", async () => {
  const paid = await paidPayment(gw, app, 'idr', 11000);
  assertError(await refund({ payment_id: 'f'.repeat(32) }), 404, 'payment not found');
  assertError(await refund({ payment_id: 'not-an-id' }), 404, 'payment not found');
  assertError(await refund({ payment_id: paid.id.toUpperCase() }), 404, 'payment not found');
  assertError(await refund({ payment_id: paid.id }, other), 404, 'payment not found');
});

test('422: refund of a payment that has not succeeded names its status', async () => {
  const initiated = await createPayment(gw, app, 'idr', 12000);
  assertError(
    await refund({ payment_id: initiated.id }),
    422,
    "payment must be in 'succeeded' state to refund (got initiated)",
  );
  const failed = await createPayment(gw, app, 'idr', 12000);
  await simAction(gw, 'idr', failed.providerRef, 'fail');
  assertError(
    await refund({ payment_id: failed.id }),
    422,
    "payment must be in 'succeeded' state to refund (got failed)",
  );
  const canceled = await createPayment(gw, app, 'idr', 12000);
  await simAction(gw, 'idr', canceled.providerRef, 'cancel');
  assertError(
    await refund({ payment_id: canceled.id }),
    422,
    "payment must be in 'succeeded' state to refund (got canceled)",
  );
  assert.equal(await refundCount(), 0);
});

test('422 refund amount exceeds payment amount', async () => {
  const paid = await paidPayment(gw, app, 'idr', 13000);
  assertError(
    await refund({ payment_id: paid.id, amount_minor: 13001 }),
    422,
    'refund amount exceeds payment amount',
  );
  assert.equal(await refundCount(), 0);
});

test('401s: the refund endpoint is signed like every /v1 route', async () => {
  const res = await gw.v1(
    app,
    'POST',
    '/v1/refunds',
    { payment_id: 'a'.repeat(32) },
    { 'X-PAY-Signature': '' },
  );
  assertError(res, 401, 'missing auth headers');
  const admin = await gw.admin('POST', '/v1/refunds', { payment_id: 'a'.repeat(32) });
  assertError(admin, 401, 'missing auth headers');
});

test('card_psp: no refund API (502, nothing stored); after the provider refund, 422 already has a refund', async () => {
  const paid = await paidPayment(gw, app, 'card', 2500);
  const before = await refundCount();
  assertError(
    await refund({ payment_id: paid.id }),
    502,
    'refund failed: card_psp refunds are made at the provider',
  );
  assert.equal(await refundCount(), before);
  const r = await simAction(gw, 'card', paid.providerRef, 'refund');
  assert.equal(r.gateway_status, 200, r.gateway_body);
  assert.equal(await refundCount(), before + 1);
  assertError(await refund({ payment_id: paid.id }), 422, 'payment already has a refund');
});
