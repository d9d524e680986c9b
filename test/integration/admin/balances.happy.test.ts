/**
 * GET /admin/balances and GET /admin/payouts: wallet_psp's figures come from the provider
 * (its simulator in test mode), the others are calculated from the gateway's records; a
 * failing provider call still shows the calculated figure and says why.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertStatus, RFC3339_UTC, sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { paidPayment } from '../../helpers/payments.js';

let gw: TestGateway;
let testApp: AppWithSecrets;
let liveApp: AppWithSecrets;
let sandboxApp: AppWithSecrets;

const hex = (s: string) => createHash('md5').update(s).digest('hex');

async function insertPayment(
  app: AppWithSecrets,
  key: string,
  provider: string,
  currency: string,
  amount: number,
  status = 'succeeded',
): Promise<string> {
  const id = hex(key);
  await sql(
    gw.databaseUrl,
    `INSERT INTO payments (id, app_id, mode, status, amount_minor, currency, method, provider,
       external_user_id, return_url, finalized_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'buyer', 'https://shop.example/',
       now() - interval '3 days', now() - interval '3 days')`,
    [
      id,
      app.app_id,
      app.mode,
      status,
      amount,
      currency,
      provider === 'idr_psp' ? 'qris' : provider,
      provider,
    ],
  );
  return id;
}

async function insertRefund(
  app: AppWithSecrets,
  paymentId: string,
  provider: string,
  currency: string,
  amount: number,
  status = 'succeeded',
) {
  await sql(
    gw.databaseUrl,
    `INSERT INTO refunds (id, payment_id, app_id, mode, status, amount_minor, currency, provider,
       succeeded_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, CASE WHEN $5 = 'succeeded' THEN now() END)`,
    [
      hex(`refund-${paymentId}-${status}`),
      paymentId,
      app.app_id,
      app.mode,
      status,
      amount,
      currency,
      provider,
    ],
  );
}

before(async () => {
  gw = await startTestGateway({
    // A live wallet_psp endpoint nobody answers: its balance call fails.
    WALLET_PSP_LIVE_BASE_URL: 'http://127.0.0.1:9',
    WALLET_PSP_LIVE_CLIENT_ID: 'live-client',
    WALLET_PSP_LIVE_CLIENT_SECRET: 'live-secret',
    WALLET_PSP_LIVE_WEBHOOK_ID: 'WH-LIVE',
    PROVIDER_TIMEOUT_MS: '2000',
  });
  testApp = await gw.createApp({ name: 'Test shop', mode: 'test' });
  liveApp = await gw.createApp({ name: 'Live shop', mode: 'live' });
  sandboxApp = await gw.createApp({ name: 'Sandbox shop', mode: 'sandbox' });

  // Real test-mode wallet payments through the simulator, one partly refunded.
  await paidPayment(gw, testApp, 'wallet', 1234);
  const second = await paidPayment(gw, testApp, 'wallet', 5000);
  const refund = await gw.v1(testApp, 'POST', '/v1/refunds', {
    payment_id: second.id,
    amount_minor: 1000,
  });
  assert.equal(refund.status, 201, refund.text);
  assert.equal(refund.json<{ status: string }>().status, 'succeeded');

  // Records of the other providers and modes, written directly.
  const idr = await insertPayment(testApp, 'idr-1', 'idr_psp', 'IDR', 15000);
  await insertPayment(testApp, 'idr-2', 'idr_psp', 'IDR', 25000);
  await insertRefund(testApp, idr, 'idr_psp', 'IDR', 15000, 'failed');
  await insertPayment(testApp, 'idr-3', 'idr_psp', 'IDR', 7000, 'failed');
  const card = await insertPayment(liveApp, 'card-1', 'card_psp', 'USD', 999);
  await insertRefund(liveApp, card, 'card_psp', 'USD', 100);
  await insertPayment(liveApp, 'card-2', 'card_psp', 'GBP', 500);
  await insertPayment(liveApp, 'wallet-live', 'wallet_psp', 'USD', 4321);
  await insertPayment(sandboxApp, 'wallet-sandbox', 'wallet_psp', 'EUR', 777);
  // Rows written past the gateway are booked as the migration booked the existing ones: the
  // calculated balance is the ledger's sum (docs/api.md#ledger).
  await sql(gw.databaseUrl, 'SELECT ledger_backfill()');
});
after(async () => {
  await gw?.stop();
});

interface Balance {
  provider: string;
  mode: string;
  source: string;
  currency: string;
  available_minor: number;
  as_of?: string;
  error?: string;
}

async function getBalances(): Promise<{ balances: Balance[]; errors: Record<string, string>[] }> {
  const res = await gw.admin('GET', '/admin/balances');
  assertStatus(res, 200);
  return res.json();
}

describe('GET /admin/balances', () => {
  test('real for wallet_psp, calculated for the rest, per mode; failures say why', async () => {
    const body = await getBalances();
    const real = body.balances.find((b) => b.source === 'real');
    assert.ok(real?.as_of);
    assert.match(real.as_of, RFC3339_UTC);
    const liveError = body.balances.find(
      (b) => b.provider === 'wallet_psp' && b.mode === 'live',
    )?.error;
    assert.match(liveError ?? '', /^balance request failed: wallet_psp unreachable/);
    assert.deepEqual(body.balances, [
      {
        provider: 'card_psp',
        mode: 'live',
        source: 'calculated',
        currency: 'GBP',
        available_minor: 500,
      },
      {
        provider: 'card_psp',
        mode: 'live',
        source: 'calculated',
        currency: 'USD',
        available_minor: 899,
      },
      {
        provider: 'idr_psp',
        mode: 'test',
        source: 'calculated',
        currency: 'IDR',
        available_minor: 40000,
      },
      {
        provider: 'wallet_psp',
        mode: 'test',
        source: 'real',
        currency: 'EUR',
        available_minor: 5234,
        as_of: real.as_of,
      },
      {
        provider: 'wallet_psp',
        mode: 'sandbox',
        source: 'calculated',
        currency: 'EUR',
        available_minor: 777,
        error: 'wallet_psp is not configured for sandbox mode',
      },
      {
        provider: 'wallet_psp',
        mode: 'live',
        source: 'calculated',
        currency: 'USD',
        available_minor: 4321,
        error: liveError,
      },
    ]);
    // A calculated balance has no as_of key at all (docs/api.md#balances).
    for (const b of body.balances.filter((x) => x.source === 'calculated')) {
      assert.equal(Object.hasOwn(b, 'as_of'), false);
    }
    assert.deepEqual(body.errors, [
      {
        provider: 'wallet_psp',
        mode: 'sandbox',
        error: 'wallet_psp is not configured for sandbox mode',
      },
      { provider: 'wallet_psp', mode: 'live', error: liveError },
    ]);
  });

  test('a payout at the provider lowers its real balance; mode query is ignored', async () => {
    const res = await fetch(`${gw.url}/sim/wallet_psp/payouts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ currency: 'EUR', amount_minor: 2000 }),
    });
    assert.equal(res.status, 201, await res.clone().text());
    const body = await getBalances();
    const wallet = body.balances.find((b) => b.provider === 'wallet_psp' && b.mode === 'test');
    assert.equal(wallet?.available_minor, 3234);
    const again = await gw.admin('GET', '/admin/balances?mode=live');
    assert.equal(again.json<{ balances: Balance[] }>().balances.length, body.balances.length);
  });
});

interface PayoutsBody {
  since: string;
  until: string;
  payouts: {
    provider: string;
    mode?: string;
    source: string;
    items: Record<string, unknown>[];
    error?: string;
  }[];
}

describe('GET /admin/payouts', () => {
  test('wallet_psp real per configured mode, the others api_unavailable', async () => {
    // Another payout (the rest) so there are two, oldest first.
    const res = await fetch(`${gw.url}/sim/wallet_psp/payouts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ currency: 'EUR' }),
    });
    const rest = (await res.json()) as { id: string; amount_minor: number };
    assert.equal(rest.amount_minor, 3234);
    const over = await fetch(`${gw.url}/sim/wallet_psp/payouts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ currency: 'EUR', amount_minor: 1 }),
    });
    assert.equal(over.status, 422);

    // 90 days back: the adapter searches in 31-day windows.
    const since = new Date(Date.now() - 90 * 86_400_000).toISOString();
    const payouts = await gw.admin('GET', `/admin/payouts?since=${since}`);
    assertStatus(payouts, 200);
    const body = payouts.json<PayoutsBody>();
    assert.equal(body.since, since);
    assert.match(body.until, RFC3339_UTC);
    const [idr, card, walletTest, walletLive] = body.payouts;
    assert.deepEqual(idr, { provider: 'idr_psp', source: 'api_unavailable', items: [] });
    assert.deepEqual(card, { provider: 'card_psp', source: 'api_unavailable', items: [] });
    assert.equal(walletTest?.provider, 'wallet_psp');
    assert.equal(walletTest?.mode, 'test');
    assert.equal(walletTest?.source, 'real');
    assert.deepEqual(
      walletTest?.items.map((i) => [i.status, i.currency, i.amount_minor]),
      [
        ['succeeded', 'EUR', 2000],
        ['succeeded', 'EUR', 3234],
      ],
    );
    assert.equal(walletTest?.items[1]?.id, rest.id);
    for (const item of walletTest?.items ?? []) {
      assert.match(String(item.initiated_at), RFC3339_UTC);
      assert.match(String(item.updated_at), RFC3339_UTC);
    }
    assert.equal(walletLive?.mode, 'live');
    assert.equal(walletLive?.source, 'real');
    assert.deepEqual(walletLive?.items, []);
    assert.match(walletLive?.error ?? '', /^payout request failed: wallet_psp unreachable/);
    assert.equal(body.payouts.length, 4);

    // The balance is now zero for EUR.
    const balances = await getBalances();
    assert.equal(
      balances.balances.find((b) => b.provider === 'wallet_psp' && b.mode === 'test')
        ?.available_minor,
      0,
    );
  });

  test('a window before the payouts has none', async () => {
    const res = await gw.admin('GET', '/admin/payouts?since=2020-01-01&until=2020-02-01');
    const body = res.json<PayoutsBody>();
    assert.equal(body.since, '2020-01-01T00:00:00.000Z');
    assert.equal(body.until, '2020-02-01T00:00:00.000Z');
    assert.deepEqual(body.payouts.find((p) => p.mode === 'test')?.items, []);
  });
});
