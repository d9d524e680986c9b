import assert from 'node:assert/strict';
import { unpackEventBody, type StoredEventBody } from '../../../src/db/eventBody.js';
import { after, before, describe, test } from 'node:test';
import type { Gateway } from '../../../src/gateway.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { type WpDispute, walletPspSim } from '../../helpers/drivers/wallet_psp.js';
import { SimStore } from '../../helpers/drivers/sim.js';
import { idrNotification, idrTestServerKey, postWebhook } from '../../helpers/idrNotify.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { createPayment, paidPayment, simAction } from '../../helpers/payments.js';
import { assertText } from '../../helpers/assert.js';

// Disputes end to end (D16, docs/api.md#disputes): each provider's simulator takes money back
// the way the provider does and sends the provider's own notification; the gateway confirms
// it through the provider's API, records one dispute in its latest state, books the ledger
// and stores one event per change, delivered to no URL.

const SANDBOX_KEY = 'SB-Mid-server-sandbox-key-for-disputes';

let gw: TestGateway;
let core: Gateway;
let app: AppWithSecrets;

before(async () => {
  gw = await startTestGateway({
    // A sandbox endpoint exists (nobody listens there): its key verifies sandbox events only.
    IDR_PSP_SANDBOX_BASE_URL: 'http://127.0.0.1:9/sandbox',
    IDR_PSP_SANDBOX_SERVER_KEY: SANDBOX_KEY,
  });
  core = gw.running.gw;
  app = await gw.createApp({ name: 'Disputes', webhook_url: 'http://127.0.0.1:9/hook' });
});
after(async () => {
  await gw?.stop();
});

interface DisputeView {
  dispute_id: string;
  payment_id: string;
  app_id: string;
  provider: string;
  provider_ref: string;
  status: string;
  amount_minor: number;
  currency: string;
  reason: string;
  opened_at: string;
  closed_at: string | null;
  evidence_due_by: string | null;
  mode: string;
}

const VIEW_KEYS = [
  'dispute_id',
  'payment_id',
  'app_id',
  'provider',
  'provider_ref',
  'status',
  'amount_minor',
  'currency',
  'reason',
  'opened_at',
  'closed_at',
  'evidence_due_by',
  'mode',
];

async function paymentDetail(id: string) {
  const res = await gw.admin('GET', `/admin/payments/${id}`);
  assert.equal(res.status, 200, res.text);
  return res.json<{ status: string; disputes: DisputeView[] }>();
}

/** The payment's one dispute, checked against the admin read of it. */
async function onlyDispute(paymentId: string): Promise<DisputeView> {
  const detail = await paymentDetail(paymentId);
  assert.equal(detail.status, 'succeeded', 'a dispute never changes the payment status');
  assert.equal(detail.disputes.length, 1, JSON.stringify(detail.disputes));
  const d = detail.disputes[0] as DisputeView;
  assert.deepEqual(Object.keys(d), VIEW_KEYS);
  const one = await gw.admin('GET', `/admin/disputes/${d.dispute_id}`);
  assert.equal(one.status, 200, one.text);
  assert.deepEqual(one.json(), d);
  return d;
}

async function ledgerOf(paymentId: string) {
  const r = await core.pool.query<{ type: string; amount_minor: number; dispute_id: string }>(
    `SELECT type, amount_minor, dispute_id FROM ledger_entries
     WHERE payment_id = $1 AND type IN ('dispute', 'dispute_reversal') ORDER BY occurred_at, type`,
    [paymentId],
  );
  return r.rows;
}

/** The payment's dispute events in order, and how many deliveries they have (none). */
async function disputeEvents(paymentId: string) {
  const r = await core.pool.query<StoredEventBody & { deliveries: number }>(
    `SELECT e.event_type, e.body, e.body_codec, e.body_packed,
       (SELECT count(*)::int FROM deliveries d WHERE d.event_id = e.id) AS deliveries
     FROM outbound_events e WHERE e.payment_id = $1 AND e.event_type LIKE 'dispute.%'
     ORDER BY e.created_at, e.id`,
    [paymentId],
  );
  for (const row of r.rows) assert.equal(row.deliveries, 0, `${row.event_type} goes to no URL`);
  return r.rows.map((row) => JSON.parse(unpackEventBody(row)) as Record<string, unknown>);
}

