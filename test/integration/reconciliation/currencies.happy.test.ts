/**
 * A provider's day in several currencies (docs/api.md#reconciliation): wallet_psp (PayPal)
 * moves EUR and USD, and the day's sums come per currency in by_currency, in the answer of
 * the run, of GET /admin/reconciliation and of the day's CSV export, never added across
 * currencies.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertStatus, sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { createPayment, paidPayment, simAction } from '../../helpers/payments.js';
import { reconcile, today } from '../../helpers/reconciliation.js';

let gw: TestGateway;
let shop: AppWithSecrets;

before(async () => {
  gw = await startTestGateway();
  shop = await gw.createApp({ name: 'Two-currency shop' });
});
after(async () => {
  await gw?.stop();
});

test('a wallet_psp day of EUR and USD: the sums are per currency', async () => {
  await paidPayment(gw, shop, 'wallet', 10_000);
  const usd = await paidPayment(gw, shop, 'walletUsd', 2500);
  const refund = await gw.v1(shop, 'POST', '/v1/refunds', {
    payment_id: usd.id,
    amount_minor: 500,
  });
  assert.equal(refund.status, 201, refund.text);

  const r = await reconcile(gw, 'wallet_psp');
  assert.equal(r.status, 'matched', JSON.stringify(r.items));
  assert.equal(r.matched_count, 3);
  const expected = [
    // The simulator's PayPal fee, 3.49% plus 0.49: 349 + 49 on 100.00 EUR, 87 + 49 on 25.00 USD.
    { currency: 'EUR', gateway_net_minor: 10_000, provider_net_minor: 10_000, fees_minor: 398 },
    { currency: 'USD', gateway_net_minor: 2000, provider_net_minor: 2000, fees_minor: 136 },
  ];
  assert.deepEqual(r.by_currency, expected);
  // Two currencies: the contract's top-level sums are null, never EUR and USD added.
  assert.equal(r.gateway_net_minor, null);
  assert.equal(r.provider_net_minor, null);
  assert.equal(r.fees_minor, null);

  const read = await gw.admin(
    'GET',
    `/admin/reconciliation?provider=wallet_psp&date=${today()}&mode=test`,
  );
  assertStatus(read, 200);
  assert.deepEqual(read.json<{ by_currency: unknown }>().by_currency, expected);
});

test('a drifted USD charge is an item in USD; the EUR figures stay apart', async () => {
  const p = await createPayment(gw, shop, 'walletUsd', 4000, {
    test_scenario: 'reconciliation_drift',
  });
  assert.equal((await simAction(gw, 'walletUsd', p.providerRef, 'pay')).gateway_status, 200);
  const r = await reconcile(gw, 'wallet_psp');
  assert.equal(r.status, 'mismatched');
  // The changed amount (40.00 at the gateway, 41.00 at PayPal) and the unknown charge.
  assert.deepEqual(r.items.map((i) => `${i.kind}:${i.currency}`).sort(), [
    'amount_mismatch:USD',
    'missing_in_gateway:USD',
  ]);
  const eur = r.by_currency.find((c) => c.currency === 'EUR');
  assert.deepEqual(eur, {
    currency: 'EUR',
    gateway_net_minor: 10_000,
    provider_net_minor: 10_000,
    fees_minor: 398,
  });
  const usdSums = r.by_currency.find((c) => c.currency === 'USD');
  assert.equal(usdSums?.gateway_net_minor, 2000 + 4000);
  assert.equal(usdSums?.provider_net_minor, 2000 + 4100 + 4000);
});

test('a wallet_psp day run before the sums were kept per currency: its sums are null, not 0', async () => {
  // Such a run kept one total of the day (migration 0017's columns), which may have added
  // currencies, and no sums per currency (0025 copied only idr_psp's, IDR by nature).
  await sql(
    gw.databaseUrl,
    `INSERT INTO reconciliation_runs (id, provider, mode, day, status, matched_count, trigger,
       started_at, finished_at, gateway_net_minor, provider_net_minor, fees_minor)
     VALUES ($1, 'wallet_psp', 'test', '2026-01-05', 'matched', 500, 'daily', now(), now(),
       1234567, 1234567, 4321)`,
    ['e'.repeat(32)],
  );
  const res = await gw.admin(
    'GET',
    '/admin/reconciliation?provider=wallet_psp&date=2026-01-05&mode=test',
  );
  assertStatus(res, 200);
  const r = res.json<Record<string, unknown>>();
  assert.equal(r.matched_count, 500);
  assert.deepEqual(
    [r.gateway_net_minor, r.provider_net_minor, r.fees_minor, r.by_currency],
    [null, null, null, []],
  );
});
