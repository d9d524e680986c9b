/**
 * A wallet_psp day larger than one transaction search may answer: the provider refuses a
 * result set over its limit (RESULTSET_TOO_LARGE; the simulator's is 10,000), and the gateway
 * searches the day again in halves until every window fits, then pages each (500 a page).
 * The provider's orders are written straight into the simulator's store (10,200 captures
 * of charges made outside the gateway), so every one is a charge the gateway never heard of.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { simulatorEndpoint } from '../../helpers/drivers/sim.js';
import { WP_MAX_RESULT_SET } from '../../helpers/drivers/wallet_psp.js';
import { count, sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { onlyCurrency, reconcile } from '../../helpers/reconciliation.js';

let gw: TestGateway;
const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
const N = WP_MAX_RESULT_SET + 200;

before(async () => {
  gw = await startTestGateway({ RECONCILIATION_DAILY: 'false' });
  const clientId = simulatorEndpoint('wallet_psp', gw.config.masterKey, '').credentials.clientId;
  await sql(
    gw.databaseUrl,
    `INSERT INTO paygate_sim.sim_objects (provider, kind, id, data)
     SELECT 'wallet_psp', 'order', 'ORDER' || g, jsonb_build_object(
       'clientId', $1::text, 'approval', 'pay', 'captureRequestId', null,
       'actionInFlight', false, 'captureEventPending', false,
       'order', jsonb_build_object('id', 'ORDER' || g, 'status', 'COMPLETED', 'intent', 'CAPTURE',
         'create_time', t, 'update_time', t,
         'purchase_units', jsonb_build_array(jsonb_build_object(
           'reference_id', 'default', 'custom_id', 'outside-' || g,
           'amount', jsonb_build_object('currency_code', 'EUR', 'value', '10.00'),
           'payments', jsonb_build_object('captures', jsonb_build_array(jsonb_build_object(
             'id', 'CAPTURE' || g, 'status', 'COMPLETED', 'custom_id', 'outside-' || g,
             'amount', jsonb_build_object('currency_code', 'EUR', 'value', '10.00'),
             'create_time', t, 'update_time', t)))))))
     FROM generate_series(1, $2::int) g,
       LATERAL (SELECT to_char($3::date + (g * 8 || ' seconds')::interval,
                               'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS t) x`,
    [clientId, N, day],
  );
});
after(async () => {
  await gw?.stop();
});

test('a day over the search limit is searched in halves and read whole', async () => {
  const r = await reconcile(gw, 'wallet_psp', day);
  assert.equal(r.status, 'mismatched');
  assert.equal(r.items.length, N);
  assert.ok(r.items.every((i) => i.kind === 'missing_in_gateway' && i.payment_id === null));
  assert.equal(new Set(r.items.map((i) => i.provider_ref)).size, N);
  assert.equal(onlyCurrency(r, 'EUR').provider_net_minor, N * 1000);
  assert.equal(await count(gw.databaseUrl, `payment_exceptions WHERE kind = 'reconciliation'`), N);
});
