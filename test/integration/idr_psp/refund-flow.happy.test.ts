/**
 * idr_psp refunds end to end: POST /v1/refunds and admin cancel through the gateway's refund
 * service, the adapter and the simulator, with the simulator's asynchronous settlement.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import type { SimClock } from '../../helpers/drivers/sim.js';
import { eventually } from '../../helpers/eventually.js';
import { assertError, sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { createPayment, paidPayment, simAction } from '../../helpers/payments.js';

const DAY_MS = 86_400_000;

let gw: TestGateway;
let app: AppWithSecrets;
let clock: SimClock;

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp();
  clock = gw.simClock;
});
beforeEach(() => clock.reset());
after(async () => {
  clock?.reset();
  await gw?.stop();
});

interface RefundView {
  refund_id: string;
  status: string;
  amount_minor: number;
  provider_ref: string;
}

async function refundRow(id: string) {
  const rows = await sql<{ status: string; last_error: string }>(
    gw.databaseUrl,
    'SELECT status, last_error FROM refunds WHERE id = $1',
    [id],
  );
  return rows[0];
}

test('same-wallet QRIS: 201 succeeded, provider_ref is the refund id', async () => {
  const p = await paidPayment(gw, app, 'idr', 10000);
  const res = await gw.v1(app, 'POST', '/v1/refunds', { payment_id: p.id, amount_minor: 4000 });
  assert.equal(res.status, 201, res.text);
  const r = res.json<RefundView>();
  assert.equal(r.status, 'succeeded');
  assert.equal(r.amount_minor, 4000);
  assert.equal(r.provider_ref, r.refund_id);
});

test('same-wallet QRIS past 1 day: 502 with the provider text, refund stored failed', async () => {
  const p = await paidPayment(gw, app, 'idr', 10000);
  clock.advance(DAY_MS + 1000);
  const res = await gw.v1(app, 'POST', '/v1/refunds', { payment_id: p.id });
  assertError(
    res,
    502,
    'refund failed: Online refund is not available: same-wallet QRIS payments can be refunded online within 1 day of the transaction, refund this payment manually',
  );
});

test('cross-wallet QRIS: 201 initiated, then refund_succeed settles it', async () => {
  const p = await paidPayment(gw, app, 'idr', 15000, '?wallet=ovo');
  const res = await gw.v1(app, 'POST', '/v1/refunds', { payment_id: p.id, reason: 'returned' });
  assert.equal(res.status, 201, res.text);
  const r = res.json<RefundView>();
  assert.equal(r.status, 'initiated');
  assert.equal(r.provider_ref, r.refund_id);
  const s = await simAction(gw, 'idr', p.providerRef, 'refund_succeed');
  assert.deepEqual(s, { gateway_status: 200, gateway_body: '{"acknowledged":true}' });
  assert.deepEqual(await refundRow(r.refund_id), { status: 'succeeded', last_error: '' });
});

test('cross-wallet QRIS: refund_fail settles it failed with the provider text', async () => {
  const p = await paidPayment(gw, app, 'idr', 15000, '?wallet=ovo');
  const res = await gw.v1(app, 'POST', '/v1/refunds', { payment_id: p.id });
  assert.equal(res.status, 201, res.text);
  const r = res.json<RefundView>();
  const s = await simAction(
    gw,
    'idr',
    p.providerRef,
    'refund_fail',
    '?reason=Wallet+account+closed',
  );
  assert.deepEqual(s, { gateway_status: 200, gateway_body: '{"acknowledged":true}' });
  assert.deepEqual(await refundRow(r.refund_id), {
    status: 'failed',
    last_error: 'Wallet account closed',
  });
});

test('cross-wallet QRIS past 365 days: 502 with the provider text', async () => {
  const p = await paidPayment(gw, app, 'idr', 15000, '?wallet=ovo');
  clock.advance(365 * DAY_MS + 1000);
  const res = await gw.v1(app, 'POST', '/v1/refunds', { payment_id: p.id });
  assertError(
    res,
    502,
    'refund failed: Online refund is not available: cross-wallet QRIS payments can be refunded online within 365 days of the transaction',
  );
});

test('virtual account: refunded after payment', async () => {
  const p = await paidPayment(gw, app, 'va', 30000);
  clock.advance(100 * DAY_MS);
  const res = await gw.v1(app, 'POST', '/v1/refunds', { payment_id: p.id });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.json<RefundView>().status, 'succeeded');
});

test('admin cancel of a pending QRIS payment cancels it at the provider', async () => {
  const p = await createPayment(gw, app, 'idr', 5000);
  const res = await gw.admin('POST', `/admin/payments/${p.id}/cancel`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json<{ status: string }>().status, 'canceled');
  // The provider's own cancel notification follows; it changes nothing more.
  const outcome = await eventually(async () => {
    const rows = await sql<{ outcome: string }>(
      gw.databaseUrl,
      `SELECT outcome FROM inbound_events WHERE payment_id = $1 AND event_type = 'cancel'`,
      [p.id],
    );
    return rows[0]?.outcome;
  }, 'the cancel notification');
  assert.ok(['already_finalized', 'finalized_canceled'].includes(outcome), outcome);
});
