/**
 * A Snap payment whose buyer has not chosen a channel yet: Midtrans has no transaction for
 * it, and its status API answers 404 by order_id. The gateway registered it (it holds the
 * Snap token) and the buyer may still pay, so that 404 never fails it while the page is open;
 * after the page has lapsed nobody can pay it and it is failed. Admin cancel cancels it here
 * only, and a charge made on the page afterwards is refunded as a paid-after-cancel exception.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { reconcileDue } from '../../helpers/jobs.js';
import { sql } from '../../helpers/core.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { createPayment, simAction, type CreatedPayment } from '../../helpers/payments.js';
import { withClockAhead } from '../../helpers/clock.js';

let gw: TestGateway;
let app: AppWithSecrets;

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp();
});
after(async () => {
  await gw?.stop();
});

/**
 * A QR payment whose Snap page has not been used: the simulator makes a one-channel Snap
 * order's transaction at once (a listed deviation), so the order is put back to unchosen.
 */
async function unchosenPayment(): Promise<CreatedPayment> {
  const p = await createPayment(gw, app, 'idr', 20000);
  const moved = await sql(
    gw.databaseUrl,
    `UPDATE paygate_sim.sim_objects SET data = data || '{"chosen": false}'::jsonb
      WHERE provider = 'idr_psp' AND kind = 'transaction' AND id = $1 RETURNING id`,
    [p.id],
  );
  assert.equal(moved.length, 1);
  const status = await fetch(`${gw.url}/sim/idr_psp/v2/${p.id}/status`, {
    headers: { authorization: serverAuth() },
  });
  assert.equal(status.status, 404, 'the provider has no transaction for it');
  return p;
}

function serverAuth(): string {
  const endpoint = gw.running.gw.providers.endpoint('idr_psp', 'test');
  const key = endpoint?.credentials.serverKey ?? '';
  return `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
}

async function payment(id: string) {
  const [row] = await sql<{ status: string; last_error: string }>(
    gw.databaseUrl,
    'SELECT status, last_error FROM payments WHERE id = $1',
    [id],
  );
  assert.ok(row);
  return row;
}

/**
 * The reconciler, run with the gateway's clock `aheadMs` ahead (the reconciler's claim and the
 * adapter's page lapse both read it): a QR payment's deadline is its registration + 20 minutes.
 */
const reconcileAhead = (aheadMs: number) =>
  withClockAhead(gw.running.gw, aheadMs, () => reconcileDue(gw.running.gw));

test('the reconciler leaves a registered Snap payment with no channel chosen initiated', async () => {
  const p = await unchosenPayment();
  // Past its deadline (20 minutes), inside the page's 20 minutes plus 15 of grace.
  assert.ok((await reconcileAhead(21 * 60_000)) >= 1);
  assert.deepEqual(await payment(p.id), { status: 'initiated', last_error: '' });
  const [check] = await sql<{ last_check_learned: string }>(
    gw.databaseUrl,
    'SELECT last_check_learned FROM payments WHERE id = $1',
    [p.id],
  );
  assert.equal(check?.last_check_learned, 'pending');
  // The buyer can still choose and pay, and the payment succeeds.
  const paid = await simAction(gw, 'idr', p.providerRef, 'pay');
  assert.equal(paid.gateway_status, 200, paid.gateway_body);
  assert.equal((await payment(p.id)).status, 'succeeded');
});

test('operator sync of a Snap payment with no channel chosen: still initiated', async () => {
  const p = await unchosenPayment();
  const res = await gw.admin('POST', `/admin/payments/${p.id}/sync`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json<{ status: string }>().status, 'initiated');
  assert.equal((await payment(p.id)).status, 'initiated');
});

test('after its page has lapsed, nobody can pay it: the reconciler fails it', async () => {
  const p = await unchosenPayment();
  // QR pages last 20 minutes, plus the 15 minutes allowed for a late registration and skew.
  assert.ok((await reconcileAhead(35 * 60_000 + 1000)) >= 1);
  assert.deepEqual(await payment(p.id), {
    status: 'failed',
    last_error: "payment page expired without a payment method chosen (Transaction doesn't exist.)",
  });
  const events = await sql<{ event_type: string }>(
    gw.databaseUrl,
    'SELECT event_type FROM outbound_events WHERE payment_id = $1',
    [p.id],
  );
  assert.deepEqual(
    events.map((e) => e.event_type),
    ['payment.failed'],
  );
});

test('admin cancel before a channel is chosen cancels here; a later charge is refunded', async () => {
  const p = await unchosenPayment();
  const res = await gw.admin('POST', `/admin/payments/${p.id}/cancel`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json<{ status: string }>().status, 'canceled');
  // The provider's page could not be closed: the buyer pays on it anyway.
  const paid = await simAction(gw, 'idr', p.providerRef, 'pay');
  assert.equal(paid.gateway_status, 200, paid.gateway_body);
  assert.equal((await payment(p.id)).status, 'canceled');
  const list = await eventually(async () => {
    const r = await gw.admin('GET', '/admin/exceptions');
    const found = r
      .json<{ exceptions: { payment_id: string; kind: string; resolution: string }[] }>()
      .exceptions.filter((e) => e.payment_id === p.id);
    return found.length > 0 ? found : undefined;
  }, 'the paid-after-cancel exception');
  assert.deepEqual(
    list.map((e) => [e.kind, e.resolution]),
    [['paid_after_cancel', 'refunded']],
  );
});
