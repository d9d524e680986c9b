/**
 * The daily reconciliation job (docs/operations.md#reconciliation) and concurrent runs: three
 * instances' ticks at once reconcile each provider's previous day once (a claim row decides),
 * idr_psp only once a file of that day was uploaded; three operators running one day at the
 * same moment record each item's exception once.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { reconciliationDeps } from '../../../src/gateway.js';
import { dailyReconciliation } from '../../helpers/jobs.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { count, sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { createPayment, simAction } from '../../helpers/payments.js';
import { exceptionsOfKind, type Reconciliation } from '../../helpers/reconciliation.js';

let gw: TestGateway;
let shop: AppWithSecrets;
const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

before(async () => {
  // The job is driven by the test, as three instances' ticks would drive it.
  gw = await startTestGateway({ RECONCILIATION_DAILY: 'false' });
  shop = await gw.createApp({ name: 'Daily shop' });
});
after(async () => {
  await gw?.stop();
});

const tick = () => dailyReconciliation(reconciliationDeps(gw.running.gw), 0);

test('three ticks at once: one daily run per provider with a report API', async () => {
  const runs = await Promise.all([tick(), tick(), tick()]);
  assert.equal(
    runs.reduce((a, b) => a + b, 0),
    2,
  );
  const rows = await sql<{ provider: string; day: string; trigger: string; status: string }>(
    gw.databaseUrl,
    `SELECT provider, to_char(day, 'YYYY-MM-DD') AS day, trigger, status FROM reconciliation_runs
     ORDER BY provider`,
  );
  assert.deepEqual(rows, [
    { provider: 'card_psp', day: yesterday, trigger: 'daily', status: 'matched' },
    { provider: 'wallet_psp', day: yesterday, trigger: 'daily', status: 'matched' },
  ]);
  // Done for the day: a later tick runs nothing.
  assert.equal(await tick(), 0);
});

test('idr_psp joins once a settlement file of the day is uploaded', async () => {
  const file = await (
    await fetch(`${gw.url}/sim/idr_psp/reports/settlement?date=${yesterday}`)
  ).text();
  const up = await fetch(
    `${gw.url}/admin/reconciliation/imports?provider=idr_psp&mode=test&date=${yesterday}`,
    { method: 'POST', headers: { authorization: `Bearer ${gw.config.adminToken}` }, body: file },
  );
  assert.equal(up.status, 201, await up.text());
  assert.equal(await tick(), 1);
  assert.equal(await count(gw.databaseUrl, `reconciliation_runs WHERE provider = 'idr_psp'`), 1);
  assert.equal(await tick(), 0);
});

test('an abandoned claim is taken over after its lease', async () => {
  await sql(
    gw.databaseUrl,
    `UPDATE reconciliation_daily SET done_at = NULL, claim_expires_at = now() - interval '1 second'
     WHERE provider = 'wallet_psp'`,
  );
  assert.equal(await tick(), 1);
  assert.equal(await count(gw.databaseUrl, `reconciliation_runs WHERE provider = 'wallet_psp'`), 2);
});

test('three operators run the same day at once: each item is one exception', async () => {
  const p = await createPayment(gw, shop, 'wallet', 2000, {
    test_scenario: 'reconciliation_drift',
  });
  assert.equal((await simAction(gw, 'wallet', p.providerRef, 'pay')).gateway_status, 200);
  const today = new Date().toISOString().slice(0, 10);
  const results = await Promise.all(
    [1, 2, 3].map(async () => {
      const res = await gw.admin('POST', '/admin/reconciliation/runs', {
        provider: 'wallet_psp',
        date: today,
        mode: 'test',
      });
      assert.equal(res.status, 200, res.text);
      return res.json<Reconciliation>();
    }),
  );
  for (const r of results) {
    assert.deepEqual(r.items.map((i) => i.kind).sort(), ['amount_mismatch', 'missing_in_gateway']);
    assert.ok(r.items.every((i) => i.exception_id !== null));
  }
  // Every run names the same two exceptions, and there are no others.
  const ids = new Set(results.flatMap((r) => r.items.map((i) => i.exception_id)));
  assert.equal(ids.size, 2);
  assert.equal((await exceptionsOfKind(gw, 'reconciliation')).length, 2);
});
