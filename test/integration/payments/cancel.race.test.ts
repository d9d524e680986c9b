/**
 * An operator's cancel racing the buyer's payment (idr_psp): whichever wins at the provider,
 * the gateway's records afterwards are the provider's. Money the provider moved (a charge,
 * then the cancel's refund) is on record; a voided transaction is canceled with no refund.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import type { SimTransaction } from '../../helpers/drivers/idr_psp.js';
import { eventually } from '../../helpers/eventually.js';
import { sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { createPayment } from '../../helpers/payments.js';

const ROUNDS = 48;
const AT_ONCE = 8;
const AMOUNT = 10000;

let gw: TestGateway;
let app: AppWithSecrets;

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp();
});
after(async () => {
  await gw?.stop();
});

async function simTx(orderId: string): Promise<SimTransaction> {
  const rows = await sql<{ data: SimTransaction }>(
    gw.databaseUrl,
    `SELECT data FROM paygate_sim.sim_objects WHERE provider = 'idr_psp' AND kind = 'transaction' AND id = $1`,
    [orderId],
  );
  assert.ok(rows[0], `simulator transaction ${orderId}`);
  return rows[0].data;
}

async function gatewayState(paymentId: string) {
  const [payment] = await sql<{ status: string }>(
    gw.databaseUrl,
    'SELECT status FROM payments WHERE id = $1',
    [paymentId],
  );
  const refunds = await sql<{ status: string; amount_minor: number; provider_ref: string | null }>(
    gw.databaseUrl,
    'SELECT status, amount_minor, provider_ref FROM refunds WHERE payment_id = $1',
    [paymentId],
  );
  const failedEvents = await sql(
    gw.databaseUrl,
    `SELECT 1 FROM outbound_events WHERE payment_id = $1 AND event_type = 'refund.failed'`,
    [paymentId],
  );
  return { status: payment?.status, refunds, failedEvents: failedEvents.length };
}

async function round(): Promise<'voided' | 'refunded'> {
  const p = await createPayment(gw, app, 'idr', AMOUNT);
  const [cancel, pay] = await Promise.all([
    gw.admin('POST', `/admin/payments/${p.id}/cancel`),
    fetch(`${gw.url}/sim/idr_psp/payments/${p.providerRef}/pay`, { method: 'POST' }),
  ]);
  const payText = await pay.text();
  assert.ok(
    cancel.status === 200 || cancel.status === 201,
    `cancel ${cancel.status} ${cancel.text}`,
  );

  const sim = await simTx(p.id);
  const simRefunds = (sim.refunds ?? []).filter((r) => r.status === 'succeeded');
  if (cancel.status === 200) {
    // The void won: the buyer could not pay, nothing moved.
    assert.equal(cancel.json<{ status: string }>().status, 'canceled');
    assert.equal(sim.transaction_status, 'cancel');
    assert.notEqual(pay.status, 200, `the buyer paid a voided transaction: ${payText}`);
    const g = await gatewayState(p.id);
    assert.equal(g.status, 'canceled');
    assert.deepEqual(g.refunds, []);
    return 'voided';
  }
  // The buyer won: charged, then refunded in full, and the gateway has both on record.
  assert.equal(pay.status, 200, payText);
  const refund = cancel.json<{ status: string; amount_minor: number; refund_id: string }>();
  assert.equal(refund.status, 'succeeded');
  assert.equal(refund.amount_minor, AMOUNT);
  assert.equal(sim.transaction_status, 'refund');
  assert.equal(simRefunds.length, 1);
  assert.equal(simRefunds[0]?.amount, AMOUNT);
  const g = await eventually(async () => {
    const s = await gatewayState(p.id);
    return s.status === 'succeeded' ? s : undefined;
  }, `payment ${p.id} succeeded`);
  assert.deepEqual(g.refunds, [
    { status: 'succeeded', amount_minor: AMOUNT, provider_ref: simRefunds[0]?.refund_key },
  ]);
  assert.equal(g.failedEvents, 0);
  return 'refunded';
}

test(`admin cancel racing the buyer's payment, ${ROUNDS} rounds: records equal the provider's`, async () => {
  const outcomes: string[] = [];
  for (let i = 0; i < ROUNDS; i += AT_ONCE) {
    outcomes.push(...(await Promise.all(Array.from({ length: AT_ONCE }, () => round()))));
  }
  assert.equal(outcomes.length, ROUNDS);
});

test('cancel of a payment the buyer already paid, before its webhook arrived, is its full refund', async () => {
  const p = await createPayment(gw, app, 'idr', AMOUNT);
  // The provider settles it but the notification is lost: the gateway still says initiated.
  await sql(
    gw.databaseUrl,
    `UPDATE paygate_sim.sim_objects SET data = data || '{"transaction_status":"settlement"}'::jsonb
     WHERE provider = 'idr_psp' AND kind = 'transaction' AND id = $1`,
    [p.id],
  );
  const res = await gw.admin('POST', `/admin/payments/${p.id}/cancel`);
  assert.equal(res.status, 201, res.text);
  assert.equal(res.json<{ status: string }>().status, 'succeeded');
  const g = await gatewayState(p.id);
  assert.equal(g.status, 'succeeded');
  assert.equal(g.refunds.length, 1);
  assert.equal(g.refunds[0]?.status, 'succeeded');
  const events = await sql<{ event_type: string }>(
    gw.databaseUrl,
    'SELECT event_type FROM outbound_events WHERE payment_id = $1 ORDER BY created_at',
    [p.id],
  );
  assert.deepEqual(
    events.map((e) => e.event_type),
    ['payment.succeeded', 'refund.succeeded'],
  );
});
