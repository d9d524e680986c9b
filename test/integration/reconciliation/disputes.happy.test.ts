/**
 * Disputes in reconciliation (docs/api.md#reconciliation), wallet_psp over real HTTP: the
 * simulator's PayPal transaction search serves the money of cases and reversals with
 * PayPal's event codes (T1106 reversal, T1110 hold for a case, T1111 its release, T1201
 * chargeback; PayPal's own SDK reads them), and the gateway's dispute and dispute_reversal
 * ledger entries pair with them: a clean day matches, reconciliation_drift's changed reversal
 * is an amount_mismatch, a reversal whose notification is late is missing in the gateway
 * until it arrives, and one the provider does not show is missing at the provider. The steps
 * build on one day of one database, in order.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TransactionSearchController } from '@paypal/paypal-server-sdk';
import { simulatorEndpoint, FAULT_DELAY_MS } from '../../helpers/drivers/sim.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { paypalClient } from '../../helpers/paypalSdk.js';
import { sql } from '../../helpers/core.js';
import { onlyDispute } from '../../helpers/disputes.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { createPayment, paidPayment, simAction } from '../../helpers/payments.js';
import {
  exceptionsOfKind,
  onlyCurrency,
  reconcile,
  type Item,
  today,
} from '../../helpers/reconciliation.js';

let gw: TestGateway;
let shop: AppWithSecrets;

before(async () => {
  gw = await startTestGateway();
  shop = await gw.createApp({ name: 'Disputed shop' });
});
after(async () => {
  await gw?.stop();
});

const run = () => reconcile(gw, 'wallet_psp');
const strip = (i: Item) => ({ ...i, provider_ref: 'x', exception_id: i.exception_id && 'x' });

async function action(ref: string, name: string) {
  const r = await simAction(gw, 'wallet', ref, name);
  assert.equal(r.gateway_status, 200, r.gateway_body);
}

test('a clean day: a reversal, a case won and a case lost match the ledger', async () => {
  const reversed = await paidPayment(gw, shop, 'wallet', 10_000);
  await action(reversed.providerRef, 'reverse');
  const won = await paidPayment(gw, shop, 'wallet', 8000);
  await action(won.providerRef, 'dispute');
  await action(won.providerRef, 'dispute_won');
  const lost = await paidPayment(gw, shop, 'wallet', 6000);
  await action(lost.providerRef, 'dispute');
  await action(lost.providerRef, 'dispute_lost');
  assert.equal((await onlyDispute(gw, lost.id)).status, 'lost');

  const r = await run();
  assert.equal(r.status, 'matched', JSON.stringify(r.items));
  // Three charges; the reversal (T1106), the case won (T1110 and T1111 against the dispute
  // and its reversal), the case lost (T1201 against the dispute; the hold and its release
  // net to nothing).
  assert.equal(r.matched_count, 3 + 1 + 2 + 1);
  // Every movement of money counts in the nets, disputes included.
  const net = 10_000 + 8000 + 6000 - 10_000 - 6000;
  assert.deepEqual(onlyCurrency(r, 'EUR'), {
    gateway_net_minor: net,
    provider_net_minor: net,
    fees_minor: 349 + 49 + (279 + 49) + (209 + 49),
  });
});

test("PayPal's own SDK reads the dispute movements with their event codes", async () => {
  const creds = simulatorEndpoint('wallet_psp', gw.config.masterKey, '').credentials;
  const client = paypalClient(`${gw.url}/sim/wallet_psp`, {
    clientId: creds.clientId ?? '',
    clientSecret: creds.clientSecret ?? '',
  });
  const day = Date.parse(`${today()}T00:00:00Z`);
  const { result } = await new TransactionSearchController(client).searchTransactions({
    startDate: new Date(day).toISOString().replace(/\.\d+Z$/, 'Z'),
    endDate: new Date(day + 86_399_000).toISOString().replace(/\.\d+Z$/, 'Z'),
    fields: 'transaction_info',
    pageSize: 100,
  });
  const codes = (result.transactionDetails ?? []).map((d) => ({
    code: d.transactionInfo?.transactionEventCode,
    value: d.transactionInfo?.transactionAmount?.value,
  }));
  const disputeRows = codes
    .filter((c) => c.code !== 'T0006')
    .sort((a, b) => `${a.code}${a.value}`.localeCompare(`${b.code}${b.value}`));
  assert.deepEqual(disputeRows, [
    { code: 'T1106', value: '-100.00' },
    { code: 'T1110', value: '-60.00' },
    { code: 'T1110', value: '-80.00' },
    { code: 'T1111', value: '60.00' },
    { code: 'T1111', value: '80.00' },
    { code: 'T1201', value: '-60.00' },
  ]);
});

let driftId = '';

test('reconciliation_drift: a reversal reported larger is an amount_mismatch of the dispute', async () => {
  const p = await createPayment(gw, shop, 'wallet', 5000, {
    test_scenario: 'reconciliation_drift',
  });
  driftId = p.id;
  await action(p.providerRef, 'pay');
  await action(p.providerRef, 'reverse');
  const r = await run();
  assert.equal(r.status, 'mismatched');
  const dispute = r.items.find((i) => i.movement === 'dispute');
  assert.deepEqual(strip(dispute!), {
    kind: 'amount_mismatch',
    movement: 'dispute',
    provider_ref: 'x',
    payment_id: p.id,
    currency: 'EUR',
    gateway_amount_minor: -5000,
    provider_amount_minor: -5100,
    provider_status: 'completed',
    exception_id: 'x',
  });
  const ex = (await exceptionsOfKind(gw, 'reconciliation')).find(
    (e) => e.id === dispute!.exception_id,
  );
  assert.equal(ex?.amount_minor, -100);
  assert.equal(ex?.payment_id, p.id);
});

test('a reversal whose notification is late is missing in the gateway until it arrives', async () => {
  const p = await createPayment(gw, shop, 'wallet', 4200, { test_scenario: 'delayed_webhook' });
  await simAction(gw, 'wallet', p.providerRef, 'pay');
  await waitFor(async () => (await paymentStatus(p.id)) === 'succeeded');
  await simAction(gw, 'wallet', p.providerRef, 'reverse');
  // The reversal's notification is held for FAULT_DELAY_MS: PayPal already shows it.
  const r = await run();
  const missing = r.items.find((i) => i.payment_id === p.id);
  assert.deepEqual(strip(missing!), {
    kind: 'missing_in_gateway',
    movement: 'dispute',
    provider_ref: 'x',
    payment_id: p.id,
    currency: 'EUR',
    gateway_amount_minor: null,
    provider_amount_minor: -4200,
    provider_status: 'completed',
    exception_id: 'x',
  });
  await waitFor(
    async () =>
      (await sql(gw.databaseUrl, `SELECT 1 FROM disputes WHERE payment_id = $1`, [p.id])).length ===
      1,
  );
  const cleared = await run();
  assert.equal(
    cleared.items.find((i) => i.payment_id === p.id),
    undefined,
  );
  const ex = (await exceptionsOfKind(gw, 'reconciliation')).find(
    (e) => e.id === missing!.exception_id,
  );
  assert.equal(ex?.resolution, 'resolved');
  assert.equal(ex?.note, `matched by reconciliation run ${cleared.run_id}`);
  // The drift's items are still there.
  assert.ok(cleared.items.some((i) => i.payment_id === driftId && i.movement === 'dispute'));
});

test('a dispute the provider does not show is missing at the provider', async () => {
  const p = await paidPayment(gw, shop, 'wallet', 3000);
  await action(p.providerRef, 'reverse');
  // The provider's record loses the case (as a report missing a row would).
  await sql(
    gw.databaseUrl,
    `UPDATE paygate_sim.sim_objects SET data = jsonb_set(data, '{order,purchase_units,0,payments,captures,0,status}', '"COMPLETED"')
     WHERE provider = 'wallet_psp' AND kind = 'order' AND id = $1`,
    [p.providerRef],
  );
  const r = await run();
  const missing = r.items.find((i) => i.payment_id === p.id);
  const d = await onlyDispute(gw, p.id);
  assert.deepEqual(
    { ...missing!, exception_id: missing!.exception_id && 'x' },
    {
      kind: 'missing_at_provider',
      movement: 'dispute',
      provider_ref: d.provider_ref,
      payment_id: p.id,
      currency: 'EUR',
      gateway_amount_minor: -3000,
      provider_amount_minor: null,
      provider_status: null,
      exception_id: 'x',
    },
  );
});

async function paymentStatus(id: string): Promise<string> {
  const res = await gw.admin('GET', `/admin/payments/${id}`);
  return res.json<{ status: string }>().status;
}

async function waitFor(ok: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + FAULT_DELAY_MS * 5;
  while (!(await ok())) {
    assert.ok(Date.now() < until, 'timed out waiting for the delayed notification');
    await new Promise((r) => setTimeout(r, 100));
  }
}
