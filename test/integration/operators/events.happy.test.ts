/**
 * GET /v1/events (an app's own outbound events, oldest first after a cursor) and
 * POST /admin/apps/{id}/redeliver (fresh deliveries of an app's events in a time range).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { eventually } from '../../helpers/eventually.js';
import { assertError, assertStatus, rawSigned, RFC3339_UTC, sql } from '../../helpers/core.js';
import { exemptAnswers } from '../../helpers/openapiCheck.js';
import { startWithReceiver, type GatewayWithReceiver } from '../../helpers/gateway.js';
import { paidPayment } from '../../helpers/payments.js';

interface FeedEvent {
  id: string;
  event: string;
  created_at: string;
  payload: Record<string, unknown>;
  delivery: { status: string; attempts: number; last_status_code: number | null } | null;
}
interface Feed {
  events: FeedEvent[];
  has_more: boolean;
}

let h: GatewayWithReceiver;
let other: AppWithSecrets;
const paid: string[] = [];

async function feed(app: AppWithSecrets, query = ''): Promise<Feed> {
  const res = await h.gw.v1(app, 'GET', `/v1/events${query}`);
  assertStatus(res, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  return res.json<Feed>();
}

async function deliveredCount(): Promise<number> {
  const rows = await sql<{ n: number }>(
    h.gw.databaseUrl,
    `SELECT count(*)::int AS n FROM deliveries WHERE app_id = $1 AND status = 'delivered'`,
    [h.app.app_id],
  );
  return rows[0]?.n ?? 0;
}

before(async () => {
  h = await startWithReceiver();
  other = await h.gw.createApp({ name: 'Neighbour', webhook_url: h.receiver.url });
  for (const amount of [10_000, 20_000, 30_000]) {
    paid.push((await paidPayment(h.gw, h.app, 'idr', amount)).id);
  }
  await paidPayment(h.gw, other, 'idr', 40_000);
  await h.receiver.waitFor(4);
  await eventually(async () => (await deliveredCount()) === 3);
});

after(async () => {
  await h?.stop();
});

describe('GET /v1/events', () => {
  test('lists the app own events oldest first, each payload the exact body delivered', async () => {
    const body = await feed(h.app);
    assert.equal(body.has_more, false);
    assert.deepEqual(
      body.events.map((e) => e.payload.payment_id),
      paid,
    );
    for (const e of body.events) {
      assert.match(e.id, /^evt_[0-9a-f]{24}$/);
      assert.equal(e.event, 'payment.succeeded');
      assert.match(e.created_at, RFC3339_UTC);
      assert.deepEqual(e.delivery, { status: 'delivered', attempts: 1, last_status_code: 200 });
      const delivered = h.receiver.received.find((r) => r.headers['x-pay-event-id'] === e.id);
      assert.ok(delivered, `event ${e.id} was delivered`);
      assert.deepEqual(e.payload, JSON.parse(delivered.body));
    }
  });

  test('the payload is spliced byte for byte: the raw response holds each delivered body', async () => {
    const res = await h.gw.v1(h.app, 'GET', '/v1/events');
    for (const r of h.receiver.received.filter((x) => x.body.includes(paid[0] as string))) {
      assert.ok(res.text.includes(`"payload":${r.body},`), 'delivered bytes appear verbatim');
    }
  });

  test('pages with limit and after; has_more says whether more follow', async () => {
    const first = await feed(h.app, '?limit=2');
    assert.equal(first.events.length, 2);
    assert.equal(first.has_more, true);
    const second = await feed(h.app, `?limit=2&after=${first.events[1]?.id}`);
    assert.deepEqual(
      second.events.map((e) => e.payload.payment_id),
      [paid[2]],
    );
    assert.equal(second.has_more, false);
    const empty = await feed(h.app, `?after=${second.events[0]?.id}`);
    assert.deepEqual(empty, { events: [], has_more: false });
    const exact = await feed(h.app, '?limit=3');
    assert.equal(exact.events.length, 3);
    assert.equal(exact.has_more, false);
  });

  test("tenant scoped: another app's events are never listed, nor usable as a cursor", async () => {
    const mine = await feed(other);
    assert.equal(mine.events.length, 1);
    assert.equal(mine.events[0]?.payload.amount, 40_000);
    const theirs = (await feed(h.app)).events[0]?.id as string;
    assertError(
      await h.gw.v1(other, 'GET', `/v1/events?after=${theirs}`),
      400,
      'after must be an event id from a previous page',
    );
  });

  test('every 400', async () => {
    for (const limit of ['0', '101', 'abc', '-1', '1.5', '1000']) {
      assertError(
        await h.gw.v1(h.app, 'GET', `/v1/events?limit=${limit}`),
        400,
        'limit must be an integer from 1 to 100',
      );
    }
    for (const cursor of ['evt_000000000000000000000000', 'nope', 'x'.repeat(65)]) {
      assertError(
        await h.gw.v1(h.app, 'GET', `/v1/events?after=${cursor}`),
        400,
        'after must be an event id from a previous page',
      );
    }
  });

  test('signed like every /v1 request; the admin token opens nothing', async () => {
    assertError(
      await rawSigned(h.gw.url, h.app, { path: '/v1/events', omit: ['X-PAY-Signature'] }),
      401,
      'missing auth headers',
    );
    assertError(
      await rawSigned(h.gw.url, h.app, { path: '/v1/events', secret: 'wrong' }),
      401,
      'bad signature',
    );
    assertError(await h.gw.admin('GET', '/v1/events'), 401, 'missing auth headers');
    // The query string is not part of the signed path.
    assertStatus(await rawSigned(h.gw.url, h.app, { path: '/v1/events?limit=1' }), 200);
  });

  test('an event of a transaction still open holds back every later one until it commits', async () => {
    const before = (await feed(h.app)).events.map((e) => e.id);
    exemptAnswers(h.gw.url, 'two events written by SQL with bodies no gateway event has', (a) =>
      /evt_(open|later)0{10}/.test(a.body),
    );
    const open = new pg.Client({ connectionString: h.gw.databaseUrl });
    await open.connect();
    try {
      await open.query('BEGIN');
      await open.query(
        `INSERT INTO outbound_events (id, app_id, event_type, body)
         VALUES ('evt_open00000000000000000000', $1, 'payment.succeeded', '{"n":1}')`,
        [h.app.app_id],
      );
      await sql(
        h.gw.databaseUrl,
        `INSERT INTO outbound_events (id, app_id, event_type, body)
         VALUES ('evt_later0000000000000000000', $1, 'payment.succeeded', '{"n":2}')`,
        [h.app.app_id],
      );
      // The later event has committed, but listing it would let a cursor pass the open one.
      assert.deepEqual(
        (await feed(h.app)).events.map((e) => e.id),
        before,
      );
      await open.query('COMMIT');
    } finally {
      await open.end();
    }
    const now = await feed(h.app, `?after=${before[before.length - 1]}`);
    assert.deepEqual(
      now.events.map((e) => [e.id, e.payload, e.delivery]),
      [
        ['evt_open00000000000000000000', { n: 1 }, null],
        ['evt_later0000000000000000000', { n: 2 }, null],
      ],
    );
  });

  test('a transaction open in another database of the server holds nothing back', async () => {
    const url = new URL(h.gw.databaseUrl);
    url.pathname = '/postgres';
    const elsewhere = new pg.Client({ connectionString: url.toString() });
    await elsewhere.connect();
    try {
      await elsewhere.query('BEGIN');
      await elsewhere.query('SELECT pg_current_xact_id()');
      const last = (await feed(h.app)).events.at(-1)?.id as string;
      const p = await paidPayment(h.gw, h.app, 'idr', 50_000);
      const next = await feed(h.app, `?after=${last}`);
      assert.deepEqual(
        next.events.map((e) => e.payload.payment_id),
        [p.id],
      );
    } finally {
      await elsewhere.query('ROLLBACK').catch(() => undefined);
      await elsewhere.end();
    }
  });
});

describe('POST /admin/apps/{id}/redeliver', () => {
  test('only_undelivered: fresh deliveries of dead events, same event ids and bodies', async () => {
    const g = await startWithReceiver();
    try {
      const delivered = (await paidPayment(g.gw, g.app, 'idr', 11_000)).id;
      await g.receiver.waitFor(1);
      // The app goes down: its handler answers 410, so the next deliveries die at once.
      g.receiver.behaviour = () => ({ status: 410 });
      const lost = [
        (await paidPayment(g.gw, g.app, 'idr', 12_000)).id,
        (await paidPayment(g.gw, g.app, 'idr', 13_000)).id,
      ];
      await g.receiver.waitFor(3);
      await eventually(async () => {
        const rows = await sql<{ n: number }>(
          g.gw.databaseUrl,
          `SELECT count(*)::int AS n FROM deliveries WHERE status = 'dead'`,
        );
        return rows[0]?.n === 2;
      });
      g.receiver.behaviour = () => ({ status: 200 });
      const since = new Date(Date.now() - 3_600_000).toISOString();
      const res = await g.gw.admin('POST', `/admin/apps/${g.app.app_id}/redeliver`, {
        since,
        only_undelivered: true,
      });
      assertStatus(res, 202);
      assert.deepEqual(res.json(), { deliveries: 2 });
      const got = await g.receiver.waitFor(5);
      const again = got.slice(3);
      const firstTries = got.slice(1, 3);
      for (const r of again) {
        const original = firstTries.find(
          (f) => f.headers['x-pay-event-id'] === r.headers['x-pay-event-id'],
        );
        assert.ok(original, 'redelivery keeps the event id');
        assert.equal(r.body, original.body);
        assert.ok(r.signatureValid);
      }
      assert.deepEqual(
        again.map((r) => (JSON.parse(r.body) as { payment_id: string }).payment_id).sort(),
        [...lost].sort(),
      );
      assert.ok(!again.some((r) => r.body.includes(delivered)));

      // Without only_undelivered every event in the range is sent again.
      const all = await g.gw.admin('POST', `/admin/apps/${g.app.app_id}/redeliver`, { since });
      assertStatus(all, 202);
      assert.deepEqual(all.json(), { deliveries: 3 });
      // A range that holds nothing.
      const none = await g.gw.admin('POST', `/admin/apps/${g.app.app_id}/redeliver`, {
        since: '2020-01-01',
        until: '2020-01-02T00:00:00Z',
      });
      assert.deepEqual(none.json(), { deliveries: 0 });
      const entries = await g.gw.admin('GET', '/admin/audit?action=app.redeliver');
      const details = entries
        .json<{ entries: { target_id: string; details: Record<string, unknown> }[] }>()
        .entries.map((e) => [e.target_id, e.details.deliveries, e.details.only_undelivered]);
      assert.deepEqual(details, [
        [g.app.app_id, 0, false],
        [g.app.app_id, 3, false],
        [g.app.app_id, 2, true],
      ]);
    } finally {
      await g.stop();
    }
  });

  test('every 400 and the 404; none enqueues anything', async () => {
    const path = `/admin/apps/${h.app.app_id}/redeliver`;
    const count = async () =>
      (await sql<{ n: number }>(h.gw.databaseUrl, `SELECT count(*)::int AS n FROM deliveries`))[0]
        ?.n;
    const n = await count();
    const cases: [unknown, string][] = [
      ['{not json', 'invalid JSON body'],
      [[], 'body must be a JSON object'],
      [{}, 'missing required fields: since'],
      [{ since: '' }, 'missing required fields: since'],
      [{ since: 'yesterday' }, 'since must be an RFC 3339 timestamp or a date YYYY-MM-DD (UTC)'],
      [{ since: 1700000000 }, 'since must be an RFC 3339 timestamp or a date YYYY-MM-DD (UTC)'],
      [
        { since: '2026-01-01', until: '2026-13-01' },
        'until must be an RFC 3339 timestamp or a date YYYY-MM-DD (UTC)',
      ],
      [{ since: '2026-01-02', until: '2026-01-01' }, 'since must not be after until'],
      [{ since: '2026-01-01', only_undelivered: 'yes' }, 'only_undelivered must be a boolean'],
    ];
    for (const [body, reason] of cases) {
      assertError(await h.gw.admin('POST', path, body), 400, reason);
    }
    assertError(
      await h.gw.admin('POST', '/admin/apps/app_unknown/redeliver', { since: '2026-01-01' }),
      404,
      'app not found',
    );
    assertError(
      await h.gw.admin('POST', path, { since: '2026-01-01' }, 'wrong-token'),
      401,
      'unauthorized',
    );
    assert.equal(await count(), n);
  });
});
