/**
 * The operator's read API (issue 5) against a known set of payments and refunds written
 * straight into the database across apps, modes, providers, currencies and days. Every
 * figure is checked against a small model of the same rows, plus literal spot checks.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertError, assertStatus, RFC3339_UTC, sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { exactValue, parseExactJson } from '../../helpers/exactJson.js';
import type { HttpResult } from '../../helpers/http.js';

const DAY = 86_400_000;
const CURRENCIES = ['EUR', 'GBP', 'IDR', 'USD'];
const PROVIDERS = ['card_psp', 'idr_psp', 'wallet_psp'];

type Mode = 'test' | 'sandbox' | 'live';
interface P {
  id: string;
  app: string;
  mode: Mode;
  status: 'initiated' | 'succeeded' | 'failed' | 'canceled';
  amount: bigint;
  currency: string;
  provider: string;
  created: Date;
  finalized: Date | null;
}
interface R {
  id: string;
  payment: P;
  status: 'initiated' | 'succeeded' | 'failed';
  amount: bigint;
  created: Date;
  succeeded: Date | null;
}

const hex = (s: string) => createHash('md5').update(s).digest('hex');
const dayStart = (t: number) => Math.floor(t / DAY) * DAY;
const ymd = (t: number) => new Date(t).toISOString().slice(0, 10);

/** Integers past 2^53 read as bigints (docs/api.md#money), so exact sums can be compared. */
function exactParse<T>(res: HttpResult): T {
  return parseExactJson<T>(res.text);
}
const num = exactValue;

let gw: TestGateway;
let apps: Record<string, AppWithSecrets>;
const payments: P[] = [];
const refunds: R[] = [];
/**
 * The ledger as the seed booked it (ledger_backfill, docs/api.md#ledger): net_minor is its
 * sum (D16), so a later SQL correction of a payment's status leaves the net as booked.
 */
const ledger: { p: P; amount: bigint; at: Date }[] = [];
let now: number;
let today: number;

function methodOf(provider: string): string {
  return provider === 'idr_psp' ? 'qris' : provider;
}

