import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { freePort } from '../../../scripts/net.js';
import type { Gateway } from '../../../src/gateway.js';
import { simulatorEndpoint, SimStore } from '../../helpers/drivers/sim.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { type WpDispute, type WpCapture, walletPspSim } from '../../helpers/drivers/wallet_psp.js';
import { reconcileDue } from '../../helpers/jobs.js';
import { disputeLedger, eventsOf, onlyDispute, paymentDetail } from '../../helpers/disputes.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { idrTestServerKey } from '../../helpers/idrNotify.js';
import {
  idrProviderRefund,
  lostWebhookPayment,
  paidPayment,
  silentAction,
  simAction,
} from '../../helpers/payments.js';

// Money a provider takes back, booked once whichever way the gateway hears of it (D16,
// docs/api.md#disputes): a chargeback that grows, a PayPal case and the reversal of its
// capture, a chargeback the reconciler finds while polling, a refund made at the provider
// beside a chargeback. Each ends with one dispute, the right ledger entries and one event per
// change.

let gw: TestGateway;
let core: Gateway;
let app: AppWithSecrets;

let sandboxApp: AppWithSecrets;

before(async () => {
  // The sandbox endpoint of idr_psp is the gateway's own simulator, under its key: a
  // sandbox-mode payment goes through the same provider as a test-mode one.
  const port = await freePort();
  const masterKey = randomBytes(32);
  const sim = simulatorEndpoint('idr_psp', masterKey, '');
  // The reconciler is driven by hand.
  gw = await startTestGateway(
    {
      PORT: String(port),
      MASTER_KEY: masterKey.toString('hex'),
      IDR_PSP_SANDBOX_BASE_URL: `http://127.0.0.1:${port}/sim/idr_psp`,
      IDR_PSP_SANDBOX_SERVER_KEY: sim.credentials.serverKey as string,
    },
    { workers: false },
  );
  core = gw.running.gw;
  app = await gw.createApp({ name: 'Movements', webhook_url: 'http://127.0.0.1:9/hook' });
  sandboxApp = await gw.createApp({
    name: 'Movements (sandbox)',
    mode: 'sandbox',
    webhook_url: 'http://127.0.0.1:9/hook',
  });
});
after(async () => {
  await gw?.stop();
});

async function chargeback(ref: string, body?: object) {
  const res = await fetch(`${gw.url}/sim/idr_psp/payments/${ref}/chargeback`, {
    method: 'POST',
    ...(body
      ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }
      : {}),
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text) as { gateway_status: number; gateway_body: string };
}

async function idrStatus(orderId: string) {
  const key = idrTestServerKey(gw.config.masterKey);
  const res = await fetch(`${gw.url}/sim/idr_psp/v2/${orderId}/status`, {
    headers: {
      authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
      accept: 'application/json',
    },
  });
  assert.equal(res.status, 200);
  return (await res.json()) as {
    transaction_status: string;
    refund_amount?: string;
    refunds?: Record<string, unknown>[];
  };
}

async function idrDisputed(): Promise<number> {
  const res = await gw.admin('GET', '/admin/summary?mode=test');
  assert.equal(res.status, 200, res.text);
  const row = res
    .json<{ by_provider: { provider: string; disputed_minor: number }[] }>()
    .by_provider.find((r) => r.provider === 'idr_psp');
  assert.ok(row);
  return row.disputed_minor;
}

async function archived(paymentId: string, eventType: string) {
  const r = await core.pool.query<{ outcome: string }>(
    'SELECT outcome FROM inbound_events WHERE payment_id = $1 AND event_type = $2 ORDER BY id',
    [paymentId, eventType],
  );
  return r.rows.map((x) => x.outcome);
}