function assertEventBody(
  body: Record<string, unknown>,
  event: string,
  d: DisputeView,
  status: string,
) {
  assert.deepEqual(Object.keys(body), [
    'event',
    'dispute_id',
    'payment_id',
    'status',
    'amount',
    'currency',
    'provider',
    'provider_ref',
    'reason',
    'timestamp',
    'metadata',
  ]);
  assert.equal(body.event, event);
  assert.equal(body.dispute_id, d.dispute_id);
  assert.equal(body.payment_id, d.payment_id);
  assert.equal(body.status, status);
  assert.equal(body.amount, d.amount_minor);
  assert.equal(body.currency, d.currency);
  assert.equal(body.provider, d.provider);
  assert.equal(body.provider_ref, d.provider_ref);
  assert.equal(body.reason, d.reason);
}

/** The summary's idr_psp row (docs/api.md#summary): figures summed from the ledger. */
async function idrFigures(): Promise<{ net_minor: number; disputed_minor: number }> {
  const res = await gw.admin('GET', '/admin/summary?mode=test');
  assert.equal(res.status, 200, res.text);
  const row = res
    .json<{ by_provider: { provider: string; net_minor: number; disputed_minor: number }[] }>()
    .by_provider.find((r) => r.provider === 'idr_psp');
  assert.ok(row);
  return row;
}

async function simPost(provider: string, ref: string, action: string, body?: object) {
  const res = await fetch(`${gw.url}/sim/${provider}/payments/${ref}/${action}`, {
    method: 'POST',
    ...(body
      ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }
      : {}),
  });
  return { status: res.status, text: await res.text() };
}

async function refundRows(paymentId: string) {
  const r = await core.pool.query<{ status: string }>(
    'SELECT status FROM refunds WHERE payment_id = $1',
    [paymentId],
  );
  return r.rows.map((x) => x.status);
}