before(async () => {
  gw = await startTestGateway();
  apps = {
    shopTest: await gw.createApp({ name: 'A shop (test)', mode: 'test' }),
    shopTest2: await gw.createApp({ name: 'B idle shop (test)', mode: 'test' }),
    shopSandbox: await gw.createApp({ name: 'C shop (sandbox)', mode: 'sandbox' }),
    shopLive: await gw.createApp({ name: 'D shop (live)', mode: 'live' }),
    bigLive: await gw.createApp({ name: 'E big spender (live)', mode: 'live' }),
  };
  now = Date.now();
  today = dayStart(now);
  const combos: [string, string, string][] = [
    ['shopTest', 'idr_psp', 'IDR'],
    ['shopTest', 'card_psp', 'USD'],
    ['shopTest', 'wallet_psp', 'EUR'],
    ['shopSandbox', 'card_psp', 'GBP'],
    ['shopSandbox', 'idr_psp', 'IDR'],
    ['shopLive', 'wallet_psp', 'USD'],
    ['shopLive', 'card_psp', 'EUR'],
    ['shopLive', 'idr_psp', 'IDR'],
  ];
  const statuses: P['status'][] = ['succeeded', 'succeeded', 'failed', 'succeeded', 'canceled'];
  let n = 0;
  // 8 combos x 14 days back (0..13) on a rotating status, plus today's rows and a tie.
  for (let back = 0; back < 14; back++) {
    for (const [app, provider, currency] of combos) {
      n++;
      if ((n + back) % 3 === 0) continue; // leave some days empty per combo
      const a = apps[app] as AppWithSecrets;
      const status = n % 11 === 0 ? 'initiated' : (statuses[n % statuses.length] as P['status']);
      const created = back === 0 ? now - 60_000 - n * 10 : today - back * DAY + ((n * 7919) % DAY);
      const finalized =
        status === 'initiated' ? null : back === 0 ? now - 1000 - n : created + 5000;
      payments.push({
        id: hex(`payment-${n}`),
        app: a.app_id,
        mode: a.mode as Mode,
        status,
        amount: BigInt(currency === 'IDR' ? 10_000 * n + 1 : 100 * n + 7),
        currency,
        provider,
        created: new Date(created),
        finalized: finalized === null ? null : new Date(Math.min(finalized, now - 1)),
      });
    }
  }
  // Two payments with the same created_at: paging orders them by id.
  const tie = today - 3 * DAY + 1234;
  for (const k of ['tie-1', 'tie-2']) {
    payments.push({
      id: hex(k),
      app: (apps.shopTest as AppWithSecrets).app_id,
      mode: 'test',
      status: 'succeeded',
      amount: 555n,
      currency: 'USD',
      provider: 'card_psp',
      created: new Date(tie),
      finalized: new Date(tie + 1000),
    });
  }
  // Sums past 2^53 must stay exact.
  for (const [k, amount] of [
    ['big-1', 4_000_000_000_000_001n],
    ['big-2', 4_000_000_000_000_002n],
    ['big-3', 4_000_000_000_000_004n],
  ] as const) {
    payments.push({
      id: hex(k),
      app: (apps.bigLive as AppWithSecrets).app_id,
      mode: 'live',
      status: 'succeeded',
      amount,
      currency: 'IDR',
      provider: 'idr_psp',
      created: new Date(today - 2 * DAY + 100),
      finalized: new Date(today - 2 * DAY + 200),
    });
  }
  // Refunds: every third succeeded payment; some fail, some are still initiated, some
  // payments have a failed refund and then a succeeded one. A refund succeeds 1..3 days after payment.
  const succeeded = payments.filter((p) => p.status === 'succeeded');
  succeeded.forEach((p, i) => {
    if (i % 3 !== 0) return;
    const fin = (p.finalized as Date).getTime();
    const at = Math.min(fin + ((i % 3) + 1) * DAY - 7 * 3_600_000, now - 1);
    const kind = i % 4;
    if (kind === 1 || kind === 3) {
      refunds.push({
        id: hex(`rf-${i}`),
        payment: p,
        status: 'failed',
        amount: p.amount,
        created: new Date(at - 500),
        succeeded: null,
      });
      if (kind === 1) return;
    }
    if (kind === 2) {
      refunds.push({
        id: hex(`ri-${i}`),
        payment: p,
        status: 'initiated',
        amount: p.amount,
        created: new Date(at),
        succeeded: null,
      });
      return;
    }
    refunds.push({
      id: hex(`rs-${i}`),
      payment: p,
      status: 'succeeded',
      amount: kind === 3 ? p.amount / 2n : p.amount,
      created: new Date(at - 100),
      succeeded: new Date(at),
    });
  });

  for (const p of payments) {
    await sql(
      gw.databaseUrl,
      `INSERT INTO payments (id, app_id, mode, status, amount_minor, currency, method, provider,
         provider_ref, external_user_id, email, return_url, finalized_at, created_at, updated_at,
         last_error)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'buyer', 'b@example.com', 'https://shop.example/',
         $10, $11, $11, $12)`,
      [
        p.id,
        p.app,
        p.mode,
        p.status,
        p.amount.toString(),
        p.currency,
        methodOf(p.provider),
        p.provider,
        `ref-${p.id}`,
        p.finalized,
        p.created,
        p.status === 'failed' ? 'card declined' : '',
      ],
    );
  }
  for (const r of refunds) {
    await sql(
      gw.databaseUrl,
      `INSERT INTO refunds (id, payment_id, app_id, mode, status, amount_minor, currency, provider,
         provider_ref, reason, succeeded_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'test', $10, $11, $11)`,
      [
        r.id,
        r.payment.id,
        r.payment.app,
        r.payment.mode,
        r.status,
        r.amount.toString(),
        r.payment.currency,
        r.payment.provider,
        `rref-${r.id}`,
        r.succeeded,
        r.created,
      ],
    );
  }
  // The seed writes rows with SQL, past the gateway that books each movement as it records
  // it; the migration's backfill books them as it booked the rows before the ledger.
  await sql(gw.databaseUrl, 'SELECT ledger_backfill()');
  for (const p of payments) {
    if (p.status === 'succeeded') ledger.push({ p, amount: p.amount, at: p.finalized as Date });
  }
  for (const r of refunds) {
    if (r.status === 'succeeded') {
      ledger.push({ p: r.payment, amount: -r.amount, at: r.succeeded as Date });
    }
  }
});
after(async () => {
  await gw?.stop();
});

// ---- the model ----

