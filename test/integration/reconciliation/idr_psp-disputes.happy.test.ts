/**
 * idr_psp chargebacks in reconciliation (docs/api.md#reconciliation,
 * docs/providers/idr_psp.md#settlement-report-file), over real HTTP: the simulator's
 * settlement file lists each chargeback as a row of type chargeback (named by Midtrans's
 * refund_chargeback_id), the gateway reads it as a dispute movement and pairs it with the
 * ledger's dispute entry; reconciliation_drift reports a chargeback larger than it was.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertStatus } from '../../helpers/core.js';
import { onlyDispute } from '../../helpers/disputes.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { createPayment, paidPayment, simAction } from '../../helpers/payments.js';
import { onlyCurrency, reconcile, today } from '../../helpers/reconciliation.js';

let gw: TestGateway;
let shop: AppWithSecrets;

before(async () => {
  gw = await startTestGateway();
  shop = await gw.createApp({ name: 'Charged-back shop' });
});
after(async () => {
  await gw?.stop();
});

async function chargeback(ref: string, amountMinor?: number) {
  const res = await fetch(`${gw.url}/sim/idr_psp/payments/${ref}/chargeback`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: amountMinor === undefined ? '' : JSON.stringify({ amount_minor: amountMinor }),
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  assert.equal((JSON.parse(text) as { gateway_status: number }).gateway_status, 200, text);
}

async function uploadSimFile() {
  const file = await (
    await fetch(`${gw.url}/sim/idr_psp/reports/settlement?date=${today()}`)
  ).text();
  const res = await fetch(
    `${gw.url}/admin/reconciliation/imports?provider=idr_psp&mode=test&date=${today()}`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.config.adminToken}`, 'content-type': 'text/csv' },
      body: file,
    },
  );
  assert.equal(res.status, 201, await res.text());
  return file;
}

test('a clean day: a partial and a full chargeback match the ledger', async () => {
  const a = await paidPayment(gw, shop, 'idr', 50_000);
  await chargeback(a.providerRef, 20_000);
  const b = await paidPayment(gw, shop, 'va', 120_000);
  await chargeback(b.providerRef);
  assert.equal((await onlyDispute(gw, b.id)).status, 'lost');
  const file = await uploadSimFile();
  const rows = file.split('\r\n').filter((l) => l.split(',')[3] === 'chargeback');
  assert.equal(rows.length, 2);
  assert.match(rows[0] ?? '', new RegExp(`^${a.id},[^,]+,\\d+,chargeback,qris,settlement,`));
  assert.ok(rows.some((r) => r.endsWith(',IDR,20000.00,0.00,-20000')));
  assert.ok(rows.some((r) => r.endsWith(',IDR,120000.00,0.00,-120000')));

  const r = await reconcile(gw, 'idr_psp');
  assert.equal(r.status, 'matched', JSON.stringify(r.items));
  assert.equal(r.matched_count, 2 + 2);
  const net = 50_000 + 120_000 - 20_000 - 120_000;
  assert.deepEqual(onlyCurrency(r, 'IDR'), {
    gateway_net_minor: net,
    provider_net_minor: net,
    // QRIS 0.7% of 50,000 and a flat 4,000 for the virtual account; none on chargebacks.
    fees_minor: 350 + 4000,
  });
});

test('reconciliation_drift: a chargeback reported larger is an amount_mismatch of the dispute', async () => {
  const p = await createPayment(gw, shop, 'idr', 30_000, { test_scenario: 'reconciliation_drift' });
  assert.equal((await simAction(gw, 'idr', p.providerRef, 'pay')).gateway_status, 200);
  await chargeback(p.providerRef);
  await uploadSimFile();
  const r = await reconcile(gw, 'idr_psp');
  assert.equal(r.status, 'mismatched');
  const mine = r.items
    .filter((i) => i.payment_id === p.id || i.payment_id === null)
    .map((i) => [i.kind, i.movement, i.gateway_amount_minor, i.provider_amount_minor]);
  assert.deepEqual(
    mine.sort((x, y) => String(x).localeCompare(String(y))),
    [
      ['amount_mismatch', 'charge', 30_000, 30_100],
      ['amount_mismatch', 'dispute', -30_000, -30_100],
      ['missing_in_gateway', 'charge', null, 30_000],
    ],
  );
  assertStatus(
    await gw.admin('GET', `/admin/reconciliation?provider=idr_psp&date=${today()}&mode=test`),
    200,
  );
});