describe('idr_psp chargebacks', () => {
  test('a full chargeback: one lost dispute, money taken back on the ledger, opened and closed events; refunds refused', async () => {
    const p = await paidPayment(gw, app, 'idr', 50000);
    const before = await idrFigures();
    const res = await simPost('idr_psp', p.providerRef, 'chargeback');
    assert.equal(res.status, 200, res.text);
    // The reports are sums of the ledger: the lost chargeback lowers the net.
    const after = await idrFigures();
    assert.equal(after.disputed_minor - before.disputed_minor, 50000);
    assert.equal(after.net_minor - before.net_minor, -50000);
    assert.equal(JSON.parse(res.text).gateway_status, 200, res.text);
    const d = await onlyDispute(p.id);
    assert.equal(d.provider, 'idr_psp');
    assert.equal(d.status, 'lost');
    assert.equal(d.amount_minor, 50000);
    assert.equal(d.currency, 'IDR');
    assert.equal(d.mode, 'test');
    assert.equal(d.app_id, app.app_id);
    assert.equal(d.reason, 'midtrans chargeback notification');
    assert.equal(d.evidence_due_by, null);
    assert.ok(d.closed_at);
    assert.match(d.provider_ref, /^[0-9a-f-]{36}$/);
    assert.deepEqual(await ledgerOf(p.id), [
      { type: 'dispute', amount_minor: -50000, dispute_id: d.dispute_id },
    ]);
    const events = await disputeEvents(p.id);
    assert.equal(events.length, 2);
    assertEventBody(events[0] as Record<string, unknown>, 'dispute.opened', d, 'open');
    assertEventBody(events[1] as Record<string, unknown>, 'dispute.closed', d, 'lost');
    assert.deepEqual((events[0] as { metadata: unknown }).metadata, { order: 'O-1' });

    // Listed in the app's own feed, never delivered.
    const feed = await gw.v1(app, 'GET', '/v1/events?limit=100');
    const listed = feed
      .json<{ events: { event: string; payload: { dispute_id?: string }; delivery: unknown }[] }>()
      .events.filter((e) => e.payload.dispute_id === d.dispute_id);
    assert.deepEqual(
      listed.map((e) => [e.event, e.delivery]),
      [
        ['dispute.opened', null],
        ['dispute.closed', null],
      ],
    );

    assertText(
      await gw.v1(app, 'POST', '/v1/refunds', { payment_id: p.id }),
      422,
      'payment has a dispute (status lost)',
    );
    assertText(
      await gw.admin('POST', `/admin/payments/${p.id}/refund`, {}),
      422,
      'payment has a dispute (status lost)',
    );
    assert.deepEqual(await refundRows(p.id), []);
    // The transaction is charged back: a second chargeback is refused by the provider.
    assert.equal((await simPost('idr_psp', p.providerRef, 'chargeback')).status, 409);
  });

  test('a partial chargeback: the amount the bank took', async () => {
    const p = await paidPayment(gw, app, 'idr', 50000);
    const res = await simPost('idr_psp', p.providerRef, 'chargeback', { amount_minor: 20000 });
    assert.equal(JSON.parse(res.text).gateway_status, 200, res.text);
    const archive = await core.pool.query<{ event_type: string; outcome: string }>(
      'SELECT event_type, outcome FROM inbound_events WHERE payment_id = $1 ORDER BY id',
      [p.id],
    );
    assert.deepEqual(archive.rows.at(-1), {
      event_type: 'partial_chargeback',
      outcome: 'dispute_lost',
    });
    const d = await onlyDispute(p.id);
    assert.equal(d.status, 'lost');
    assert.equal(d.amount_minor, 20000);
    assert.deepEqual(await ledgerOf(p.id), [
      { type: 'dispute', amount_minor: -20000, dispute_id: d.dispute_id },
    ]);
    assert.equal((await disputeEvents(p.id)).length, 2);
    const tooMuch = await simPost(
      'idr_psp',
      (await paidPayment(gw, app, 'idr', 1000)).providerRef,
      'chargeback',
      {
        amount_minor: 1001,
      },
    );
    assertText(tooMuch, 409, 'amount_minor must be at most 1000');
  });

  test('a duplicated chargeback notification: one dispute, one ledger entry, one event per change', async () => {
    const p = await createPayment(gw, app, 'idr', 30000, { test_scenario: 'duplicate_webhook' });
    await simAction(gw, 'idr', p.providerRef, 'pay');
    const res = await simPost('idr_psp', p.providerRef, 'chargeback');
    assert.equal(JSON.parse(res.text).gateway_status, 200, res.text);
    const d = await onlyDispute(p.id);
    assert.equal(d.status, 'lost');
    assert.equal((await ledgerOf(p.id)).length, 1);
    assert.equal((await disputeEvents(p.id)).length, 2);
    const inbound = await core.pool.query<{ outcome: string }>(
      `SELECT outcome FROM inbound_events WHERE payment_id = $1 AND event_type = 'chargeback'
       ORDER BY id`,
      [p.id],
    );
    assert.deepEqual(
      inbound.rows.map((r) => r.outcome),
      ['dispute_lost', 'already_finalized'],
    );
  });

  test('a chargeback notification of another mode is refused like any mode mismatch', async () => {
    const p = await paidPayment(gw, app, 'idr', 7000);
    const res = await postWebhook(
      gw.url,
      'idr_psp',
      idrNotification(SANDBOX_KEY, {
        orderId: p.id,
        status: 'chargeback',
        grossAmount: 7000,
        statusCode: '200',
      }),
    );
    assertText(res, 401, 'bad signature');
    assert.deepEqual((await paymentDetail(p.id)).disputes, []);
    assert.deepEqual(await ledgerOf(p.id), []);
    // Signed with the test key but not what the provider says: nothing is recorded either.
    const claimed = await postWebhook(
      gw.url,
      'idr_psp',
      idrNotification(idrTestServerKey(gw.config.masterKey), {
        orderId: p.id,
        status: 'chargeback',
        grossAmount: 7000,
        statusCode: '200',
      }),
    );
    assert.equal(claimed.status, 200, claimed.text);
    assert.deepEqual((await paymentDetail(p.id)).disputes, []);
  });

  test('a chargeback racing a refund: exactly one of them takes the money, on record once', async () => {
    for (let i = 0; i < 4; i++) {
      const p = await paidPayment(gw, app, 'idr', 40000);
      const [cb, refund] = await Promise.all([
        simPost('idr_psp', p.providerRef, 'chargeback'),
        gw.v1(app, 'POST', '/v1/refunds', { payment_id: p.id }),
      ]);
      const detail = await paymentDetail(p.id);
      const refunds = await refundRows(p.id);
      const ledger = await ledgerOf(p.id);
      if (refund.status === 201) {
        // The refund reached the provider first: the bank had nothing left to take.
        assert.equal(cb.status, 409, cb.text);
        assert.deepEqual(detail.disputes, []);
        assert.deepEqual(ledger, []);
        assert.deepEqual(refunds, ['succeeded']);
      } else {
        assert.ok(
          (refund.status === 422 && refund.text === 'payment has a dispute (status lost)') ||
            refund.status === 502,
          `${refund.status} ${refund.text}`,
        );
        assert.equal(JSON.parse(cb.text).gateway_status, 200, cb.text);
        const d = await onlyDispute(p.id);
        assert.deepEqual(ledger, [
          { type: 'dispute', amount_minor: -40000, dispute_id: d.dispute_id },
        ]);
        assert.ok(!refunds.includes('succeeded'));
        assert.equal((await disputeEvents(p.id)).length, 2);
      }
    }
  });
});