interface Fig {
  succeeded_count: number;
  succeeded_minor: bigint;
  refunded_count: number;
  refunded_minor: bigint;
  net_minor: bigint;
  failed_count: number;
  canceled_count: number;
  initiated_count: number;
}
const zero = (): Fig => ({
  succeeded_count: 0,
  succeeded_minor: 0n,
  refunded_count: 0,
  refunded_minor: 0n,
  net_minor: 0n,
  failed_count: 0,
  canceled_count: 0,
  initiated_count: 0,
});
function out(f: Fig): Record<string, number | bigint> {
  return {
    succeeded_count: f.succeeded_count,
    succeeded_minor: exactValue(f.succeeded_minor),
    refunded_count: f.refunded_count,
    refunded_minor: exactValue(f.refunded_minor),
    net_minor: exactValue(f.net_minor),
    disputed_minor: 0,
    failed_count: f.failed_count,
    canceled_count: f.canceled_count,
    initiated_count: f.initiated_count,
  };
}

function expectedSummary(since: number, until: number, mode: Mode | '') {
  const inW = (d: Date | null) => d !== null && d.getTime() >= since && d.getTime() < until;
  const modeOk = (m: Mode) => mode === '' || m === mode;
  const byApp = new Map<string, { all: Fig; cur: Map<string, Fig> }>();
  const byProvider = new Map<string, Fig>();
  const byCurrency = new Map<string, Fig>();
  const touch = (app: string, provider: string, currency: string, f: (x: Fig) => void) => {
    let a = byApp.get(app);
    if (!a) byApp.set(app, (a = { all: zero(), cur: new Map() }));
    f(a.all);
    if (!a.cur.has(currency)) a.cur.set(currency, zero());
    f(a.cur.get(currency) as Fig);
    if (!byProvider.has(provider)) byProvider.set(provider, zero());
    f(byProvider.get(provider) as Fig);
    if (!byCurrency.has(currency)) byCurrency.set(currency, zero());
    f(byCurrency.get(currency) as Fig);
  };
  for (const p of payments) {
    if (!modeOk(p.mode)) continue;
    if (p.status === 'initiated' ? inW(p.created) : inW(p.finalized)) {
      touch(p.app, p.provider, p.currency, (f) => {
        if (p.status === 'succeeded') {
          f.succeeded_count++;
          f.succeeded_minor += p.amount;
        } else if (p.status === 'failed') f.failed_count++;
        else if (p.status === 'canceled') f.canceled_count++;
        else f.initiated_count++;
      });
    }
  }
  for (const r of refunds) {
    if (r.status !== 'succeeded' || !modeOk(r.payment.mode) || !inW(r.succeeded)) continue;
    touch(r.payment.app, r.payment.provider, r.payment.currency, (f) => {
      f.refunded_count++;
      f.refunded_minor += r.amount;
    });
  }
  for (const e of ledger) {
    if (!modeOk(e.p.mode) || !inW(e.at)) continue;
    touch(e.p.app, e.p.provider, e.p.currency, (f) => {
      f.net_minor += e.amount;
    });
  }
  const appList = Object.values(apps)
    .filter((a) => mode === '' || a.mode === mode || byApp.has(a.app_id))
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((a) => {
      const f = byApp.get(a.app_id);
      return {
        app_id: a.app_id,
        app_name: a.name,
        app_mode: a.mode,
        ...out(f?.all ?? zero()),
        by_currency: [...(f?.cur.entries() ?? [])]
          .sort(([x], [y]) => x.localeCompare(y))
          .map(([currency, g]) => ({ currency, ...out(g) })),
      };
    });
  return {
    mode,
    by_app: appList,
    by_provider: PROVIDERS.map((provider) => ({
      provider,
      ...out(byProvider.get(provider) ?? zero()),
    })),
    by_currency: CURRENCIES.map((currency) => ({
      currency,
      ...out(byCurrency.get(currency) ?? zero()),
    })),
  };
}

interface SummaryBody {
  since: string;
  as_of: string;
  mode: string;
  by_app: Record<string, unknown>[];
  by_provider: Record<string, unknown>[];
  by_currency: Record<string, unknown>[];
}

function withoutTimes(b: SummaryBody): Omit<SummaryBody, 'since' | 'as_of'> {
  return { mode: b.mode, by_app: b.by_app, by_provider: b.by_provider, by_currency: b.by_currency };
}

