/**
 * The ledger over real HTTP (docs/api.md#ledger): each movement the gateway records is
 * booked with it (a charge with PayPal's fee, a refund, a late charge and its refund), and
 * GET /admin/ledger lists them newest first with filters, paging and exact 400s. The summary
 * nets a refunded late charge to zero.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import {
  assertError,
  assertStatus,
  assertTimestamp,
  paymentBody,
  sql,
} from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { idrNotification, idrTestServerKey, postWebhook } from '../../helpers/idrNotify.js';
import { paidPayment } from '../../helpers/payments.js';

interface Entry {
  id: string;
  type: string;
  payment_id: string;
  refund_id: string | null;
  dispute_id: string | null;
  exception_id: string | null;
  app_id: string;
  provider: string;
  mode: string;
  currency: string;
  amount_minor: number;
  fee_minor: number | null;
  occurred_at: string;
}

let gw: TestGateway;
let shop: AppWithSecrets;
let late: AppWithSecrets;

before(async () => {
  gw = await startTestGateway();
  shop = await gw.createApp({ name: 'Shop' });
  late = await gw.createApp({ name: 'Late charges' });
});
after(async () => {
  await gw?.stop();
});

async function ledger(query = ''): Promise<Entry[]> {
  const res = await gw.admin('GET', `/admin/ledger${query}`);
  assertStatus(res, 200);
  return res.json<{ entries: Entry[] }>().entries;
}

const strip = (e: Entry) => ({ ...e, id: '', occurred_at: '' });

test('a charge with the provider fee, then a refund: booked with the change, listed newest first', async () => {
  const p = await paidPayment(gw, shop, 'wallet', 10_000);
  const refund = await gw.v1(shop, 'POST', '/v1/refunds', {
    payment_id: p.id,
    amount_minor: 1000,
  });
  assert.equal(refund.status, 201, refund.text);
  const refundId = refund.json<{ refund_id: string }>().refund_id;

  const entries = await ledger(`?app_id=${shop.app_id}`);
  for (const e of entries) {
    assert.match(e.id, /^[0-9a-f]{32}$/);
    assertTimestamp(e.occurred_at);
  }
  const base = {
    id: '',
    payment_id: p.id,
    dispute_id: null,
    exception_id: null,
    app_id: shop.app_id,
    provider: 'wallet_psp',
    mode: 'test',
    currency: 'EUR',
    occurred_at: '',
  };
  assert.deepEqual(entries.map(strip), [
    { ...base, type: 'refund', refund_id: refundId, amount_minor: -1000, fee_minor: null },
    // The simulator's PayPal fee: 3.49% of 100.00 EUR plus 0.49, from the capture's
    // seller_receivable_breakdown.paypal_fee.
    { ...base, type: 'charge', refund_id: null, amount_minor: 10_000, fee_minor: 398 },
  ]);
  const [newer, older] = entries as [Entry, Entry];
  assert.ok(newer.occurred_at >= older.occurred_at);
  // The charge's time is the payment's finalization, in the same statement.
  const [row] = await sql<{ same: boolean }>(
    gw.databaseUrl,
    `SELECT p.finalized_at = l.occurred_at AS same FROM payments p
     JOIN ledger_entries l ON l.payment_id = p.id AND l.type = 'charge' WHERE p.id = $1`,
    [p.id],
  );
  assert.deepEqual(row, { same: true });
});

test('a late charge refunded at once: late_charge and late_charge_refund net to zero in the summary', async () => {
  const created = await gw.v1(
    late,
    'POST',
    '/v1/payments',
    paymentBody({ currency: 'IDR', method: 'qris', amount_minor: 25_000 }),
  );
  assert.equal(created.status, 201, created.text);
  const id = created.json<{ payment_id: string }>().payment_id;
  assert.equal((await gw.admin('POST', `/admin/payments/${id}/cancel`)).status, 200);
  // The provider settles the transaction anyway (a late confirmation from the paying bank).
  await sql(
    gw.databaseUrl,
    `UPDATE paygate_sim.sim_objects SET data = data || '{"transaction_status":"settlement"}'::jsonb
     WHERE provider = 'idr_psp' AND kind = 'transaction' AND id = $1`,
    [id],
  );
  const notification = idrNotification(idrTestServerKey(gw.running.gw.config.masterKey), {
    orderId: id,
    status: 'settlement',
    grossAmount: 25_000,
  });
  // Redelivered at once: booked once all the same.
  await Promise.all(Array.from({ length: 4 }, () => postWebhook(gw.url, 'idr_psp', notification)));
  const entries = await ledger(`?app_id=${late.app_id}`);
  const exceptions = await gw.admin('GET', '/admin/exceptions');
  const exception = exceptions
    .json<{ exceptions: { id: string; payment_id: string }[] }>()
    .exceptions.find((e) => e.payment_id === id);
  assert.ok(exception);
  const [refund] = await sql<{ id: string }>(
    gw.databaseUrl,
    'SELECT id FROM refunds WHERE payment_id = $1',
    [id],
  );
  assert.ok(refund);
  const base = {
    id: '',
    payment_id: id,
    dispute_id: null,
    exception_id: exception.id,
    app_id: late.app_id,
    provider: 'idr_psp',
    mode: 'test',
    currency: 'IDR',
    fee_minor: null,
    occurred_at: '',
  };
  assert.deepEqual(entries.map(strip), [
    { ...base, type: 'late_charge_refund', refund_id: refund.id, amount_minor: -25_000 },
    { ...base, type: 'late_charge', refund_id: null, amount_minor: 25_000 },
  ]);

  const summary = await gw.admin('GET', '/admin/summary?mode=test');
  assertStatus(summary, 200);
  const app = summary
    .json<{ by_app: Record<string, unknown>[] }>()
    .by_app.find((a) => a.app_id === late.app_id);
  // D16: the refunded late charge nets to zero; the refund still counts as refunded.
  assert.equal(app?.net_minor, 0);
  assert.equal(app?.succeeded_minor, 0);
  assert.equal(app?.refunded_minor, 25_000);
  assert.equal(app?.disputed_minor, 0);
});

test('filters, paging and the database as the source', async () => {
  const all = await ledger('?limit=1000');
  const [rows] = await sql<{ n: number }>(
    gw.databaseUrl,
    'SELECT count(*)::int AS n FROM ledger_entries',
  );
  assert.equal(all.length, rows?.n);
  // Newest first by (occurred_at, id).
  for (let i = 1; i < all.length; i++) {
    const [a, b] = [all[i - 1] as Entry, all[i] as Entry];
    assert.ok(a.occurred_at > b.occurred_at || (a.occurred_at === b.occurred_at && a.id > b.id));
  }
  // Paging one at a time walks the same list.
  const paged: Entry[] = [];
  let before = '';
  for (;;) {
    const page = await ledger(`?limit=1${before ? `&before=${before}` : ''}`);
    if (page.length === 0) break;
    paged.push(...page);
    before = (page[0] as Entry).id;
  }
  assert.deepEqual(paged, all);

  const only = async (q: string, keep: (e: Entry) => boolean) =>
    assert.deepEqual(await ledger(q), all.filter(keep));
  await only('?provider=idr_psp', (e) => e.provider === 'idr_psp');
  await only('?currency=EUR', (e) => e.currency === 'EUR');
  await only('?type=late_charge', (e) => e.type === 'late_charge');
  await only(
    `?app_id=${shop.app_id}&type=charge`,
    (e) => e.app_id === shop.app_id && e.type === 'charge',
  );
  await only('?mode=live', () => false);
  // An unknown mode is no filter, as in every admin list (docs/api.md#query-parameters).
  await only('?mode=LIVE', () => true);
  await only('?app_id=nobody', () => false);
  const oldest = all[all.length - 1] as Entry;
  await only(`?until=${oldest.occurred_at}`, (e) => e.occurred_at < oldest.occurred_at);
  await only(`?since=${oldest.occurred_at}`, (e) => e.occurred_at >= oldest.occurred_at);
  await only('?since=2000-01-01&until=2000-01-02', () => false);
});

test('400s: exact texts for every bad value', async () => {
  const bad: [string, string][] = [
    ['limit=0', 'limit must be an integer from 1 to 1000'],
    ['limit=x', 'limit must be an integer from 1 to 1000'],
    ['provider=paypal', 'provider must be one of idr_psp, card_psp, wallet_psp'],
    ['currency=JPY', 'currency must be one of EUR, GBP, IDR, USD'],
    [
      'type=chargeback',
      'type must be one of charge, refund, dispute, dispute_reversal, late_charge, late_charge_refund',
    ],
    [`app_id=${'a'.repeat(65)}`, 'app_id must be at most 64 characters of text'],
    ['since=yesterday', 'since must be an RFC 3339 timestamp or a date YYYY-MM-DD (UTC)'],
    ['until=2025-02-30', 'until must be an RFC 3339 timestamp or a date YYYY-MM-DD (UTC)'],
    ['since=2025-01-02&until=2025-01-01', 'since must not be after until'],
    ['before=nope', 'before must be a ledger entry id from a previous page'],
    [`before=${'0'.repeat(32)}`, 'before must be a ledger entry id from a previous page'],
  ];
  for (const [q, text] of bad) assertError(await gw.admin('GET', `/admin/ledger?${q}`), 400, text);
  // Admin only: an app's credentials never reach it.
  const asApp = await gw.v1(shop, 'GET', '/admin/ledger');
  assert.equal(asApp.status, 401, asApp.text);
});
