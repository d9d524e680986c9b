/**
 * The rollups behind the summary (docs/performance.md, "The ledger"): whole months from
 * report_monthly, other closed days from report_daily, payments still initiated per created
 * day in both. Over 75 days of rows written with SQL (as an import would), the summary must
 * equal the plain aggregate of the rows, also after a payment of a closed month leaves
 * initiated and after an operator's correction of a closed day.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertStatus, sql } from '../../helpers/core.js';
import { parseExactJson } from '../../helpers/exactJson.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

const DAY = 86_400_000;
const BACK = 75;

let gw: TestGateway;
let appId: string;
let since: string;

interface Figures {
  currency: string;
  succeeded_count: number;
  succeeded_minor: number;
  refunded_count: number;
  refunded_minor: number;
  net_minor: number;
  disputed_minor: number;
  failed_count: number;
  canceled_count: number;
  initiated_count: number;
}

before(async () => {
  gw = await startTestGateway();
  appId = (await gw.createApp({ name: 'Rollup shop', mode: 'live' })).app_id;
  const today = Math.floor(Date.now() / DAY) * DAY;
  since = new Date(today - BACK * DAY).toISOString();
  // 40 payments a day for BACK days and today: statuses and currencies by g, a refund of every
  // seventh succeeded one, a lost dispute of every 13th.
  await sql(
    gw.databaseUrl,
    `INSERT INTO payments (id, app_id, mode, status, amount_minor, currency, method, provider,
       provider_ref, external_user_id, return_url, finalized_at, created_at, updated_at)
     SELECT md5('rollup-' || g), $1, 'live', s.status, 100 + g, s.cur, 'card_psp', 'card_psp',
       'ref-rollup-' || g, 'buyer', 'https://shop.example/',
       CASE WHEN s.status = 'initiated' THEN NULL ELSE t.at + interval '3 seconds' END, t.at, t.at
     FROM generate_series(1, $2::int * 40) g
     CROSS JOIN LATERAL (SELECT least(now() - interval '2 minutes',
       to_timestamp($3::bigint / 1000.0) + (g / 40) * interval '1 day'
         + (g % 40) * interval '31 minutes') AS at) t
     CROSS JOIN LATERAL (SELECT (ARRAY['succeeded','succeeded','failed','canceled','initiated'])[g % 5 + 1]
       AS status, (ARRAY['USD','EUR'])[g % 2 + 1] AS cur) s`,
    [appId, BACK + 1, today - BACK * DAY],
  );
  await sql(
    gw.databaseUrl,
    `INSERT INTO refunds (id, payment_id, app_id, mode, status, amount_minor, currency, provider,
       provider_ref, reason, succeeded_at, created_at, updated_at)
     SELECT md5('rollup-refund-' || id), id, app_id, mode, 'succeeded', 50, currency, provider,
       'rref-' || id, 'test', finalized_at + interval '1 hour', finalized_at, finalized_at
     FROM payments WHERE app_id = $1 AND status = 'succeeded' AND amount_minor % 7 = 0
       AND finalized_at < now() - interval '2 hours'`,
    [appId],
  );
  await sql(gw.databaseUrl, 'SELECT ledger_backfill()');
  await sql(
    gw.databaseUrl,
    `INSERT INTO ledger_entries (id, type, payment_id, dispute_id, app_id, provider, mode,
       currency, amount_minor, occurred_at)
     SELECT md5('rollup-dispute-' || id), 'dispute', id, md5('d-' || id), app_id, provider, mode,
       currency, -amount_minor, finalized_at + interval '2 hours'
     FROM payments WHERE app_id = $1 AND status = 'succeeded' AND amount_minor % 13 = 0
       AND finalized_at < now() - interval '3 hours'`,
    [appId],
  );
});
after(() => gw?.stop());

/** The plain aggregate of the rows over [since, now), per currency. */
async function fromRows(): Promise<Figures[]> {
  const rows = await sql<Record<string, string>>(
    gw.databaseUrl,
    `WITH w AS (SELECT $2::timestamptz AS since, now() AS until)
     SELECT c.currency,
       (SELECT count(*) FROM payments p, w WHERE p.app_id = $1 AND p.currency = c.currency
          AND p.status = 'succeeded' AND p.finalized_at >= w.since AND p.finalized_at < w.until) sc,
       (SELECT coalesce(sum(amount_minor), 0) FROM payments p, w WHERE p.app_id = $1
          AND p.currency = c.currency AND p.status = 'succeeded'
          AND p.finalized_at >= w.since AND p.finalized_at < w.until) sm,
       (SELECT count(*) FROM refunds r, w WHERE r.app_id = $1 AND r.currency = c.currency
          AND r.status = 'succeeded' AND r.succeeded_at >= w.since AND r.succeeded_at < w.until) rc,
       (SELECT coalesce(sum(amount_minor), 0) FROM refunds r, w WHERE r.app_id = $1
          AND r.currency = c.currency AND r.status = 'succeeded'
          AND r.succeeded_at >= w.since AND r.succeeded_at < w.until) rm,
       (SELECT coalesce(sum(amount_minor), 0) FROM ledger_entries l, w WHERE l.app_id = $1
          AND l.currency = c.currency AND l.occurred_at >= w.since AND l.occurred_at < w.until) nm,
       (SELECT -coalesce(sum(amount_minor), 0) FROM ledger_entries l, w WHERE l.app_id = $1
          AND l.currency = c.currency AND l.type IN ('dispute', 'dispute_reversal')
          AND l.occurred_at >= w.since AND l.occurred_at < w.until) dm,
       (SELECT count(*) FROM payments p, w WHERE p.app_id = $1 AND p.currency = c.currency
          AND p.status = 'failed' AND p.finalized_at >= w.since AND p.finalized_at < w.until) fc,
       (SELECT count(*) FROM payments p, w WHERE p.app_id = $1 AND p.currency = c.currency
          AND p.status = 'canceled' AND p.finalized_at >= w.since AND p.finalized_at < w.until) cc,
       (SELECT count(*) FROM payments p, w WHERE p.app_id = $1 AND p.currency = c.currency
          AND p.status = 'initiated' AND p.created_at >= w.since AND p.created_at < w.until) ic
     FROM (VALUES ('EUR'), ('USD')) c (currency) ORDER BY 1`,
    [appId, since],
  );
  return rows.map((r) => ({
    currency: String(r.currency),
    succeeded_count: Number(r.sc),
    succeeded_minor: Number(r.sm),
    refunded_count: Number(r.rc),
    refunded_minor: Number(r.rm),
    net_minor: Number(r.nm),
    disputed_minor: Number(r.dm),
    failed_count: Number(r.fc),
    canceled_count: Number(r.cc),
    initiated_count: Number(r.ic),
  }));
}