async function postWallet(eventType: string, type: 'dispute' | 'capture', resource: unknown) {
  const { headers, body } = await walletPspSim(core, gw.simClock).signedEvent(
    eventType,
    type,
    resource,
    eventType,
  );
  const res = await fetch(`${gw.url}/webhooks/wallet_psp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  assert.equal(res.status, 200, await res.text());
}

describe('idr_psp: a chargeback listed as Midtrans lists it', () => {
  test('a partial chargeback, then the rest: one dispute whose amount follows, a correction entry, no third event', async () => {
    const p = await paidPayment(gw, app, 'idr', 50000);
    const disputedBefore = await idrDisputed();
    assert.equal((await chargeback(p.providerRef, { amount_minor: 20000 })).gateway_status, 200);
    const first = await onlyDispute(gw, p.id);
    assert.equal(first.status, 'lost');
    assert.equal(first.amount_minor, 20000);
    // The provider's answer: the chargeback is a refunds[] entry without a refund_key.
    const partial = await idrStatus(p.id);
    assert.equal(partial.transaction_status, 'partial_chargeback');
    assert.equal(partial.refunds?.length, 1);
    assert.deepEqual(Object.keys(partial.refunds?.[0] ?? {}).sort(), [
      'created_at',
      'reason',
      'refund_amount',
      'refund_chargeback_id',
    ]);
    assert.equal(partial.refunds?.[0]?.refund_amount, '20000.00');

    assert.equal((await chargeback(p.providerRef)).gateway_status, 200);
    const full = await idrStatus(p.id);
    assert.equal(full.transaction_status, 'chargeback');
    assert.deepEqual(
      full.refunds?.map((r) => r.refund_amount),
      ['20000.00', '30000.00'],
    );
    const d = await onlyDispute(gw, p.id);
    assert.equal(d.dispute_id, first.dispute_id);
    assert.equal(d.status, 'lost');
    assert.equal(d.amount_minor, 50000);
    assert.deepEqual(await disputeLedger(core, p.id), [
      { type: 'dispute', amount_minor: -20000, dispute_id: d.dispute_id },
      { type: 'dispute', amount_minor: -30000, dispute_id: d.dispute_id },
    ]);
    assert.equal((await idrDisputed()) - disputedBefore, 50000);
    assert.deepEqual(await archived(p.id, 'chargeback'), ['dispute_amount_changed']);
    // One event per change: opened and closed at the first amount; the growth is on the
    // dispute and the ledger (the contract has no event kind for it).
    assert.deepEqual(
      (await eventsOf(core, p.id, 'dispute.%')).map((e) => [e.event, e.amount]),
      [
        ['dispute.opened', 20000],
        ['dispute.closed', 20000],
      ],
    );
    // No refund on record: a chargeback entry is never read as a refund made at the provider.
    const refunds = await core.pool.query('SELECT 1 FROM refunds WHERE payment_id = $1', [p.id]);
    assert.equal(refunds.rowCount, 0);
  });

  test('our refund, a refund made at the provider, then a chargeback of the rest: each on record once', async () => {
    const p = await paidPayment(gw, app, 'idr', 40000);
    const ours = await gw.v1(app, 'POST', '/v1/refunds', { payment_id: p.id, amount_minor: 5000 });
    assert.equal(ours.status, 201, ours.text);
    const refund = await idrProviderRefund(gw, idrTestServerKey(gw.config.masterKey), p.id, {
      refund_key: 'dashboard-refund-1',
      amount: 10000,
    });
    assert.equal(refund.status, 200, JSON.stringify(refund.body));
    assert.equal((await chargeback(p.providerRef)).gateway_status, 200);
    const d = await onlyDispute(gw, p.id);
    assert.equal(d.amount_minor, 25000);
    const rows = await core.pool.query<{ amount_minor: number; additional: boolean }>(
      `SELECT amount_minor, additional FROM refunds WHERE payment_id = $1 AND status = 'succeeded'
       ORDER BY created_at`,
      [p.id],
    );
    assert.deepEqual(rows.rows, [
      { amount_minor: 5000, additional: false },
      { amount_minor: 10000, additional: true },
    ]);
    const ledger = await core.pool.query<{ type: string; amount_minor: number }>(
      'SELECT type, amount_minor FROM ledger_entries WHERE payment_id = $1 ORDER BY occurred_at, id',
      [p.id],
    );
    assert.deepEqual(ledger.rows, [
      { type: 'charge', amount_minor: 40000 },
      { type: 'refund', amount_minor: -5000 },
      { type: 'refund', amount_minor: -10000 },
      { type: 'dispute', amount_minor: -25000 },
    ]);
    // The payment list shows what was refunded in all, the provider's refund included.
    const list = await gw.admin('GET', `/admin/payments?q=${p.id}`);
    assert.equal(list.status, 200, list.text);
    const rowOf = list.json<{
      payments: { id: string; refund_status: string; refund_amount_minor: number | null }[];
    }>().payments;
    assert.deepEqual(
      rowOf.map((x) => [x.id, x.refund_status, x.refund_amount_minor]),
      [[p.id, 'succeeded', 15000]],
    );
  });
});

test('a chargeback of a sandbox-mode payment: the dispute and its entries carry sandbox, the test figures do not move', async () => {
  const testBefore = await idrDisputed();
  const p = await paidPayment(gw, sandboxApp, 'idr', 33000);
  assert.equal((await chargeback(p.providerRef, { amount_minor: 8000 })).gateway_status, 200);
  const d = await onlyDispute(gw, p.id);
  assert.equal(d.mode, 'sandbox');
  assert.equal(d.amount_minor, 8000);
  const ledger = await core.pool.query<{ type: string; mode: string; amount_minor: number }>(
    'SELECT type, mode, amount_minor FROM ledger_entries WHERE payment_id = $1 ORDER BY occurred_at, id',
    [p.id],
  );
  assert.deepEqual(ledger.rows, [
    { type: 'charge', mode: 'sandbox', amount_minor: 33000 },
    { type: 'dispute', mode: 'sandbox', amount_minor: -8000 },
  ]);
  assert.equal(await idrDisputed(), testBefore);
  const sandbox = await gw.admin('GET', '/admin/disputes?mode=sandbox');
  assert.deepEqual(sandbox.json<{ mode: string; disputes: { dispute_id: string }[] }>(), {
    mode: 'sandbox',
    disputes: [{ ...d }],
  });
  assert.deepEqual(
    (await eventsOf(core, p.id, 'dispute.%')).map((e) => e.event),
    ['dispute.opened', 'dispute.closed'],
  );
});

describe('wallet_psp: a case and the reversal of its capture are the same money', () => {
  test('case opened, capture reversed, case creation replayed, case won, reversal replayed: one dispute, taken once, given back once', async () => {
    const p = await paidPayment(gw, app, 'wallet', 2500);
    assert.equal((await simAction(gw, 'wallet', p.providerRef, 'dispute')).gateway_status, 200);
    const opened = await onlyDispute(gw, p.id);
    assert.match(opened.provider_ref, /^PP-D-\d{8}$/);

    const reversed = await simAction(gw, 'wallet', p.providerRef, 'reverse');
    assert.equal(reversed.gateway_status, 200, reversed.gateway_body);
    let d = await onlyDispute(gw, p.id);
    assert.equal(d.dispute_id, opened.dispute_id);
    assert.equal(d.status, 'open');
    assert.deepEqual(await disputeLedger(core, p.id), [
      { type: 'dispute', amount_minor: -2500, dispute_id: d.dispute_id },
    ]);

    // The case's creation arrives again after the reversal (reordered): nothing moves.
    const cases = new SimStore<{ dispute: WpDispute }>(core.pool, 'wallet_psp', 'dispute');
    const stored = await cases.get(d.provider_ref);
    assert.ok(stored);
    await postWallet('CUSTOMER.DISPUTE.CREATED', 'dispute', stored.dispute);
    assert.equal((await disputeLedger(core, p.id)).length, 1);

    assert.equal((await simAction(gw, 'wallet', p.providerRef, 'dispute_won')).gateway_status, 200);
    d = await onlyDispute(gw, p.id);
    assert.equal(d.status, 'won');
    // The reversal redelivered after the case was won: still the case's money.
    const order = await walletPspSim(core, gw.simClock).orders.get(p.providerRef);
    const capture = order?.order.purchase_units[0]?.payments?.captures?.[0] as WpCapture;
    assert.equal(capture.status, 'REVERSED');
    await postWallet('PAYMENT.CAPTURE.REVERSED', 'capture', capture);
    assert.deepEqual(await disputeLedger(core, p.id), [
      { type: 'dispute', amount_minor: -2500, dispute_id: d.dispute_id },
      { type: 'dispute_reversal', amount_minor: 2500, dispute_id: d.dispute_id },
    ]);
    assert.equal((await paymentDetail(gw, p.id)).disputes.length, 1);
    assert.deepEqual(
      (await eventsOf(core, p.id, 'dispute.%')).map((e) => [e.event, e.status]),
      [
        ['dispute.opened', 'open'],
        ['dispute.closed', 'won'],
      ],
    );
  });

  test('a case whose amount PayPal changes: the open dispute and the ledger follow, no new event', async () => {
    const p = await paidPayment(gw, app, 'wallet', 3000);
    await simAction(gw, 'wallet', p.providerRef, 'dispute');
    const before = await onlyDispute(gw, p.id);
    const cases = new SimStore<{ dispute: WpDispute }>(core.pool, 'wallet_psp', 'dispute');
    const updated = await cases.update(before.provider_ref, (c) => ({
      ...c,
      dispute: { ...c.dispute, dispute_amount: { currency_code: 'EUR', value: '12.50' } },
    }));
    assert.ok(updated);
    for (let i = 0; i < 2; i++) {
      await postWallet('CUSTOMER.DISPUTE.UPDATED', 'dispute', updated.dispute);
    }
    const d = await onlyDispute(gw, p.id);
    assert.equal(d.status, 'open');
    assert.equal(d.amount_minor, 1250);
    assert.deepEqual(await disputeLedger(core, p.id), [
      { type: 'dispute', amount_minor: -3000, dispute_id: d.dispute_id },
      { type: 'dispute', amount_minor: 1750, dispute_id: d.dispute_id },
    ]);
    assert.deepEqual(await archived(p.id, 'CUSTOMER.DISPUTE.UPDATED'), [
      'dispute_amount_changed',
      'already_finalized',
    ]);
    // Lost at the new amount: closed once, the ledger already holds the right sum.
    assert.equal(
      (await simAction(gw, 'wallet', p.providerRef, 'dispute_lost')).gateway_status,
      200,
    );
    assert.equal((await onlyDispute(gw, p.id)).status, 'lost');
    assert.equal((await disputeLedger(core, p.id)).length, 2);
    assert.deepEqual(
      (await eventsOf(core, p.id, 'dispute.%')).map((e) => [e.event, e.amount]),
      [
        ['dispute.opened', 3000],
        ['dispute.closed', 1250],
      ],
    );
  });
});

test('a capture reversed before PayPal had a case, the case heard of later: the money taken once, given back once when won', async () => {
  const p = await paidPayment(gw, app, 'wallet', 5200);
  assert.equal((await simAction(gw, 'wallet', p.providerRef, 'reverse')).gateway_status, 200);
  const reversal = await onlyDispute(gw, p.id);
  assert.equal(reversal.status, 'lost');
  const order = await walletPspSim(core, gw.simClock).orders.get(p.providerRef);
  const capture = order?.order.purchase_units[0]?.payments?.captures?.[0];
  assert.ok(order && capture);
  // The case PayPal opens for that capture afterwards.
  const dispute: WpDispute = {
    dispute_id: 'PP-D-52000001',
    create_time: '2026-11-20T10:00:00Z',
    update_time: '2026-11-20T10:00:00Z',
    disputed_transactions: [{ seller_transaction_id: capture.id, custom: p.id }],
    reason: 'UNAUTHORISED',
    status: 'WAITING_FOR_SELLER_RESPONSE',
    dispute_amount: { currency_code: 'EUR', value: '52.00' },
    seller_response_due_date: '2030-01-01T00:00:00Z',
  };
  const cases = new SimStore<{ dispute: WpDispute; clientId: string; orderId: string }>(
    core.pool,
    'wallet_psp',
    'dispute',
  );
  await cases.create(dispute.dispute_id, {
    dispute,
    clientId: order.clientId,
    orderId: p.providerRef,
  });
  await postWallet('CUSTOMER.DISPUTE.CREATED', 'dispute', dispute);
  const both = (await paymentDetail(gw, p.id)).disputes;
  // Sorted on both sides: the capture's id is the provider's, random.
  assert.deepEqual(
    both.map((d) => [d.provider_ref, d.status, d.amount_minor]).sort(),
    [
      [capture.id, 'lost', 5200],
      ['PP-D-52000001', 'open', 5200],
    ].sort(),
  );
  const caseId = both.find((d) => d.provider_ref === 'PP-D-52000001')?.dispute_id;
  // The reversal took the money; the case takes nothing more.
  assert.deepEqual(await disputeLedger(core, p.id), [
    { type: 'dispute', amount_minor: -5200, dispute_id: reversal.dispute_id },
  ]);
  const resolved = await cases.update(dispute.dispute_id, (c) => ({
    ...c,
    dispute: {
      ...c.dispute,
      status: 'RESOLVED',
      dispute_outcome: { outcome_code: 'RESOLVED_SELLER_FAVOUR' },
    },
  }));
  assert.ok(resolved);
  await postWallet('CUSTOMER.DISPUTE.RESOLVED', 'dispute', resolved.dispute);
  await postWallet('PAYMENT.CAPTURE.REVERSED', 'capture', capture);
  assert.deepEqual(await disputeLedger(core, p.id), [
    { type: 'dispute', amount_minor: -5200, dispute_id: reversal.dispute_id },
    { type: 'dispute_reversal', amount_minor: 5200, dispute_id: caseId },
  ]);
  assert.equal((await paymentDetail(gw, p.id)).disputes.length, 2);
});

/**
 * A case of `amountMinor` on the payment's capture, known to PayPal's dispute API but not to
 * its list by capture (so the reversal of the capture reaches the gateway as a reversal of
 * its own), heard of through CUSTOMER.DISPUTE.CREATED. Returns the case's id and the capture.
 */
async function unlistedCase(
  paymentId: string,
  orderId: string,
  caseId: string,
  amountMinor: number,
) {
  const order = await walletPspSim(core, gw.simClock).orders.get(orderId);
  const capture = order?.order.purchase_units[0]?.payments?.captures?.[0];
  assert.ok(order && capture);
  const dispute: WpDispute = {
    dispute_id: caseId,
    create_time: '2026-11-20T10:00:00Z',
    update_time: '2026-11-20T10:00:00Z',
    disputed_transactions: [{ seller_transaction_id: capture.id, custom: paymentId }],
    reason: 'MERCHANDISE_OR_SERVICE_NOT_AS_DESCRIBED',
    status: 'WAITING_FOR_SELLER_RESPONSE',
    dispute_amount: { currency_code: 'EUR', value: (amountMinor / 100).toFixed(2) },
    seller_response_due_date: '2030-01-01T00:00:00Z',
  };
  await walletCases().create(caseId, { dispute, clientId: order.clientId, orderId });
  await postWallet('CUSTOMER.DISPUTE.CREATED', 'dispute', dispute);
  return { captureId: capture.id };
}

function walletCases() {
  return new SimStore<{ dispute: WpDispute; clientId: string; orderId: string }>(
    core.pool,
    'wallet_psp',
    'dispute',
  );
}

async function resolveCase(caseId: string, outcome: string) {
  const resolved = await walletCases().update(caseId, (c) => ({
    ...c,
    dispute: { ...c.dispute, status: 'RESOLVED', dispute_outcome: { outcome_code: outcome } },
  }));
  assert.ok(resolved);
  await postWallet('CUSTOMER.DISPUTE.RESOLVED', 'dispute', resolved.dispute);
}

async function reversedCapture(orderId: string): Promise<WpCapture> {
  const order = await walletPspSim(core, gw.simClock).orders.get(orderId);
  const capture = order?.order.purchase_units[0]?.payments?.captures?.[0];
  assert.equal(capture?.status, 'REVERSED');
  return capture as WpCapture;
}

/** The payment's disputes as [provider_ref, status, amount_minor], sorted (capture ids are random). */
async function disputeRows(paymentId: string) {
  return (await paymentDetail(gw, paymentId)).disputes
    .map((d) => [d.provider_ref, d.status, d.amount_minor])
    .sort();
}

async function disputeIdOf(paymentId: string, providerRef: string): Promise<string> {
  const d = (await paymentDetail(gw, paymentId)).disputes.find(
    (x) => x.provider_ref === providerRef,
  );
  assert.ok(d, providerRef);
  return d.dispute_id;
}

/** Dispute entries in a fixed order: the entries of one transaction share a time. */
function byDisputeAndAmount(
  a: { dispute_id: string; amount_minor: number },
  b: { dispute_id: string; amount_minor: number },
): number {
  return `${a.dispute_id}:${a.amount_minor}`.localeCompare(`${b.dispute_id}:${b.amount_minor}`);
}

async function ledgerSorted(paymentId: string) {
  return (await disputeLedger(core, paymentId)).sort(byDisputeAndAmount);
}

async function disputeEvents(paymentId: string) {
  return (await eventsOf(core, paymentId, 'dispute.%')).map((e) => [
    e.event,
    e.dispute_id,
    e.status,
    e.amount,
  ]);
}

describe('wallet_psp: a reversal of more than a case holds is money of its own', () => {
  test('a small case won, then the whole capture reversed: the reversal takes the whole amount, once', async () => {
    const p = await paidPayment(gw, app, 'wallet', 10000);
    const { captureId } = await unlistedCase(p.id, p.providerRef, 'PP-D-10000001', 1000);
    await resolveCase('PP-D-10000001', 'RESOLVED_SELLER_FAVOUR');
    const caseId = await disputeIdOf(p.id, 'PP-D-10000001');
    assert.deepEqual(await disputeLedger(core, p.id), [
      { type: 'dispute', amount_minor: -1000, dispute_id: caseId },
      { type: 'dispute_reversal', amount_minor: 1000, dispute_id: caseId },
    ]);

    const reversed = await simAction(gw, 'wallet', p.providerRef, 'reverse');
    assert.equal(reversed.gateway_status, 200, reversed.gateway_body);
    // Replayed: nothing more.
    await postWallet('PAYMENT.CAPTURE.REVERSED', 'capture', await reversedCapture(p.providerRef));

    assert.deepEqual(
      await disputeRows(p.id),
      [
        [captureId, 'lost', 10000],
        ['PP-D-10000001', 'won', 1000],
      ].sort(),
    );
    const reversalId = await disputeIdOf(p.id, captureId);
    assert.deepEqual(await disputeLedger(core, p.id), [
      { type: 'dispute', amount_minor: -1000, dispute_id: caseId },
      { type: 'dispute_reversal', amount_minor: 1000, dispute_id: caseId },
      { type: 'dispute', amount_minor: -10000, dispute_id: reversalId },
    ]);
    assert.deepEqual(await archived(p.id, 'PAYMENT.CAPTURE.REVERSED'), [
      'dispute_lost',
      'already_finalized',
    ]);
    assert.deepEqual(await disputeEvents(p.id), [
      ['dispute.opened', caseId, 'open', 1000],
      ['dispute.closed', caseId, 'won', 1000],
      ['dispute.opened', reversalId, 'open', 10000],
      ['dispute.closed', reversalId, 'lost', 10000],
    ]);
  });

  test('a small case open, then the whole capture reversed, then the case lost: the whole amount taken once', async () => {
    const p = await paidPayment(gw, app, 'wallet', 10000);
    const { captureId } = await unlistedCase(p.id, p.providerRef, 'PP-D-10000002', 1000);
    const caseId = await disputeIdOf(p.id, 'PP-D-10000002');
    assert.deepEqual(await disputeLedger(core, p.id), [
      { type: 'dispute', amount_minor: -1000, dispute_id: caseId },
    ]);

    const reversed = await simAction(gw, 'wallet', p.providerRef, 'reverse');
    assert.equal(reversed.gateway_status, 200, reversed.gateway_body);
    await postWallet('PAYMENT.CAPTURE.REVERSED', 'capture', await reversedCapture(p.providerRef));
    assert.deepEqual(
      await disputeRows(p.id),
      [
        [captureId, 'lost', 10000],
        ['PP-D-10000002', 'open', 1000],
      ].sort(),
    );
    const reversalId = await disputeIdOf(p.id, captureId);
    // The reversal takes the capture; the case's 10.00 is part of it, so beyond the case
    // only the difference (90.00) leaves the merchant's balance.
    const afterReversal = [
      { type: 'dispute', amount_minor: -1000, dispute_id: caseId },
      { type: 'dispute', amount_minor: 1000, dispute_id: caseId },
      { type: 'dispute', amount_minor: -10000, dispute_id: reversalId },
    ].sort(byDisputeAndAmount);
    assert.deepEqual(await ledgerSorted(p.id), afterReversal);

    // The case lost later names the reversed capture: nothing taken twice.
    await resolveCase('PP-D-10000002', 'RESOLVED_BUYER_FAVOUR');
    assert.deepEqual(
      await disputeRows(p.id),
      [
        [captureId, 'lost', 10000],
        ['PP-D-10000002', 'lost', 1000],
      ].sort(),
    );
    assert.deepEqual(await ledgerSorted(p.id), afterReversal);
    assert.deepEqual(await archived(p.id, 'PAYMENT.CAPTURE.REVERSED'), [
      'dispute_lost',
      'already_finalized',
    ]);
    assert.deepEqual(await disputeEvents(p.id), [
      ['dispute.opened', caseId, 'open', 1000],
      ['dispute.opened', reversalId, 'open', 10000],
      ['dispute.closed', reversalId, 'lost', 10000],
      ['dispute.closed', caseId, 'lost', 1000],
    ]);
  });

  test("a case open for the whole capture, then the capture reversed: the case's money, one dispute", async () => {
    const p = await paidPayment(gw, app, 'wallet', 10000);
    await unlistedCase(p.id, p.providerRef, 'PP-D-10000003', 10000);
    const reversed = await simAction(gw, 'wallet', p.providerRef, 'reverse');
    assert.equal(reversed.gateway_status, 200, reversed.gateway_body);
    const d = await onlyDispute(gw, p.id);
    assert.deepEqual([d.provider_ref, d.status, d.amount_minor], ['PP-D-10000003', 'open', 10000]);
    assert.deepEqual(await disputeLedger(core, p.id), [
      { type: 'dispute', amount_minor: -10000, dispute_id: d.dispute_id },
    ]);
    assert.deepEqual(await archived(p.id, 'PAYMENT.CAPTURE.REVERSED'), ['already_finalized']);
    assert.deepEqual(await disputeEvents(p.id), [['dispute.opened', d.dispute_id, 'open', 10000]]);
  });
});

describe('the reconciler books what it finds while polling', () => {
  // The row is rewritten, not the clock moved: a wallet_psp payment has no provider deadline
  // (PayPal's approval does not lapse on a known date), so no time reaches it.
  async function reconcile(paymentId: string) {
    await core.pool.query(
      `UPDATE payments SET provider_deadline = now() - interval '1 second' WHERE id = $1`,
      [paymentId],
    );
    assert.ok((await reconcileDue(core)) >= 1);
  }

  test('idr_psp: a payment whose notifications were lost, paid then partly charged back', async () => {
    const p = await lostWebhookPayment(gw, app, 'idr', 60000);
    await silentAction(gw, 'idr', p.providerRef, 'pay');
    const cb = await chargeback(p.providerRef, { amount_minor: 25000 });
    assert.equal(cb.gateway_status, 0, cb.gateway_body);
    await reconcile(p.id);
    const d = await onlyDispute(gw, p.id);
    assert.equal(d.status, 'lost');
    assert.equal(d.amount_minor, 25000);
    const ledger = await core.pool.query<{ type: string; amount_minor: number }>(
      'SELECT type, amount_minor FROM ledger_entries WHERE payment_id = $1 ORDER BY occurred_at, id',
      [p.id],
    );
    assert.deepEqual(ledger.rows, [
      { type: 'charge', amount_minor: 60000 },
      { type: 'dispute', amount_minor: -25000 },
    ]);
    assert.deepEqual(
      (await eventsOf(core, p.id, '%')).map((e) => e.event),
      ['payment.succeeded', 'dispute.opened', 'dispute.closed'],
    );
    const check = await core.pool.query<{ last_check_learned: string }>(
      'SELECT last_check_learned FROM payments WHERE id = $1',
      [p.id],
    );
    assert.equal(
      check.rows[0]?.last_check_learned,
      'succeeded: 60000 IDR; dispute lost: 25000 IDR',
    );
  });

  test('wallet_psp: a capture the gateway never heard of, reversed before the reconciler asks', async () => {
    const p = await lostWebhookPayment(gw, app, 'wallet', 4100);
    await silentAction(gw, 'wallet', p.providerRef, 'pay');
    // First poll: approved, so the reconciler captures (the capture's webhook is lost too).
    await reconcile(p.id);
    assert.equal((await paymentDetail(gw, p.id)).status, 'initiated');
    await silentAction(gw, 'wallet', p.providerRef, 'reverse');
    await reconcile(p.id);
    const d = await onlyDispute(gw, p.id);
    assert.equal(d.status, 'lost');
    assert.equal(d.amount_minor, 4100);
    assert.match(d.provider_ref, /^[0-9A-Z]{17}$/);
    assert.deepEqual(await disputeLedger(core, p.id), [
      { type: 'dispute', amount_minor: -4100, dispute_id: d.dispute_id },
    ]);
    assert.deepEqual(
      (await eventsOf(core, p.id, '%')).map((e) => e.event),
      ['payment.succeeded', 'dispute.opened', 'dispute.closed'],
    );
  });
});
