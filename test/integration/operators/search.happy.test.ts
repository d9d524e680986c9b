/**
 * GET /admin/payments search: q (id prefix of 8 or more, external_user_id, email,
 * invoice_number, provider_ref, exactly), app_id, created_from, created_to, amount_min,
 * amount_max, combined with mode, status and paging. Payments are written straight into the
 * database so creation times and fields are known.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertError, assertStatus, sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

let gw: TestGateway;
let shop: AppWithSecrets;
let other: AppWithSecrets;

interface Seed {
  id: string;
  app: () => AppWithSecrets;
  status: string;
  amount: number;
  user: string;
  email: string | null;
  invoice: string | null;
  ref: string | null;
  created: string;
}

const id = (n: number) => `${n.toString(16).padStart(2, '0')}c0ffee${'0'.repeat(23)}${n}`;
const SEEDS: Seed[] = [
  // Two payments share the id prefix "01c0ffee" and "02c0ffee"; ids end in their number.
  {
    id: id(1),
    app: () => shop,
    status: 'succeeded',
    amount: 1000,
    user: 'alice',
    email: 'alice@example.com',
    invoice: 'INV-000001',
    ref: 'ref-a1',
    created: '2026-03-01T10:00:00Z',
  },
  {
    id: id(2),
    app: () => shop,
    status: 'failed',
    amount: 2000,
    user: 'alice',
    email: 'alice@example.com',
    invoice: null,
    ref: 'ref-a2',
    created: '2026-03-02T10:00:00Z',
  },
  {
    id: id(3),
    app: () => shop,
    status: 'succeeded',
    amount: 3000,
    user: 'bob',
    email: 'bob@example.com',
    invoice: 'INV-000003',
    ref: 'alice',
    created: '2026-03-03T10:00:00Z',
  },
  {
    id: id(4),
    app: () => other,
    status: 'initiated',
    amount: 4000,
    user: 'alice',
    email: null,
    invoice: null,
    ref: null,
    created: '2026-03-04T00:00:00Z',
  },
  {
    id: id(5),
    app: () => other,
    status: 'succeeded',
    amount: 5000,
    user: 'carol',
    email: 'Alice@Example.com',
    invoice: 'INV-000005',
    ref: 'ref-c5',
    created: '2026-03-05T10:00:00Z',
  },
];

before(async () => {
  gw = await startTestGateway();
  shop = await gw.createApp({ name: 'Search shop' });
  other = await gw.createApp({ name: 'Other shop', mode: 'live' });
  for (const s of SEEDS) {
    const app = s.app();
    await sql(
      gw.databaseUrl,
      `INSERT INTO payments (id, app_id, mode, status, amount_minor, currency, method, provider,
         provider_ref, external_user_id, email, return_url, invoice_number, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'IDR', 'qris', 'idr_psp', $6, $7, $8, 'https://x.example', $9, $10, $10)`,
      [
        s.id,
        app.app_id,
        app.mode,
        s.status,
        s.amount,
        s.ref,
        s.user,
        s.email,
        s.invoice,
        s.created,
      ],
    );
  }
});

after(async () => {
  await gw?.stop();
});

async function ids(query: string): Promise<string[]> {
  const res = await gw.admin('GET', `/admin/payments${query}`);
  assertStatus(res, 200);
  return res.json<{ payments: { id: string }[] }>().payments.map((p) => p.id);
}

describe('GET /admin/payments search', () => {
  test('q matches an id by its prefix of 8 or more characters, or the whole id', async () => {
    assert.deepEqual(await ids('?q=01c0ffee'), [id(1)]);
    assert.deepEqual(await ids('?q=01C0FFEE00'), [id(1)]);
    assert.deepEqual(await ids(`?q=${id(3)}`), [id(3)]);
    // Seven characters are not a prefix search (and match nothing else).
    assert.deepEqual(await ids('?q=01c0ffe'), []);
  });

  test('q matches external_user_id, email, invoice_number and provider_ref exactly', async () => {
    // "alice" is the external_user_id of 1, 2 and 4, and the provider_ref of 3.
    assert.deepEqual(await ids('?q=alice'), [id(4), id(3), id(2), id(1)]);
    assert.deepEqual(await ids('?q=alice%40example.com'), [id(2), id(1)]);
    assert.deepEqual(await ids('?q=INV-000003'), [id(3)]);
    assert.deepEqual(await ids('?q=ref-c5'), [id(5)]);
    // Exactly: no case folding, no partial match.
    assert.deepEqual(await ids('?q=ALICE'), []);
    assert.deepEqual(await ids('?q=INV-00000'), []);
    assert.deepEqual(await ids('?q=%25'), []);
  });

  test('app_id, created_from / created_to, amount_min / amount_max, with mode and status', async () => {
    assert.deepEqual(await ids(`?app_id=${other.app_id}`), [id(5), id(4)]);
    assert.deepEqual(await ids(`?q=alice&app_id=${shop.app_id}`), [id(3), id(2), id(1)]);
    assert.deepEqual(await ids('?app_id=app_nobody'), []);
    // created_from inclusive, created_to exclusive; a date is midnight UTC.
    assert.deepEqual(await ids('?created_from=2026-03-02&created_to=2026-03-04'), [id(3), id(2)]);
    assert.deepEqual(
      await ids('?created_from=2026-03-02T10:00:00Z&created_to=2026-03-04T00:00:00.001Z'),
      [id(4), id(3), id(2)],
    );
    assert.deepEqual(await ids('?created_from=2026-03-03T12:00:00%2B02:00'), [id(5), id(4), id(3)]);
    // Amount bounds are inclusive.
    assert.deepEqual(await ids('?amount_min=2000&amount_max=4000'), [id(4), id(3), id(2)]);
    assert.deepEqual(await ids('?amount_min=0&amount_max=1000'), [id(1)]);
    assert.deepEqual(await ids('?q=alice&status=succeeded'), [id(3), id(1)]);
    assert.deepEqual(await ids('?q=alice&mode=live'), [id(4)]);
    assert.deepEqual(await ids('?q=alice&amount_min=1500&created_to=2026-03-03'), [id(2)]);
  });

  test('app_id with mode: the app mode lists its payments, another mode none', async () => {
    // An app's mode is fixed and its payments carry it (other is live, shop test).
    assert.deepEqual(await ids(`?app_id=${other.app_id}&mode=live`), [id(5), id(4)]);
    assert.deepEqual(await ids(`?app_id=${other.app_id}&mode=test`), []);
    assert.deepEqual(await ids(`?app_id=${shop.app_id}&mode=test&status=failed`), [id(2)]);
    assert.deepEqual(await ids(`?app_id=${shop.app_id}&mode=sandbox`), []);
    assert.deepEqual(await ids('?app_id=app_nobody&mode=live'), []);
    // The answer's mode is the mode asked for, with or without rows.
    const res = await gw.admin('GET', `/admin/payments?app_id=${other.app_id}&mode=test`);
    assertStatus(res, 200);
    assert.deepEqual(res.json(), { mode: 'test', payments: [], next_before: null });
    // A bad before is still refused when the app and mode exclude every payment.
    const bad = await gw.admin(
      'GET',
      `/admin/payments?app_id=${other.app_id}&mode=test&before=nope`,
    );
    assertError(bad, 400, 'before must be a payment id from a previous page');
  });

  test('search results page with limit and before', async () => {
    assert.deepEqual(await ids('?q=alice&limit=2'), [id(4), id(3)]);
    assert.deepEqual(await ids(`?q=alice&limit=2&before=${id(3)}`), [id(2), id(1)]);
    assert.deepEqual(await ids(`?q=alice&limit=2&before=${id(1)}`), []);
    assert.deepEqual(await ids(`?amount_min=2000&limit=1&before=${id(4)}`), [id(3)]);
  });

  test('a payment matched two ways is listed once', async () => {
    // Payment 1 is alice's; its invoice number becomes "alice" too.
    await sql(gw.databaseUrl, `UPDATE payments SET invoice_number = 'alice' WHERE id = $1`, [
      id(1),
    ]);
    try {
      assert.deepEqual(await ids('?q=alice'), [id(4), id(3), id(2), id(1)]);
    } finally {
      await sql(gw.databaseUrl, `UPDATE payments SET invoice_number = 'INV-000001' WHERE id = $1`, [
        id(1),
      ]);
    }
  });

  test('rows keep the list fields', async () => {
    const res = await gw.admin('GET', '/admin/payments?q=INV-000001');
    const [p] = res.json<{ payments: Record<string, unknown>[] }>().payments;
    assert.equal(p?.invoice_number, 'INV-000001');
    assert.equal(p?.refund_status, null);
    assert.equal(p?.app_id, shop.app_id);
    assert.equal(p?.created_at, '2026-03-01T10:00:00.000Z');
  });

  test('every 400', async () => {
    const TIME = 'must be an RFC 3339 timestamp or a date YYYY-MM-DD (UTC)';
    const cases: [string, string][] = [
      [`q=${'a'.repeat(201)}`, 'q must be at most 200 characters of text'],
      ['q=a%00b', 'q must be at most 200 characters of text'],
      ['q=a%0Ab', 'q must be at most 200 characters of text'],
      [`app_id=${'a'.repeat(65)}`, 'app_id must be at most 64 characters of text'],
      ['app_id=%00', 'app_id must be at most 64 characters of text'],
      ['created_from=yesterday', `created_from ${TIME}`],
      ['created_from=2026-02-30', `created_from ${TIME}`],
      ['created_to=2026-03-01T25:00:00Z', `created_to ${TIME}`],
      [
        'created_from=2026-03-02&created_to=2026-03-01',
        'created_from must not be after created_to',
      ],
      ['amount_min=-1', 'amount_min must be a non-negative integer'],
      ['amount_min=1.5', 'amount_min must be a non-negative integer'],
      ['amount_max=abc', 'amount_max must be a non-negative integer'],
      ['amount_max=99999999999999999', 'amount_max must be a non-negative integer'],
      ['amount_min=10&amount_max=9', 'amount_min must not be greater than amount_max'],
      ['q=alice&limit=0', 'limit must be an integer from 1 to 1000'],
      ['q=alice&before=nope', 'before must be a payment id from a previous page'],
      ['q=alice&status=paid', 'status must be one of initiated, succeeded, failed, canceled'],
    ];
    for (const [query, reason] of cases) {
      assertError(await gw.admin('GET', `/admin/payments?${query}`), 400, reason);
    }
  });
});
