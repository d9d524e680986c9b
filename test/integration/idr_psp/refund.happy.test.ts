/**
 * idr_psp refund and cancel through the adapter, against the running simulator (docs/api.md#refunds-per-provider):
 * windows on the simulator clock, the asynchronous cross-wallet path, idempotent refund_key,
 * and cancel with the provider's notification.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, test } from 'node:test';
import { idrPsp, type SimTransaction } from '../../helpers/drivers/idr_psp.js';
import {
  type ProviderContext,
  type RefundInput,
  type SimClock,
} from '../../helpers/drivers/sim.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { eventually } from '../../helpers/eventually.js';
import { sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import {
  createPayment,
  paidPayment,
  simAction,
  type CreatedPayment,
} from '../../helpers/payments.js';
import { rejection } from '../../helpers/assert.js';

const DAY_MS = 86_400_000;
const SAME_WALLET_MANUAL =
  'Online refund is not available: same-wallet QRIS payments can be refunded online within 1 day of the transaction, refund this payment manually';
const CROSS_WALLET_EXPIRED =
  'Online refund is not available: cross-wallet QRIS payments can be refunded online within 365 days of the transaction';

let gw: TestGateway;
let app: AppWithSecrets;
let ctx: ProviderContext;
let clock: SimClock;

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp();
  const endpoint = gw.running.gw.providers.endpoint('idr_psp', 'test');
  assert.ok(endpoint);
  ctx = { mode: 'test', endpoint, timeoutMs: 5000, now: () => gw.running.gw.now() };
  clock = gw.simClock;
});
beforeEach(() => clock.reset());
after(async () => {
  clock?.reset();
  await gw?.stop();
});

function refundInput(p: CreatedPayment, amount: number, over: Partial<RefundInput> = {}) {
  return {
    paymentId: p.id,
    providerRef: p.providerRef,
    refundId: randomBytes(16).toString('hex'),
    amountMinor: amount,
    paymentAmountMinor: amount,
    currency: 'IDR',
    reason: 'customer request',
    ...over,
  } satisfies RefundInput;
}

async function simTx(orderId: string): Promise<SimTransaction> {
  const rows = await sql<{ data: SimTransaction }>(
    gw.databaseUrl,
    `SELECT data FROM paygate_sim.sim_objects WHERE provider = 'idr_psp' AND kind = 'transaction' AND id = $1`,
    [orderId],
  );
  assert.ok(rows[0]);
  return rows[0].data;
}

function basic(): string {
  return `Basic ${Buffer.from(`${ctx.endpoint.credentials.serverKey}:`).toString('base64')}`;
}

async function wireRefund(orderId: string, body?: unknown, auth = basic()) {
  const res = await fetch(`${ctx.endpoint.baseUrl}/v2/${orderId}/refund/online/direct`, {
    method: 'POST',
    headers: {
      authorization: auth,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

test('same-wallet QRIS: refunded at once 1 day - 1 s after payment', async () => {
  const p = await paidPayment(gw, app, 'idr', 10000);
  assert.equal((await simTx(p.id)).wallet, 'gopay');
  clock.advance(DAY_MS - 1000);
  const input = refundInput(p, 10000);
  assert.deepEqual(await idrPsp.refund!(ctx, input), {
    status: 'succeeded',
    providerRefundRef: input.refundId,
  });
  const tx = await simTx(p.id);
  assert.equal(tx.transaction_status, 'refund');
  assert.equal(tx.refunds?.[0]?.refund_key, input.refundId);
  assert.equal(tx.refunds?.[0]?.reason, 'customer request');
});

test('same-wallet QRIS: 1 day + 1 s after payment the provider refuses (manual refund)', async () => {
  const p = await paidPayment(gw, app, 'idr', 10000, '?wallet=gopay');
  clock.advance(DAY_MS + 1000);
  const err = await rejection(idrPsp.refund!(ctx, refundInput(p, 10000)));
  assert.equal(err.kind, 'rejected');
  assert.equal(err.providerText, SAME_WALLET_MANUAL);
  assert.equal((await simTx(p.id)).transaction_status, 'settlement');
});

test('cross-wallet QRIS: pending, then refund_succeed notifies the gateway', async () => {
  const p = await paidPayment(gw, app, 'idr', 12000, '?wallet=ovo');
  assert.equal((await simTx(p.id)).wallet, 'ovo');
  clock.advance(30 * DAY_MS);
  const input = refundInput(p, 12000);
  assert.deepEqual(await idrPsp.refund!(ctx, input), {
    status: 'pending',
    providerRefundRef: input.refundId,
  });
  assert.equal((await simTx(p.id)).transaction_status, 'settlement');
  const r = await simAction(gw, 'idr', p.providerRef, 'refund_succeed');
  assert.deepEqual(r, { gateway_status: 200, gateway_body: '{"acknowledged":true}' });
  assert.equal((await simTx(p.id)).transaction_status, 'refund');
  // The gateway matched it by refund_key (here: recorded as a refund made at the provider).
  const rows = await sql<{ status: string; amount_minor: number }>(
    gw.databaseUrl,
    'SELECT status, amount_minor FROM refunds WHERE payment_id = $1 AND provider_ref = $2',
    [p.id, input.refundId],
  );
  assert.deepEqual(rows, [{ status: 'succeeded', amount_minor: 12000 }]);
  // The status API now reports the refund.
  assert.deepEqual(await idrPsp.fetchStatus(ctx, { paymentId: p.id, providerRef: null }), {
    kind: 'refund',
    outcome: 'succeeded',
    providerRefundRef: input.refundId,
    amountMinor: 12000,
  });
  // Nothing left pending.
  const again = await fetch(`${gw.url}/sim/idr_psp/payments/${p.providerRef}/refund_succeed`, {
    method: 'POST',
  });
  assert.equal(again.status, 409);
  assert.equal(await again.text(), 'no pending refund');
});

test('cross-wallet QRIS: refund_fail sends a notification the gateway records as failed', async () => {
  const p = await paidPayment(gw, app, 'idr', 8000, '?wallet=dana');
  const input = refundInput(p, 8000);
  assert.equal((await idrPsp.refund!(ctx, input)).status, 'pending');
  const r = await simAction(gw, 'idr', p.providerRef, 'refund_fail');
  assert.deepEqual(r, { gateway_status: 200, gateway_body: '{"acknowledged":true}' });
  const rows = await sql<{ status: string; last_error: string }>(
    gw.databaseUrl,
    'SELECT status, last_error FROM refunds WHERE payment_id = $1 AND provider_ref = $2',
    [p.id, input.refundId],
  );
  assert.deepEqual(rows, [
    { status: 'failed', last_error: "Refund declined by the buyer's wallet" },
  ]);
  const tx = await simTx(p.id);
  assert.equal(tx.transaction_status, 'settlement');
  // The declined amount is refundable again.
  assert.equal((await idrPsp.refund!(ctx, refundInput(p, 8000))).status, 'pending');
});

test('cross-wallet QRIS: online 365 days - 1 s after payment, refused 365 days + 1 s', async () => {
  // The window runs from each payment's settlement: the clock is set from inside's, so the
  // time the second payment takes (seconds on a loaded machine) does not count against it.
  const outside = await paidPayment(gw, app, 'idr', 5000, '?wallet=shopeepay');
  const inside = await paidPayment(gw, app, 'idr', 5000, '?wallet=ovo');
  const settled = (await simTx(inside.id)).settlement_time_ms;
  assert.ok(settled !== null);
  clock.advance(settled + 365 * DAY_MS - 1000 - clock.now());
  assert.equal((await idrPsp.refund!(ctx, refundInput(inside, 5000))).status, 'pending');
  clock.advance(2000);
  const err = await rejection(idrPsp.refund!(ctx, refundInput(outside, 5000)));
  assert.equal(err.kind, 'rejected');
  assert.equal(err.providerText, CROSS_WALLET_EXPIRED);
});

test('virtual account: refunded after payment (no window); refused before', async () => {
  const unpaid = await createPayment(gw, app, 'va', 20000);
  const err = await rejection(idrPsp.refund!(ctx, refundInput(unpaid, 20000)));
  assert.equal(err.kind, 'rejected');
  assert.equal(err.providerText, 'Transaction cannot be refunded: it has not been paid (pending)');
  assert.equal((await simTx(unpaid.id)).transaction_status, 'pending');

  const p = await paidPayment(gw, app, 'va', 20000);
  clock.advance(400 * DAY_MS);
  assert.equal((await idrPsp.refund!(ctx, refundInput(p, 20000))).status, 'succeeded');
  assert.equal((await simTx(p.id)).transaction_status, 'refund');
});

test('the same refund_key returns the original answer; more than the remainder is refused', async () => {
  const p = await paidPayment(gw, app, 'idr', 10000);
  const input = refundInput(p, 6000);
  const first = await idrPsp.refund!(ctx, input);
  const second = await idrPsp.refund!(ctx, input);
  assert.deepEqual(second, first);
  assert.deepEqual(first, { status: 'succeeded', providerRefundRef: input.refundId });
  const tx = await simTx(p.id);
  assert.equal(tx.refunds?.length, 1);
  assert.equal(tx.transaction_status, 'partial_refund');
  // On the wire the replay is the original answer, byte for byte in content.
  const a = await wireRefund(p.id, { refund_key: input.refundId, amount: 6000 });
  const b = await wireRefund(p.id, { refund_key: input.refundId, amount: 6000 });
  assert.deepEqual(a, b);
  assert.equal(a.status, 200);
  assert.equal(a.body.refund_chargeback_id, tx.refunds?.[0]?.refund_chargeback_id);

  const over = await rejection(idrPsp.refund!(ctx, refundInput(p, 4001)));
  assert.equal(over.kind, 'rejected');
  assert.equal(over.providerText, 'Refund amount 4001.00 exceeds the refundable amount 4000.00');
  assert.equal((await idrPsp.refund!(ctx, refundInput(p, 4000))).status, 'succeeded');
  assert.equal((await simTx(p.id)).transaction_status, 'refund');
});

test('the refund answers on the wire (documented shapes)', async () => {
  const p = await paidPayment(gw, app, 'idr', 10000);
  const key = randomBytes(16).toString('hex');
  const done = await wireRefund(p.id, { refund_key: key, amount: 10000, reason: 'r' });
  assert.equal(done.status, 200);
  const { refund_chargeback_id, transaction_time, transaction_id, ...rest } = done.body;
  assert.equal(typeof refund_chargeback_id, 'number');
  assert.match(String(transaction_time), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  assert.equal(typeof transaction_id, 'string');
  assert.deepEqual(rest, {
    status_code: '200',
    status_message: 'Success, refund request is approved',
    order_id: p.id,
    gross_amount: '10000.00',
    currency: 'IDR',
    payment_type: 'qris',
    transaction_status: 'refund',
    refund_amount: '10000.00',
    refund_key: key,
  });

  const cross = await paidPayment(gw, app, 'idr', 7000, '?wallet=ovo');
  const pending = await wireRefund(cross.id, { refund_key: key, amount: 2000 });
  assert.equal(pending.status, 200);
  assert.equal(pending.body.status_code, '201');
  assert.equal(
    pending.body.status_message,
    "Refund request is accepted and is being processed by the buyer's wallet",
  );
  assert.equal(pending.body.refund_status, 'pending');
  assert.equal(pending.body.transaction_status, 'settlement');
  assert.equal(pending.body.refund_amount, '2000.00');

  const refused = await wireRefund(p.id, { refund_key: 'other', amount: 1 });
  assert.equal(refused.status, 412);
  assert.equal(refused.body.status_code, '412');
  assert.equal(
    refused.body.status_message,
    'Refund amount 1.00 exceeds the refundable amount 0.00',
  );

  const invalid = await wireRefund(p.id, { refund_key: 'x', amount: -5 });
  assert.equal(invalid.status, 400);
  assert.deepEqual(invalid.body.validation_messages, [
    'amount must be a positive integer (whole rupiah)',
  ]);
  const unknown = await wireRefund(randomBytes(16).toString('hex'), { refund_key: 'x' });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.status_message, "Transaction doesn't exist.");
  const unauthorized = await wireRefund(p.id, { refund_key: 'x' }, 'Basic eDo=');
  assert.equal(unauthorized.status, 401);
});

test('cancel of a pending payment: the provider cancel notification cancels it at the gateway', async () => {
  const p = await createPayment(gw, app, 'idr', 9000);
  await idrPsp.cancel!(ctx, { paymentId: p.id, providerRef: p.providerRef });
  assert.equal((await simTx(p.id)).transaction_status, 'cancel');
  const status = await eventually(async () => {
    const res = await gw.v1(app, 'GET', `/v1/payments/${p.id}`);
    const s = res.json<{ status: string }>().status;
    return s === 'initiated' ? undefined : s;
  }, 'the cancel notification');
  assert.equal(status, 'canceled');
  const events = await sql<{ event_type: string; outcome: string }>(
    gw.databaseUrl,
    'SELECT event_type, outcome FROM inbound_events WHERE payment_id = $1',
    [p.id],
  );
  assert.deepEqual(events, [{ event_type: 'cancel', outcome: 'finalized_canceled' }]);

  const again = await rejection(idrPsp.cancel!(ctx, { paymentId: p.id, providerRef: null }));
  assert.equal(again.kind, 'rejected');
  assert.equal(
    again.providerText,
    'idr_psp transaction is cancel, not pending: there is nothing to cancel',
  );
});

test('cancel never refunds: a paid transaction is refused and stays settled', async () => {
  const p = await paidPayment(gw, app, 'idr', 9000);
  const err = await rejection(idrPsp.cancel!(ctx, { paymentId: p.id, providerRef: p.providerRef }));
  assert.equal(err.kind, 'rejected');
  assert.equal(
    err.providerText,
    'idr_psp transaction is settlement, not pending: there is nothing to cancel',
  );
  const tx = await simTx(p.id);
  assert.equal(tx.transaction_status, 'settlement');
  assert.equal(tx.refunds, undefined);
});

test('pay takes a wallet only for QRIS, as a wallet name', async () => {
  const va = await createPayment(gw, app, 'va', 1000);
  const r1 = await fetch(`${gw.url}/sim/idr_psp/payments/${va.providerRef}/pay?wallet=ovo`, {
    method: 'POST',
  });
  assert.equal(r1.status, 400);
  assert.equal(await r1.text(), 'wallet applies to QRIS payments only');
  const qr = await createPayment(gw, app, 'idr', 1000);
  const r2 = await fetch(`${gw.url}/sim/idr_psp/payments/${qr.providerRef}/pay?wallet=OVO!`, {
    method: 'POST',
  });
  assert.equal(r2.status, 400);
  assert.equal(await r2.text(), 'wallet must be a wallet name such as gopay or ovo');
  // The checkout page's form may carry it as a form field.
  const r3 = await fetch(`${gw.url}/sim/idr_psp/payments/${qr.providerRef}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'action=pay&wallet=linkaja',
  });
  assert.equal(r3.status, 200);
  assert.equal((await simTx(qr.id)).wallet, 'linkaja');
});
