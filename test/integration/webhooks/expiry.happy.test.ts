import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { reconcileDue } from '../../helpers/jobs.js';
import { expireDueIdrTransactions } from '../../helpers/drivers/idr_psp.js';
import { withClockAhead } from '../../helpers/clock.js';
import { eventually } from '../../helpers/eventually.js';
import {
  startWithReceiver,
  type GatewayWithReceiver,
  type TestGateway,
} from '../../helpers/gateway.js';
import { type Receiver } from '../../helpers/receiver.js';

// docs/api.md#payment-states, #limits: an unpaid QR expires at the provider after 20 minutes and is
// recorded as failed; the reconciler finalizes it even when the provider's webhook is lost.

let gw: TestGateway;
let receiver: Receiver;
let app: AppWithSecrets;
const MINUTE = 60_000;

let setup: GatewayWithReceiver;
before(async () => {
  setup = await startWithReceiver({ IDR_PSP_DIRECT_QR: 'true' }, {});
  ({ gw, receiver, app } = setup);
});
after(() => setup?.stop());

async function qrPayment(): Promise<string> {
  const res = await gw.v1(app, 'POST', '/v1/payments', {
    external_user_id: 'pos-1',
    email: 'pos@example.com',
    amount_minor: 25000,
    currency: 'IDR',
    method: 'qris',
    return_url: 'https://pos.example/',
  });
  assert.equal(res.status, 201, res.text);
  return res.json<{ payment_id: string }>().payment_id;
}

const getPayment = async (id: string) =>
  (await gw.v1(app, 'GET', `/v1/payments/${id}`)).json<{ status: string; last_error: string }>();

test('an unpaid QR is expired by the provider at 20 minutes and recorded as failed', async () => {
  const clock = gw.simClock;
  clock.reset();
  const id = await qrPayment();
  clock.advance(20 * MINUTE - 1000);
  assert.equal(await expireDueIdrTransactions(gw.running.gw, clock), 0);
  assert.equal((await getPayment(id)).status, 'initiated');
  clock.advance(2000);
  assert.equal(await expireDueIdrTransactions(gw.running.gw, clock), 1);
  const p = await getPayment(id);
  assert.equal(p.status, 'failed');
  assert.notEqual(p.last_error, '');
  const got = await eventually(async () =>
    receiver.received.find((r) => JSON.parse(r.body).payment_id === id),
  );
  assert.equal(JSON.parse(got.body).event, 'payment.failed');
  clock.reset();
});

test('a lost expiry webhook: the reconciler asks the provider after the deadline and fails the payment', async () => {
  const clock = gw.simClock;
  clock.reset();
  const id = await qrPayment();
  const pool = gw.running.gw.pool;
  const deadline = await pool.query<{ provider_deadline: Date }>(
    `SELECT provider_deadline FROM payments WHERE id = $1`,
    [id],
  );
  const expiresIn = deadline.rows[0]!.provider_deadline.getTime() - Date.now();
  assert.ok(expiresIn > 19 * MINUTE && expiresIn <= 20 * MINUTE, `deadline ${expiresIn} ms away`);

  // Before the deadline the reconciler leaves it alone.
  assert.equal(await reconcileDue(gw.running.gw), 0);
  // The provider expires it, but its notification never arrives: the simulated transaction
  // is moved to expire directly (the sweeper only notifies for pending ones, so no webhook).
  const moved = await pool.query(
    `UPDATE paygate_sim.sim_objects SET data = data || '{"transaction_status":"expire","status_message":"transaction is expired"}'
     WHERE provider = 'idr_psp' AND kind = 'transaction' AND data->>'order_id' = $1`,
    [id],
  );
  assert.equal(moved.rowCount, 1);
  // Past the deadline on the gateway's clock: time moves, the row is not rewritten.
  assert.equal(
    await withClockAhead(gw.running.gw, expiresIn + 1000, () => reconcileDue(gw.running.gw)),
    1,
  );
  const p = await getPayment(id);
  assert.equal(p.status, 'failed');
  assert.equal(p.last_error, 'transaction is expired');
  const events = await pool.query(`SELECT 1 FROM outbound_events WHERE payment_id = $1`, [id]);
  assert.equal(events.rowCount, 1);
  // Once terminal it is never asked about again.
  assert.equal(await reconcileDue(gw.running.gw), 0);
  clock.reset();
});
