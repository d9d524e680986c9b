import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { newId } from '../../helpers/state.js';
import { retryUnansweredRefunds } from '../../helpers/jobs.js';
import { eventually } from '../../helpers/eventually.js';
import { startWithReceiver, type GatewayWithReceiver } from '../../helpers/gateway.js';
import { paidPayment } from '../../helpers/payments.js';

// A refund whose provider call never answered stays initiated; after five quiet minutes it
// is sent again with the same refund id and settled by the provider's answer.

let setup: GatewayWithReceiver;
before(async () => {
  setup = await startWithReceiver({}, { name: 'Refund retry' });
});
after(() => setup?.stop());

async function stuckRefund(paymentId: string, minutesAgo: number): Promise<string> {
  const id = newId();
  const { gw, app } = setup;
  await gw.running.gw.pool.query(
    `INSERT INTO refunds (id, payment_id, app_id, mode, status, amount_minor, currency, provider, reason, updated_at)
     SELECT $1, p.id, $2, p.mode, 'initiated', p.amount_minor, p.currency, p.provider, 'timed out',
       now() - $3 * interval '1 minute'
     FROM payments p WHERE p.id = $4`,
    [id, app.app_id, minutesAgo, paymentId],
  );
  return id;
}

function deps() {
  const gw = setup.gw.running.gw;
  return {
    pool: gw.pool,
    durablePool: gw.durablePool,
    providers: gw.providers,
    providerTimeoutMs: 5000,
    log: gw.log,
    now: () => gw.now(),
  };
}

test('an unanswered refund is resent after five minutes and settled once; a recent one is left alone', async () => {
  const { gw, app, receiver } = setup;
  const old = await paidPayment(gw, app, 'idr', 12000);
  const recent = await paidPayment(gw, app, 'idr', 13000);
  const oldRefund = await stuckRefund(old.id, 6);
  const recentRefund = await stuckRefund(recent.id, 1);

  assert.equal(await retryUnansweredRefunds(deps()), 1);
  const rows = await gw.running.gw.pool.query<{
    id: string;
    status: string;
    provider_ref: string | null;
  }>(`SELECT id, status, provider_ref FROM refunds WHERE id = ANY($1) ORDER BY amount_minor`, [
    [oldRefund, recentRefund],
  ]);
  assert.deepEqual(
    rows.rows.map((r) => [r.id, r.status, r.provider_ref !== null]),
    [
      [oldRefund, 'succeeded', true],
      [recentRefund, 'initiated', false],
    ],
  );
  const got = await eventually(async () =>
    receiver.received.find((r) => JSON.parse(r.body).refund_id === oldRefund),
  );
  assert.equal(JSON.parse(got.body).event, 'refund.succeeded');
  // Claimed and settled: a second round finds nothing due.
  assert.equal(await retryUnansweredRefunds(deps()), 0);
  // The provider refunded the transaction exactly once.
  const sim = await gw.running.gw.pool.query<{ refunds: unknown[] | null }>(
    `SELECT data->'refunds' AS refunds FROM paygate_sim.sim_objects WHERE provider = 'idr_psp' AND kind = 'transaction' AND data->>'order_id' = $1`,
    [old.id],
  );
  assert.equal(sim.rows[0]?.refunds?.length, 1);
});