async function fromSummary(): Promise<Figures[]> {
  const res = await gw.admin('GET', `/admin/summary?since=${since}&mode=live`);
  assertStatus(res, 200);
  const body = parseExactJson(res.text) as { by_app: { app_id: string; by_currency: Figures[] }[] };
  const app = body.by_app.find((a) => a.app_id === appId);
  assert.ok(app);
  return app.by_currency;
}

async function months(): Promise<string[]> {
  const rows = await sql<{ m: string }>(
    gw.databaseUrl,
    `SELECT to_char(month, 'YYYY-MM-DD') AS m FROM report_months ORDER BY 1`,
  );
  return rows.map((r) => r.m);
}

test('whole months from report_monthly, the rest from days and rows: the plain aggregate', async () => {
  assert.deepEqual(await fromSummary(), await fromRows());
  // 75 days back hold at least one whole closed month, summed once.
  const summed = await months();
  assert.ok(summed.length >= 1, JSON.stringify(summed));
  assert.ok(
    summed.every((m) => m.endsWith('-01') && Date.parse(m) >= Date.parse(since) - 31 * DAY),
  );
  assert.deepEqual(await fromSummary(), await fromRows());
});

test('a payment of a closed month leaves initiated: its day and month are computed again', async () => {
  const summed = await months();
  const month = summed[0] as string;
  const [p] = await sql<{ id: string }>(
    gw.databaseUrl,
    `SELECT id FROM payments WHERE app_id = $1 AND status = 'initiated'
       AND created_at >= $2::date AND created_at < $2::date + interval '1 month' LIMIT 1`,
    [appId, month],
  );
  assert.ok(p);
  // Paid at last (a bank transfer days later): counted today, no longer initiated back then.
  await sql(
    gw.databaseUrl,
    `UPDATE payments SET status = 'succeeded', finalized_at = now() WHERE id = $1`,
    [p.id],
  );
  assert.ok(!(await months()).includes(month), 'the month was dropped');
  assert.deepEqual(await fromSummary(), await fromRows());
  assert.ok((await months()).includes(month), 'and summed again');
});

test("an operator's correction of a day in a closed month", async () => {
  const month = (await months())[0] as string;
  await sql(
    gw.databaseUrl,
    `UPDATE payments SET status = 'canceled' WHERE id = (SELECT id FROM payments
       WHERE app_id = $1 AND status = 'failed' AND finalized_at >= $2::date
         AND finalized_at < $2::date + interval '1 month' LIMIT 1)`,
    [appId, month],
  );
  assert.deepEqual(await fromSummary(), await fromRows());
});