async function getSummary(query: string): Promise<SummaryBody> {
  const res = await gw.admin('GET', `/admin/summary${query}`);
  assertStatus(res, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  return exactParse<SummaryBody>(res);
}

const MODE_CASES: [string, string, Mode | ''][] = [
  ['test', '&mode=test', 'test'],
  ['sandbox', '&mode=sandbox', 'sandbox'],
  ['live', '&mode=live', 'live'],
  ['empty', '&mode=', ''],
  ['absent', '', ''],
  ['unknown', '&mode=production', ''],
  ['wrong case', '&mode=LIVE', ''],
];

describe('GET /admin/summary', () => {
  for (const [what, q, mode] of MODE_CASES) {
    test(`since a date, mode ${what}: every figure`, async () => {
      const since = today - 12 * DAY;
      const body = await getSummary(`?since=${ymd(since)}${q}`);
      assert.equal(body.since, new Date(since).toISOString());
      assert.match(body.as_of, RFC3339_UTC);
      const asOf = Date.parse(body.as_of);
      assert.ok(asOf >= now && asOf <= Date.now());
      const rest = withoutTimes(body);
      assert.deepEqual(rest, expectedSummary(since, asOf, mode));
    });
  }

  test('days (default 30) counts back whole UTC days including today', async () => {
    for (const [q, days] of [
      ['', 30],
      ['?days=1', 1],
      ['?days=3', 3],
      ['?days=366', 366],
    ] as const) {
      const body = await getSummary(q);
      const since = today - (days - 1) * DAY;
      assert.equal(body.since, new Date(since).toISOString(), q);
      const rest = withoutTimes(body);
      const as_of = body.as_of;
      assert.deepEqual(rest, expectedSummary(since, Date.parse(as_of), ''), q);
    }
  });

  test('since in the middle of a day (RFC 3339 with offset) and until', async () => {
    const since = today - 5 * DAY + 12 * 3_600_000;
    const until = today - 2 * DAY + 6 * 3_600_000;
    const sinceText = new Date(since).toISOString().replace('Z', '+00:00');
    const untilText = new Date(until + 2 * 3_600_000).toISOString().replace(/\.\d+Z$/, '+02:00');
    const body = await getSummary(
      `?since=${encodeURIComponent(sinceText)}&until=${encodeURIComponent(untilText)}&days=2`,
    );
    assert.equal(body.since, new Date(since).toISOString());
    const rest = withoutTimes(body);
    assert.deepEqual(rest, expectedSummary(since, Math.floor(until / 1000) * 1000, ''));
  });

  test('spot checks: exact sums past 2^53, net, zero rows', async () => {
    const res = await gw.admin('GET', '/admin/summary?mode=live&days=30');
    // D14: a JSON integer with its exact digits, not a string and not rounded (…008).
    assert.ok(res.text.includes('"succeeded_minor":12000000000000007,'), res.text);
    const body = exactParse<SummaryBody>(res);
    const big = body.by_app.find((a) => a.app_name === 'E big spender (live)');
    assert.deepEqual(big, {
      app_id: (apps.bigLive as AppWithSecrets).app_id,
      app_name: 'E big spender (live)',
      app_mode: 'live',
      succeeded_count: 3,
      succeeded_minor: 12000000000000007n,
      refunded_count: big?.refunded_count,
      refunded_minor: big?.refunded_minor,
      net_minor: big?.net_minor,
      disputed_minor: 0,
      failed_count: 0,
      canceled_count: 0,
      initiated_count: 0,
      by_currency: big?.by_currency,
    });
    // Sums below 2^53 are plain JSON numbers: a client adding two of them gets their sum.
    const usd = JSON.parse(res.text) as SummaryBody;
    for (const row of [...usd.by_currency, ...usd.by_provider]) {
      for (const f of ['succeeded_minor', 'refunded_minor', 'net_minor']) {
        if (row.currency === 'IDR' || row.provider === 'idr_psp') continue; // the big ones
        assert.equal(typeof row[f], 'number', `${String(row.currency ?? row.provider)} ${f}`);
      }
    }
    // The idle app of another mode is not listed under live; under test it is, with zeros.
    assert.equal(
      body.by_app.find((a) => a.app_name === 'B idle shop (test)'),
      undefined,
    );
    const testBody = await getSummary('?mode=test');
    const idle = testBody.by_app.find((a) => a.app_name === 'B idle shop (test)');
    assert.equal(idle?.succeeded_count, 0);
    assert.deepEqual(idle?.by_currency, []);
  });

  test('closed days come from the rollup, computed once even by two instances at once', async () => {
    await sql(gw.databaseUrl, 'DELETE FROM report_days');
    const second = await startTestGateway({}, {}, gw);
    try {
      const since = today - 12 * DAY;
      const answers = await Promise.all(
        [gw, second, gw, second, gw, second].map(async (g) => {
          const res = await g.admin('GET', `/admin/summary?since=${ymd(since)}`);
          assertStatus(res, 200);
          return withoutTimes(exactParse<SummaryBody>(res));
        }),
      );
      for (const a of answers) assert.deepEqual(a, expectedSummary(since, Date.now(), ''));
      const days = await sql<{ n: number; first: string }>(
        gw.databaseUrl,
        `SELECT count(*)::int AS n, to_char(min(day), 'YYYY-MM-DD') AS first FROM report_days`,
      );
      // Every full day before yesterday is closed; yesterday too once it is 01:00 UTC.
      const closed = dayStart(Date.now() - 3_600_000);
      assert.deepEqual(days[0], { n: Math.round((closed - since) / DAY), first: ymd(since) });
    } finally {
      await second.running.stop();
    }
  });

  test('the rollup agrees with the rows after a past day changes', async () => {
    const since = today - 12 * DAY;
    await getSummary(`?since=${ymd(since)}`); // materializes the closed days
    const p = payments.find(
      (x) =>
        x.status === 'succeeded' &&
        x.mode === 'sandbox' &&
        x.finalized &&
        x.finalized.getTime() < today - 3 * DAY,
    );
    assert.ok(p);
    // An operator's correction of a closed day drops that day's totals; the next read recomputes.
    await sql(gw.databaseUrl, `UPDATE payments SET status = 'canceled' WHERE id = $1`, [p.id]);
    p.status = 'canceled';
    try {
      const body = await getSummary(`?since=${ymd(since)}`);
      const rest = withoutTimes(body);
      const as_of = body.as_of;
      assert.deepEqual(rest, expectedSummary(since, Date.parse(as_of), ''));
    } finally {
      await sql(gw.databaseUrl, `UPDATE payments SET status = 'succeeded' WHERE id = $1`, [p.id]);
      p.status = 'succeeded';
    }
  });
});

describe('GET /admin/timeseries', () => {
  for (const [what, q, mode] of MODE_CASES) {
    test(`days=14, mode ${what}: every day and currency, zeros included`, async () => {
      const res = await gw.admin('GET', `/admin/timeseries?days=14${q}`);
      assertStatus(res, 200);
      const body = exactParse<{ days: number; mode: string; buckets: Record<string, unknown>[] }>(
        res,
      );
      assert.equal(body.days, 14);
      assert.equal(body.mode, mode);
      const expected = [];
      for (let i = 13; i >= 0; i--) {
        const d = today - i * DAY;
        for (const currency of CURRENCIES) {
          const ps = payments.filter(
            (p) =>
              p.status === 'succeeded' &&
              p.currency === currency &&
              (mode === '' || p.mode === mode) &&
              p.finalized !== null &&
              dayStart(p.finalized.getTime()) === d,
          );
          expected.push({
            day: ymd(d),
            currency,
            succeeded_count: ps.length,
            succeeded_minor: exactValue(ps.reduce((s, p) => s + p.amount, 0n)),
          });
        }
      }
      assert.deepEqual(body.buckets, expected);
      assert.ok(
        body.buckets.some((b) => b.succeeded_count === 0),
        'some zero buckets',
      );
    });
  }

  test('default 30 days; the sum over the buckets equals the summary', async () => {
    const res = await gw.admin('GET', '/admin/timeseries');
    const body = exactParse<{
      days: number;
      buckets: {
        day: string;
        currency: string;
        succeeded_minor: number | bigint;
        succeeded_count: number;
      }[];
    }>(res);
    assert.equal(body.days, 30);
    assert.equal(body.buckets.length, 30 * 4);
    assert.equal(body.buckets[0]?.day, ymd(today - 29 * DAY));
    assert.equal(body.buckets[body.buckets.length - 1]?.day, ymd(today));
    const summary = await getSummary('?days=30');
    for (const c of summary.by_currency) {
      const own = body.buckets.filter((b) => b.currency === c.currency);
      assert.equal(
        own.reduce((s, b) => s + b.succeeded_count, 0),
        c.succeeded_count,
      );
      assert.equal(
        own.reduce((s, b) => s + BigInt(b.succeeded_minor), 0n).toString(),
        String(c.succeeded_minor),
      );
    }
  });
});

function order<T extends { created: Date; id: string }>(rows: T[]): T[] {
  return [...rows].sort(
    (a, b) => b.created.getTime() - a.created.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
  );
}

/** The refund an admin list row shows: the active one, else the payment's first. */
function shownRefund(p: P): R | undefined {
  const own = refunds.filter((r) => r.payment.id === p.id);
  return own.find((r) => r.status !== 'failed') ?? own[0];
}

/** docs/api.md#payment-list: the active refunds added up, else the failed one's amount. */
function refundedOf(p: P): number | bigint | null {
  const active = refunds.filter((r) => r.payment.id === p.id && r.status !== 'failed');
  if (active.length > 0) return num(active.reduce((sum, r) => sum + r.amount, 0n));
  const shown = shownRefund(p);
  return shown ? num(shown.amount) : null;
}

function refundStatusOf(p: P): string | null {
  return shownRefund(p)?.status ?? null;
}

describe('GET /admin/payments', () => {
  for (const [what, q, mode] of MODE_CASES) {
    test(`mode ${what}: newest first, paged with before and limit`, async () => {
      const expected = order(payments.filter((p) => mode === '' || p.mode === mode));
      const seen: Record<string, unknown>[] = [];
      let before = '';
      for (let pages = 0; pages < 100; pages++) {
        const res = await gw.admin(
          'GET',
          `/admin/payments?limit=7${q}${before ? `&before=${before}` : ''}`,
        );
        assertStatus(res, 200);
        const body = exactParse<{ mode: string; payments: Record<string, unknown>[] }>(res);
        assert.equal(body.mode, mode);
        assert.ok(body.payments.length <= 7);
        seen.push(...body.payments);
        if (body.payments.length < 7) break;
        before = String(body.payments[body.payments.length - 1]?.id);
      }
      assert.deepEqual(
        seen.map((r) => r.id),
        expected.map((p) => p.id),
      );
      for (const [i, r] of seen.entries()) {
        const p = expected[i] as P;
        assert.deepEqual(r, {
          id: p.id,
          app_id: p.app,
          mode: p.mode,
          status: p.status,
          amount_minor: num(p.amount),
          currency: p.currency,
          method: methodOf(p.provider),
          provider: p.provider,
          provider_ref: `ref-${p.id}`,
          invoice_number: null,
          last_error: p.status === 'failed' ? 'card declined' : '',
          refund_status: refundStatusOf(p),
          refund_amount_minor: refundedOf(p),
          created_at: p.created.toISOString(),
          updated_at: p.created.toISOString(),
          finalized_at: p.finalized?.toISOString() ?? null,
          test_scenario: null,
        });
      }
    });
  }

  test('default 100; status filter; refund_status of every kind', async () => {
    const res = await gw.admin('GET', '/admin/payments');
    const body = res.json<{ payments: { id: string; refund_status: string | null }[] }>();
    assert.equal(body.payments.length, Math.min(100, payments.length));
    const failed = await gw.admin('GET', '/admin/payments?status=failed&limit=1000');
    assert.deepEqual(
      failed.json<{ payments: { id: string }[] }>().payments.map((p) => p.id),
      order(payments.filter((p) => p.status === 'failed')).map((p) => p.id),
    );
    const statuses = new Set(payments.map(refundStatusOf));
    for (const s of [null, 'succeeded', 'failed', 'initiated'])
      assert.ok(statuses.has(s), String(s));
  });
});

describe('GET /admin/refunds', () => {
  for (const [what, q, mode] of MODE_CASES) {
    test(`mode ${what}: newest first, paged`, async () => {
      const expected = order(
        refunds
          .filter((r) => mode === '' || r.payment.mode === mode)
          .map((r) => ({ ...r, id: r.id })),
      );
      const seen: Record<string, unknown>[] = [];
      let before = '';
      for (let pages = 0; pages < 100; pages++) {
        const res = await gw.admin(
          'GET',
          `/admin/refunds?limit=4${q}${before ? `&before=${before}` : ''}`,
        );
        assertStatus(res, 200);
        const body = exactParse<{ mode: string; refunds: Record<string, unknown>[] }>(res);
        assert.equal(body.mode, mode);
        seen.push(...body.refunds);
        if (body.refunds.length < 4) break;
        before = String(body.refunds[body.refunds.length - 1]?.id);
      }
      assert.deepEqual(
        seen,
        expected.map((r) => ({
          id: r.id,
          payment_id: r.payment.id,
          app_id: r.payment.app,
          mode: r.payment.mode,
          status: r.status,
          amount_minor: num(r.amount),
          currency: r.payment.currency,
          provider: r.payment.provider,
          provider_ref: `rref-${r.id}`,
          reason: 'test',
          last_error: '',
          succeeded_at: r.succeeded?.toISOString() ?? null,
          created_at: r.created.toISOString(),
          updated_at: r.created.toISOString(),
        })),
      );
    });
  }
});

describe('GET /admin/payments/{id}', () => {
  test('the full row, its refund, inbound events count, deliveries and attempts', async () => {
    const r = refunds.find((x) => x.status === 'succeeded') as R;
    const p = r.payment;
    for (const i of [1, 2, 3]) {
      await sql(
        gw.databaseUrl,
        `INSERT INTO inbound_events (provider, headers, raw_body, signature_valid, payment_id, outcome)
         VALUES ($1, '{}', $2, $3, $4, 'finalized')`,
        [p.provider, Buffer.from(`{"n":${i}}`), i !== 2, p.id],
      );
    }
    await sql(
      gw.databaseUrl,
      `INSERT INTO outbound_events (id, app_id, payment_id, event_type, body) VALUES ('ev1', $1, $2, 'payment.succeeded', '{}')`,
      [p.app, p.id],
    );
    await sql(
      gw.databaseUrl,
      `INSERT INTO deliveries (id, event_id, app_id, payment_id, status, attempts, last_status_code, delivered_at, created_at)
       VALUES ('dl1', 'ev1', $1, $2, 'delivered', 2, 200, '2026-01-02T03:04:06Z', '2026-01-02T03:04:00Z')`,
      [p.app, p.id],
    );
    await sql(
      gw.databaseUrl,
      `INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error, outcome) VALUES
         ('dl1', 1, '2026-01-02T03:04:01Z', 12, 503, 'HTTP 503', 'retry'),
         ('dl1', 2, '2026-01-02T03:04:05Z', 8, 200, NULL, 'delivered')`,
    );
    const res = await gw.admin('GET', `/admin/payments/${p.id}`);
    assertStatus(res, 200);
    assert.deepEqual(res.json(), {
      id: p.id,
      app_id: p.app,
      mode: p.mode,
      status: p.status,
      amount_minor: num(p.amount),
      currency: p.currency,
      method: methodOf(p.provider),
      provider: p.provider,
      provider_ref: `ref-${p.id}`,
      external_user_id: 'buyer',
      email: 'b@example.com',
      return_url: 'https://shop.example/',
      metadata: {},
      invoice_number: '',
      last_error: '',
      checkout_url: null,
      qr_string: null,
      qr_image_url: null,
      provider_deadline: null,
      finalized_at: p.finalized?.toISOString() ?? null,
      subscription_id: null,
      parent_payment_id: null,
      // No provider has opened a dispute on it (docs/api.md#disputes).
      disputes: [],
      created_at: p.created.toISOString(),
      updated_at: p.created.toISOString(),
      refund: {
        id: r.id,
        payment_id: p.id,
        app_id: p.app,
        mode: p.mode,
        status: 'succeeded',
        amount_minor: num(r.amount),
        currency: p.currency,
        provider: p.provider,
        provider_ref: `rref-${r.id}`,
        reason: 'test',
        last_error: '',
        succeeded_at: r.succeeded?.toISOString() ?? null,
        created_at: r.created.toISOString(),
        updated_at: r.created.toISOString(),
      },
      inbound_events_count: 3,
      deliveries: [
        {
          delivery_id: 'dl1',
          // The app's webhook_url (no webhook endpoint).
          endpoint_id: null,
          event_id: 'ev1',
          event_type: 'payment.succeeded',
          status: 'delivered',
          attempts_count: 2,
          last_status_code: 200,
          next_attempt_at: null,
          delivered_at: '2026-01-02T03:04:06.000Z',
          created_at: '2026-01-02T03:04:00.000Z',
          attempts: [
            {
              attempt: 1,
              status_code: 503,
              error: 'HTTP 503',
              duration_ms: 12,
              started_at: '2026-01-02T03:04:01.000Z',
              outcome: 'retry',
              // Seeded without the receiver's answer (attempts from before it was kept).
              response_body: null,
            },
            {
              attempt: 2,
              status_code: 200,
              error: null,
              duration_ms: 8,
              started_at: '2026-01-02T03:04:05.000Z',
              outcome: 'delivered',
              response_body: null,
            },
          ],
        },
      ],
    });
  });

  test('a payment without refund or events', async () => {
    const p = payments.find((x) => x.status === 'initiated') as P;
    const body = (await gw.admin('GET', `/admin/payments/${p.id}`)).json<Record<string, unknown>>();
    assert.equal(body.refund, null);
    assert.equal(body.inbound_events_count, 0);
    assert.deepEqual(body.deliveries, []);
    assert.equal(body.finalized_at, null);
  });

  test('404 payment not found: unknown, malformed, uppercase', async () => {
    for (const id of [
      '0'.repeat(32),
      'nothex',
      (payments[0] as P).id.toUpperCase(),
      `${(payments[0] as P).id}0`,
    ]) {
      assertError(await gw.admin('GET', `/admin/payments/${id}`), 404, 'payment not found');
    }
  });
});

describe('400 for bad parameters', () => {
  const DAYS = 'days must be an integer from 1 to 366';
  const LIMIT = 'limit must be an integer from 1 to 1000';
  const SINCE = 'since must be an RFC 3339 timestamp or a date YYYY-MM-DD (UTC)';
  const UNTIL = 'until must be an RFC 3339 timestamp or a date YYYY-MM-DD (UTC)';
  const cases: [string, string][] = [
    ['/admin/summary?days=0', DAYS],
    ['/admin/summary?days=367', DAYS],
    ['/admin/summary?days=abc', DAYS],
    ['/admin/summary?days=1.5', DAYS],
    ['/admin/summary?days=-1', DAYS],
    ['/admin/summary?days=%2030', DAYS],
    ['/admin/summary?since=2026-02-30', SINCE],
    ['/admin/summary?since=yesterday', SINCE],
    ['/admin/summary?since=2026-11-22T25:00:00Z', SINCE],
    ['/admin/summary?since=2026-11-22T10:00:00', SINCE],
    ['/admin/summary?since=1969-12-31', SINCE],
    ['/admin/summary?until=2026-13-01', UNTIL],
    ['/admin/summary?since=2026-01-02&until=2026-01-01', 'since must not be after until'],
    ['/admin/timeseries?days=0', DAYS],
    ['/admin/timeseries?days=400', DAYS],
    ['/admin/timeseries?days=x', DAYS],
    ['/admin/payments?limit=0', LIMIT],
    ['/admin/payments?limit=1001', LIMIT],
    ['/admin/payments?limit=ten', LIMIT],
    ['/admin/payments?before=nothex', 'before must be a payment id from a previous page'],
    [
      `/admin/payments?before=${'0'.repeat(32)}`,
      'before must be a payment id from a previous page',
    ],
    ['/admin/payments?status=paid', 'status must be one of initiated, succeeded, failed, canceled'],
    ['/admin/refunds?limit=0', LIMIT],
    ['/admin/refunds?limit=5000', LIMIT],
    [`/admin/refunds?before=${'f'.repeat(32)}`, 'before must be a refund id from a previous page'],
    ['/admin/payouts?since=garbage', SINCE],
    ['/admin/payouts?until=2026-02-29', UNTIL],
    ['/admin/payouts?since=2026-03-01&until=2026-02-01', 'since must not be after until'],
    [
      '/admin/payouts?since=2024-01-01&until=2025-01-02',
      'since and until must be at most 366 days apart',
    ],
  ];
  for (const [path, reason] of cases) {
    test(`${path}: 400 ${reason}`, async () => {
      assertError(await gw.admin('GET', path), 400, reason);
    });
  }
});