describe('wallet_psp disputes and reversals', () => {
  test('a dispute opened then won: the money is held, then given back', async () => {
    const p = await paidPayment(gw, app, 'wallet', 2500);
    const opened = await simAction(gw, 'wallet', p.providerRef, 'dispute');
    assert.equal(opened.gateway_status, 200, opened.gateway_body);
    let d = await onlyDispute(p.id);
    assert.equal(d.provider, 'wallet_psp');
    assert.equal(d.status, 'open');
    assert.equal(d.amount_minor, 2500);
    assert.equal(d.currency, 'EUR');
    assert.equal(d.reason, 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED');
    assert.match(d.provider_ref, /^PP-D-\d{8}$/);
    assert.equal(d.closed_at, null);
    assert.ok(d.evidence_due_by && Date.parse(d.evidence_due_by) > Date.parse(d.opened_at));
    assert.deepEqual(await ledgerOf(p.id), [
      { type: 'dispute', amount_minor: -2500, dispute_id: d.dispute_id },
    ]);
    assertText(
      await gw.v1(app, 'POST', '/v1/refunds', { payment_id: p.id }),
      422,
      'payment has a dispute (status open)',
    );

    const won = await simAction(gw, 'wallet', p.providerRef, 'dispute_won');
    assert.equal(won.gateway_status, 200, won.gateway_body);
    d = await onlyDispute(p.id);
    assert.equal(d.status, 'won');
    assert.ok(d.closed_at);
    // The deadline the open case had stays on record.
    assert.ok(d.evidence_due_by);
    assert.deepEqual(await ledgerOf(p.id), [
      { type: 'dispute', amount_minor: -2500, dispute_id: d.dispute_id },
      { type: 'dispute_reversal', amount_minor: 2500, dispute_id: d.dispute_id },
    ]);
    const events = await disputeEvents(p.id);
    assert.equal(events.length, 2);
    assertEventBody(events[0] as Record<string, unknown>, 'dispute.opened', d, 'open');
    assertEventBody(events[1] as Record<string, unknown>, 'dispute.closed', d, 'won');
    // A won dispute does not refuse a refund.
    const refund = await gw.v1(app, 'POST', '/v1/refunds', { payment_id: p.id });
    assert.equal(refund.status, 201, refund.text);
  });

  test('a dispute lost, its creation redelivered after its resolution: never back to open', async () => {
    const p = await createPayment(gw, app, 'wallet', 1800, { test_scenario: 'out_of_order' });
    await simAction(gw, 'wallet', p.providerRef, 'pay');
    assert.equal((await paymentDetail(p.id)).status, 'succeeded');
    await simAction(gw, 'wallet', p.providerRef, 'dispute');
    const lost = await simAction(gw, 'wallet', p.providerRef, 'dispute_lost');
    assert.equal(lost.gateway_status, 200, lost.gateway_body);
    const d = await onlyDispute(p.id);
    assert.equal(d.status, 'lost');
    assert.deepEqual(await ledgerOf(p.id), [
      { type: 'dispute', amount_minor: -1800, dispute_id: d.dispute_id },
    ]);
    const events = await disputeEvents(p.id);
    assert.deepEqual(
      events.map((e) => [e.event, e.status]),
      [
        ['dispute.opened', 'open'],
        ['dispute.closed', 'lost'],
      ],
    );
    assertText(
      await gw.v1(app, 'POST', '/v1/refunds', { payment_id: p.id }),
      422,
      'payment has a dispute (status lost)',
    );
  });

  test('a duplicated dispute webhook: one dispute, one opened event', async () => {
    const p = await createPayment(gw, app, 'wallet', 900, { test_scenario: 'duplicate_webhook' });
    await simAction(gw, 'wallet', p.providerRef, 'pay');
    await simAction(gw, 'wallet', p.providerRef, 'dispute');
    const d = await onlyDispute(p.id);
    assert.equal(d.status, 'open');
    assert.equal((await ledgerOf(p.id)).length, 1);
    assert.deepEqual(
      (await disputeEvents(p.id)).map((e) => e.event),
      ['dispute.opened'],
    );
  });

  test('a reversal: lost at once', async () => {
    const p = await paidPayment(gw, app, 'wallet', 4200);
    const res = await simAction(gw, 'wallet', p.providerRef, 'reverse');
    assert.equal(res.gateway_status, 200, res.gateway_body);
    const d = await onlyDispute(p.id);
    assert.equal(d.status, 'lost');
    assert.equal(d.amount_minor, 4200);
    assert.equal(d.reason, 'CHARGEBACK');
    assert.match(d.provider_ref, /^[0-9A-Z]{17}$/);
    assert.deepEqual(await ledgerOf(p.id), [
      { type: 'dispute', amount_minor: -4200, dispute_id: d.dispute_id },
    ]);
    assert.deepEqual(
      (await disputeEvents(p.id)).map((e) => e.event),
      ['dispute.opened', 'dispute.closed'],
    );
  });
});

describe('a forged or edited dispute event', () => {
  test("another payment's case, or a case the provider does not know, records nothing", async () => {
    const victim = await paidPayment(gw, app, 'wallet', 3100);
    const disputed = await paidPayment(gw, app, 'wallet', 3100);
    await simAction(gw, 'wallet', disputed.providerRef, 'dispute');
    const [real] = await disputesOf(disputed.id);
    assert.ok(real);
    const cases = new SimStore<{ dispute: WpDispute }>(core.pool, 'wallet_psp', 'dispute');
    const stored = await cases.get(real.provider_ref);
    assert.ok(stored);
    const sim = walletPspSim(core, gw.simClock);
    const post = async (resource: WpDispute) => {
      const { headers, body } = await sim.signedEvent(
        'CUSTOMER.DISPUTE.RESOLVED',
        'dispute',
        resource,
        'A dispute was resolved',
      );
      const res = await fetch(`${gw.url}/webhooks/wallet_psp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
      return { status: res.status, text: await res.text() };
    };
    const tx = stored.dispute.disputed_transactions?.[0];
    // The real case relabelled as the victim's: the provider's dispute names another capture.
    const relabelled = await post({
      ...stored.dispute,
      status: 'RESOLVED',
      dispute_outcome: { outcome_code: 'RESOLVED_BUYER_FAVOUR' },
      disputed_transactions: [{ ...tx, custom: victim.id }],
    });
    assertText(
      relabelled,
      400,
      `bad reference: dispute ${JSON.stringify(real.provider_ref)} belongs to another payment`,
    );
    // A case id the provider never heard of: nothing confirmed.
    const invented = await post({
      ...stored.dispute,
      dispute_id: 'PP-D-00000000',
      disputed_transactions: [{ ...tx, custom: victim.id }],
    });
    assert.equal(invented.status, 200, invented.text);
    assert.deepEqual(await disputesOf(victim.id), []);
    assert.deepEqual(await ledgerOf(victim.id), []);
    // The real case is still open whatever the edited body said.
    assert.equal((await onlyDispute(disputed.id)).status, 'open');
  });
});

test('CUSTOMER.DISPUTE.UPDATED with a new deadline: the open dispute takes it, no new event', async () => {
  const p = await paidPayment(gw, app, 'wallet', 1200);
  await simAction(gw, 'wallet', p.providerRef, 'dispute');
  const [before] = await disputesOf(p.id);
  assert.ok(before?.evidence_due_by);
  const cases = new SimStore<{ dispute: WpDispute }>(core.pool, 'wallet_psp', 'dispute');
  const later = new Date(Date.parse(before.evidence_due_by) + 5 * 86_400_000);
  const updated = await cases.update(before.provider_ref, (c) => ({
    ...c,
    dispute: {
      ...c.dispute,
      status: 'UNDER_REVIEW',
      seller_response_due_date: later.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    },
  }));
  assert.ok(updated);
  const { headers, body } = await walletPspSim(core, gw.simClock).signedEvent(
    'CUSTOMER.DISPUTE.UPDATED',
    'dispute',
    updated.dispute,
    'A dispute was updated',
  );
  for (let i = 0; i < 2; i++) {
    const res = await fetch(`${gw.url}/webhooks/wallet_psp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    assert.equal(res.status, 200, await res.text());
  }
  const after = await onlyDispute(p.id);
  assert.equal(after.status, 'open');
  assert.equal(after.evidence_due_by, later.toISOString());
  assert.deepEqual(
    (await disputeEvents(p.id)).map((e) => e.event),
    ['dispute.opened'],
  );
  const outcomes = await core.pool.query<{ outcome: string }>(
    `SELECT outcome FROM inbound_events WHERE payment_id = $1
       AND event_type = 'CUSTOMER.DISPUTE.UPDATED' ORDER BY id`,
    [p.id],
  );
  assert.deepEqual(
    outcomes.rows.map((r) => r.outcome),
    ['dispute_updated', 'already_finalized'],
  );
});

test('a case first heard of already won: opened and closed, taken and given back on the ledger', async () => {
  const p = await paidPayment(gw, app, 'wallet', 700);
  const order = await walletPspSim(core, gw.simClock).orders.get(p.providerRef);
  const capture = order?.order.purchase_units[0]?.payments?.captures?.[0];
  assert.ok(order && capture);
  // The provider's case, resolved before any of its events reached the gateway.
  const dispute: WpDispute = {
    dispute_id: 'PP-D-70000001',
    create_time: '2026-11-20T10:00:00Z',
    update_time: '2026-11-24T10:00:00Z',
    disputed_transactions: [{ seller_transaction_id: capture.id, custom: p.id }],
    reason: 'UNAUTHORISED',
    status: 'RESOLVED',
    dispute_amount: { currency_code: 'EUR', value: '7.00' },
    dispute_outcome: { outcome_code: 'RESOLVED_SELLER_FAVOUR' },
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
  const { headers, body } = await walletPspSim(core, gw.simClock).signedEvent(
    'CUSTOMER.DISPUTE.RESOLVED',
    'dispute',
    dispute,
    'A dispute was resolved',
  );
  const res = await fetch(`${gw.url}/webhooks/wallet_psp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  assert.equal(res.status, 200, await res.text());
  const d = await onlyDispute(p.id);
  assert.equal(d.status, 'won');
  assert.equal(d.opened_at, '2026-11-20T10:00:00.000Z');
  assert.equal(d.amount_minor, 700);
  assert.deepEqual(await ledgerOf(p.id), [
    { type: 'dispute', amount_minor: -700, dispute_id: d.dispute_id },
    { type: 'dispute_reversal', amount_minor: 700, dispute_id: d.dispute_id },
  ]);
  assert.deepEqual(
    (await disputeEvents(p.id)).map((e) => [e.event, e.status]),
    [
      ['dispute.opened', 'open'],
      ['dispute.closed', 'won'],
    ],
  );
});

async function disputesOf(paymentId: string): Promise<DisputeView[]> {
  return (await paymentDetail(paymentId)).disputes;
}

describe('GET /admin/disputes', () => {
  test('newest first, paged, filtered', async () => {
    const all = await gw.admin('GET', '/admin/disputes?limit=1000');
    assert.equal(all.status, 200, all.text);
    const list = all.json<{ mode: string; disputes: DisputeView[] }>();
    assert.equal(list.mode, '');
    assert.ok(list.disputes.length >= 3);
    const opened = list.disputes.map((d) => Date.parse(d.opened_at));
    assert.deepEqual(
      opened,
      [...opened].sort((a, b) => b - a),
    );

    const first = (await gw.admin('GET', '/admin/disputes?limit=1')).json<{
      disputes: DisputeView[];
    }>().disputes;
    assert.equal(first.length, 1);
    const next = (
      await gw.admin('GET', `/admin/disputes?limit=1&before=${first[0]?.dispute_id}`)
    ).json<{ disputes: DisputeView[] }>().disputes;
    assert.deepEqual(next, list.disputes.slice(1, 2));

    for (const [query, keep] of [
      ['status=lost', (d: DisputeView) => d.status === 'lost'],
      ['provider=wallet_psp', (d: DisputeView) => d.provider === 'wallet_psp'],
      [`app_id=${app.app_id}`, () => true],
      // The app is a test one: with another mode, or unknown, none (answered without a scan).
      [`app_id=${app.app_id}&mode=live`, () => false],
      [`app_id=${app.app_id}&mode=test`, () => true],
      ['app_id=app_unknown', () => false],
      ['mode=live', () => false],
      ['mode=test', () => true],
    ] as const) {
      const res = await gw.admin('GET', `/admin/disputes?limit=1000&${query}`);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        res.json<{ disputes: DisputeView[] }>().disputes,
        list.disputes.filter(keep),
        query,
      );
    }
  });

  test('every error row, exact status and body', async () => {
    const cases: [string, number, string][] = [
      ['/admin/disputes?status=pending', 400, 'status must be one of open, won, lost'],
      [
        '/admin/disputes?provider=acme',
        400,
        'provider must be one of idr_psp, card_psp, wallet_psp',
      ],
      ['/admin/disputes?limit=0', 400, 'limit must be an integer from 1 to 1000'],
      ['/admin/disputes?limit=x', 400, 'limit must be an integer from 1 to 1000'],
      [
        `/admin/disputes?before=${'0'.repeat(32)}`,
        400,
        'before must be a dispute id from a previous page',
      ],
      ['/admin/disputes?before=nope', 400, 'before must be a dispute id from a previous page'],
      [
        `/admin/disputes?app_id=${'a'.repeat(65)}`,
        400,
        'app_id must be at most 64 characters of text',
      ],
      [`/admin/disputes/${'0'.repeat(32)}`, 404, 'dispute not found'],
      ['/admin/disputes/not-an-id', 404, 'dispute not found'],
    ];
    for (const [path, status, text] of cases) assertText(await gw.admin('GET', path), status, text);
    assertText(
      await gw.admin('GET', '/admin/disputes', undefined, 'wrong-token'),
      401,
      'unauthorized',
    );
  });
});
