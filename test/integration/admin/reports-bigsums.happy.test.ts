/**
 * Sums past 2^63 (issue 10 defect 6). A payment may be as large as 2^53-1 minor units (IDR
 * has no minor unit), so 1,025 of them in one day pass 2^63: the daily rollup must hold that
 * sum, and every report answers it exactly, as a JSON integer with its exact digits (D14).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertStatus, sql } from '../../helpers/core.js';
import { parseExactJson } from '../../helpers/exactJson.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

const DAY = 86_400_000;
const MAX = BigInt(Number.MAX_SAFE_INTEGER); // 2^53-1, the largest amount_minor accepted
const PER_DAY = 1100;
const DAY_SUM = MAX * BigInt(PER_DAY);
const REFUND = 5n;

let gw: TestGateway;
let today: number;

/** PER_DAY succeeded IDR payments of the largest amount, finalized at `at` + i ms. */
async function insertDay(appId: string, tag: string, at: number): Promise<void> {
  await sql(
    gw.databaseUrl,
    `INSERT INTO payments (id, app_id, mode, status, amount_minor, currency, method, provider,
       provider_ref, external_user_id, return_url, finalized_at, created_at, updated_at)
     SELECT md5($2 || i), $1, 'live', 'succeeded', $3, 'IDR', 'qris', 'idr_psp', 'ref-' || $2 || i,
       'buyer', 'https://shop.example/', to_timestamp(($4::bigint + i) / 1000.0),
       to_timestamp(($4::bigint + i) / 1000.0), to_timestamp(($4::bigint + i) / 1000.0)
     FROM generate_series(1, $5) AS i`,
    [appId, tag, MAX.toString(), at, PER_DAY],
  );
}

before(async () => {
  gw = await startTestGateway();
  const app = await gw.createApp({ name: 'Big IDR shop', mode: 'live' });
  today = Math.floor(Date.now() / DAY) * DAY;
  // Two days ago: a closed day, answered from the daily rollup. Today: from the rows.
  await insertDay(app.app_id, 'closed-', today - 2 * DAY + 1000);
  await insertDay(app.app_id, 'today-', Math.max(today, Date.now() - 60_000 - PER_DAY));
  await sql(
    gw.databaseUrl,
    `INSERT INTO refunds (id, payment_id, app_id, mode, status, amount_minor, currency, provider,
       provider_ref, reason, succeeded_at, created_at, updated_at)
     VALUES (md5('refund-1'), md5('closed-1'), $1, 'live', 'succeeded', $2, 'IDR', 'idr_psp',
       'rref-1', 'test', $3, $3, $3)`,
    [app.app_id, REFUND.toString(), new Date(today - 2 * DAY + 5000)],
  );
  // Rows written past the gateway are booked as the migration booked the existing ones: the
  // net is the ledger's sum (docs/api.md#ledger).
  await sql(gw.databaseUrl, 'SELECT ledger_backfill()');
});
after(() => gw?.stop());

test('the day passes 2^63', () => {
  assert.ok(DAY_SUM > 2n ** 63n);
});

test('summary over a closed day (rollup) and today (rows): 200 with exact JSON integers', async () => {
  for (const q of ['?days=3', '?days=3&mode=live']) {
    // The first read materializes the closed day into report_daily, the second reads it back.
    for (let round = 0; round < 2; round++) {
      const res = await gw.admin('GET', `/admin/summary${q}`);
      assertStatus(res, 200);
      // The exact digits in the text itself: no string, no rounding through a double.
      assert.ok(res.text.includes(`"succeeded_minor":${2n * DAY_SUM},`), res.text);
      assert.ok(res.text.includes(`"net_minor":${2n * DAY_SUM - REFUND},`), res.text);
      const body = parseExactJson<{
        by_currency: Record<string, unknown>[];
        by_provider: Record<string, unknown>[];
        by_app: Record<string, unknown>[];
      }>(res.text);
      const idr = body.by_currency.find((c) => c.currency === 'IDR');
      assert.deepEqual(idr, {
        currency: 'IDR',
        succeeded_count: 2 * PER_DAY,
        succeeded_minor: 2n * DAY_SUM,
        refunded_count: 1,
        refunded_minor: Number(REFUND),
        net_minor: 2n * DAY_SUM - REFUND,
        disputed_minor: 0,
        failed_count: 0,
        canceled_count: 0,
        initiated_count: 0,
      });
      assert.equal(
        body.by_provider.find((p) => p.provider === 'idr_psp')?.succeeded_minor,
        2n * DAY_SUM,
      );
      assert.equal(body.by_app[0]?.succeeded_minor, 2n * DAY_SUM);
      // Zero and small sums are JSON numbers: one type for the field, whatever its size.
      const usd = body.by_currency.find((c) => c.currency === 'USD');
      assert.equal(typeof usd?.succeeded_minor, 'number');
      assert.equal(usd?.succeeded_minor, 0);
      assert.equal(typeof idr?.refunded_minor, 'number');
    }
  }
  const stored = await sql<{ succeeded_minor: string }>(
    gw.databaseUrl,
    `SELECT succeeded_minor::text FROM report_daily WHERE currency = 'IDR'`,
  );
  assert.deepEqual(
    stored.map((r) => r.succeeded_minor),
    [DAY_SUM.toString()],
  );
});

test('timeseries: the closed day and today each exact', async () => {
  const res = await gw.admin('GET', '/admin/timeseries?days=3');
  assertStatus(res, 200);
  assert.ok(res.text.includes(`"succeeded_minor":${DAY_SUM}}`), res.text);
  const body = parseExactJson<{ buckets: Record<string, unknown>[] }>(res.text);
  const idr = body.buckets.filter((b) => b.currency === 'IDR');
  const ymd = (t: number) => new Date(t).toISOString().slice(0, 10);
  assert.deepEqual(idr, [
    {
      day: ymd(today - 2 * DAY),
      currency: 'IDR',
      succeeded_count: PER_DAY,
      succeeded_minor: DAY_SUM,
    },
    { day: ymd(today - DAY), currency: 'IDR', succeeded_count: 0, succeeded_minor: 0 },
    {
      day: ymd(today),
      currency: 'IDR',
      succeeded_count: PER_DAY,
      succeeded_minor: DAY_SUM,
    },
  ]);
});

test('balances: the calculated figure is exact', async () => {
  const res = await gw.admin('GET', '/admin/balances');
  assertStatus(res, 200);
  assert.ok(res.text.includes(`"available_minor":${2n * DAY_SUM - REFUND}}`), res.text);
  const body = parseExactJson<{ balances: Record<string, unknown>[] }>(res.text);
  const idr = body.balances.find((b) => b.provider === 'idr_psp' && b.mode === 'live');
  assert.deepEqual(idr, {
    provider: 'idr_psp',
    mode: 'live',
    source: 'calculated',
    currency: 'IDR',
    available_minor: 2n * DAY_SUM - REFUND,
  });
});
