/**
 * Reconciliation against card_psp over real HTTP (docs/api.md#reconciliation): the gateway
 * reads the simulator's Polar-shaped order and refund lists (which Polar's own SDK parses),
 * a clean day matches (a refund made at the provider included), reconciliation_drift's
 * differences become exceptions, and a charge whose notification was lost clears once the
 * late event is applied. The steps build on one day of one database, in order.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Polar } from '@polar-sh/sdk';
import { simulatorEndpoint } from '../../helpers/drivers/sim.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertStatus } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { createPayment, paidPayment, silentAction, simAction } from '../../helpers/payments.js';
import { exceptionsOfKind, onlyCurrency, reconcile, kinds } from '../../helpers/reconciliation.js';

let gw: TestGateway;
let shop: AppWithSecrets;

before(async () => {
  gw = await startTestGateway();
  shop = await gw.createApp({ name: 'Card shop' });
});
after(async () => {
  await gw?.stop();
});

const run = () => reconcile(gw, 'card_psp');
test('a clean day: a charge and its refund made at the provider match', async () => {
  const p = await paidPayment(gw, shop, 'card', 2500);
  assert.equal((await simAction(gw, 'card', p.providerRef, 'refund')).gateway_status, 200);
  await paidPayment(gw, shop, 'card', 1200);
  const r = await run();
  assert.equal(r.status, 'matched', JSON.stringify(r.items));
  assert.equal(r.matched_count, 3);
  // The simulated merchant of record keeps no platform fee.
  assert.deepEqual(onlyCurrency(r, 'USD'), {
    gateway_net_minor: 1200,
    provider_net_minor: 1200,
    fees_minor: 0,
  });
  assert.deepEqual(r.items, []);
});

test("Polar's own SDK reads the simulator's order and refund lists", async () => {
  const endpoint = simulatorEndpoint('card_psp', gw.config.masterKey, '');
  const polar = new Polar({
    accessToken: endpoint.credentials.accessToken ?? '',
    serverURL: `${gw.url}/sim/card_psp`,
    retryConfig: { strategy: 'none' },
  });
  const orders = await polar.orders.list({ limit: 100, sorting: ['-created_at'] });
  assert.equal(orders.result.items.length, 2);
  assert.deepEqual(orders.result.items.map((o) => o.totalAmount).sort(), [1200, 2500]);
  assert.equal(orders.result.pagination.totalCount, 2);
  const refunds = await polar.refunds.list({ limit: 100 });
  assert.equal(refunds.result.items.length, 1);
  assert.equal(refunds.result.items[0]?.amount, 2500);
  assert.equal(refunds.result.items[0]?.status, 'succeeded');
});

test('reconciliation_drift: changed amount, unknown charge, dropped refund; each an exception', async () => {
  const p = await createPayment(gw, shop, 'card', 3000, { test_scenario: 'reconciliation_drift' });
  assert.equal((await simAction(gw, 'card', p.providerRef, 'pay')).gateway_status, 200);
  assert.equal((await simAction(gw, 'card', p.providerRef, 'refund')).gateway_status, 200);
  const r = await run();
  assert.equal(r.status, 'mismatched');
  assert.deepEqual(kinds(r.items), [
    'amount_mismatch:charge',
    'missing_at_provider:refund',
    'missing_in_gateway:charge',
  ]);
  const mismatch = r.items.find((i) => i.kind === 'amount_mismatch');
  assert.equal(mismatch?.payment_id, p.id);
  assert.equal(mismatch?.gateway_amount_minor, 3000);
  assert.equal(mismatch?.provider_amount_minor, 3100);
  assert.equal(r.items.find((i) => i.kind === 'missing_in_gateway')?.payment_id, null);
  assert.equal(r.items.find((i) => i.kind === 'missing_at_provider')?.gateway_amount_minor, -3000);
  const exceptions = await exceptionsOfKind(gw, 'reconciliation');
  assert.deepEqual(exceptions.map((e) => e.id).sort(), r.items.map((i) => i.exception_id).sort());
  const unknown = exceptions.find((e) => e.payment_id === null);
  assert.equal(unknown?.app_id, null);
  assert.equal(unknown?.provider, 'card_psp');
  assert.equal(unknown?.amount_minor, 3000);
});

test('a lost notification: missing in the gateway until the late event, then matched', async () => {
  const p = await createPayment(gw, shop, 'card', 1800, { test_scenario: 'lost_webhook' });
  await silentAction(gw, 'card', p.providerRef, 'pay');
  const r = await run();
  const item = r.items.find((i) => i.payment_id === p.id);
  assert.equal(item?.kind, 'missing_in_gateway');
  assert.equal(item?.provider_amount_minor, 1800);
  const sync = await gw.admin('POST', `/admin/payments/${p.id}/sync`);
  assertStatus(sync, 200);
  assert.equal(sync.json<{ status: string }>().status, 'succeeded');
  const after = await run();
  assert.equal(
    after.items.find((i) => i.payment_id === p.id),
    undefined,
  );
  assert.equal(after.items.length, 3);
  const ex = (await exceptionsOfKind(gw, 'reconciliation')).find(
    (e) => e.id === item?.exception_id,
  );
  assert.equal(ex?.resolution, 'resolved');
});
