import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { PaymentView, AppWithSecrets } from '../../helpers/contract.js';
import { assertError, assertStatus, assertTimestamp, HEX32, sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

// GET /v1/payments/{id} (docs/api.md#read-a-payment) over rows written straight into the database, so that the
// read side is tested on every state a payment can be in, whatever the provider adapters do.

const VIEW_KEYS = [
  'payment_id',
  'status',
  'amount_minor',
  'currency',
  'method',
  'provider',
  'provider_ref',
  'metadata',
  'invoice_number',
  'last_error',
  'created_at',
  'updated_at',
];

let gw: TestGateway;
let app: AppWithSecrets;
let other: AppWithSecrets;
before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp({ name: 'Reader' });
  other = await gw.createApp({ name: 'Neighbour' });
});
after(async () => {
  await gw?.stop();
});

interface Row {
  status?: string;
  amount_minor?: number;
  currency?: string;
  method?: string;
  provider?: string;
  provider_ref?: string | null;
  metadata?: Record<string, unknown>;
  invoice_number?: string | null;
  last_error?: string;
  created_at?: string;
  updated_at?: string;
}

async function insertPayment(owner: AppWithSecrets, row: Row = {}): Promise<string> {
  const id = randomBytes(16).toString('hex');
  await sql(
    gw.databaseUrl,
    `INSERT INTO payments (id, app_id, mode, status, amount_minor, currency, method, provider,
       provider_ref, external_user_id, email, return_url, metadata, invoice_number, last_error,
       checkout_url, created_at, updated_at)
     VALUES ($1, $2, 'test', $3, $4, $5, $6, $7, $8, 'user-9', 'secret-buyer@example.com',
       'https://shop.example.com/r', $9, $10, $11, 'https://checkout.example/x',
       COALESCE($12::timestamptz, now()), COALESCE($13::timestamptz, now()))`,
    [
      id,
      owner.app_id,
      row.status ?? 'initiated',
      row.amount_minor ?? 15000,
      row.currency ?? 'IDR',
      row.method ?? 'qris',
      row.provider ?? 'idr_psp',
      row.provider_ref === undefined ? 'ref-' + id.slice(0, 8) : row.provider_ref,
      JSON.stringify(row.metadata ?? {}),
      row.invoice_number ?? null,
      row.last_error ?? '',
      row.created_at ?? null,
      row.updated_at ?? null,
    ],
  );
  return id;
}

async function read(id: string, as: AppWithSecrets = app) {
  return gw.v1(as, 'GET', `/v1/payments/${id}`);
}

describe('GET /v1/payments/{id}: fields and formats', () => {
  test('exactly the fields of docs/api.md#read-a-payment, in order, with their types', async () => {
    const id = await insertPayment(app, {
      metadata: { order_id: 'A-17', nested: { ok: true }, list: [1, 2] },
      invoice_number: 'INV-000042',
    });
    const res = await read(id);
    assertStatus(res, 200);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    const p = res.json<PaymentView>();
    assert.deepEqual(Object.keys(p), VIEW_KEYS);
    assert.equal(p.payment_id, id);
    assert.match(p.payment_id, HEX32);
    assert.equal(p.status, 'initiated');
    assert.equal(p.amount_minor, 15000);
    assert.equal(typeof p.amount_minor, 'number');
    assert.equal(p.currency, 'IDR');
    assert.equal(p.method, 'qris');
    assert.equal(p.provider, 'idr_psp');
    assert.equal(p.provider_ref, 'ref-' + id.slice(0, 8));
    assert.deepEqual(p.metadata, { order_id: 'A-17', nested: { ok: true }, list: [1, 2] });
    assert.equal(p.invoice_number, 'INV-000042');
    assert.equal(p.last_error, '');
    assertTimestamp(p.created_at);
    assertTimestamp(p.updated_at);
    // Nothing about the buyer or the app leaks into the payment view.
    assert.ok(!res.text.includes('secret-buyer@example.com'));
    assert.ok(!res.text.includes('user-9'));
    assert.ok(!res.text.includes(app.app_id));
  });

  test('invoice_number is "" without a prefix, provider_ref "" before registration', async () => {
    const id = await insertPayment(app, { provider_ref: null });
    const p = (await read(id)).json<PaymentView>();
    assert.equal(p.invoice_number, '');
    assert.equal(p.provider_ref, '');
    assert.deepEqual(p.metadata, {});
  });

  test('timestamps are UTC RFC 3339 whatever the session time zone', async () => {
    const id = await insertPayment(app, {
      created_at: '2026-03-01 09:30:00.123+07',
      updated_at: '2026-03-01 10:00:00+07',
    });
    const p = (await read(id)).json<PaymentView>();
    assert.equal(p.created_at, '2026-03-01T02:30:00.123Z');
    assert.equal(p.updated_at, '2026-03-01T03:00:00.000Z');
  });

  test('each status, with last_error verbatim for a failure', async () => {
    for (const status of ['initiated', 'succeeded', 'canceled']) {
      const p = (await read(await insertPayment(app, { status }))).json<PaymentView>();
      assert.equal(p.status, status);
      assert.equal(p.last_error, '');
    }
    const failed = await insertPayment(app, {
      status: 'failed',
      last_error: 'Transaction is denied: "insufficient funds" — card 4111',
    });
    const p = (await read(failed)).json<PaymentView>();
    assert.equal(p.status, 'failed');
    assert.equal(p.last_error, 'Transaction is denied: "insufficient funds" — card 4111');
  });

  test('card and wallet payments in minor units', async () => {
    const id = await insertPayment(app, {
      amount_minor: 1999,
      currency: 'USD',
      method: 'card_psp',
      provider: 'card_psp',
      metadata: { card_psp_product_id: 'prod_1' },
    });
    const p = (await read(id)).json<PaymentView>();
    assert.equal(p.amount_minor, 1999);
    assert.equal(p.currency, 'USD');
    assert.equal(p.method, 'card_psp');
    assert.equal(p.provider, 'card_psp');
    const big = await insertPayment(app, { amount_minor: Number.MAX_SAFE_INTEGER });
    assert.equal((await read(big)).json<PaymentView>().amount_minor, Number.MAX_SAFE_INTEGER);
  });
});

describe('GET /v1/payments/{id}: 404 payment not found', () => {
  test('an id that does not exist', async () => {
    assertError(await read(randomBytes(16).toString('hex')), 404, 'payment not found');
  });

  test("another app's payment (tenant scoping)", async () => {
    const id = await insertPayment(other);
    assertStatus(await read(id, other), 200);
    assertError(await read(id, app), 404, 'payment not found');
  });

  const malformed: [string, string][] = [
    ['uppercase hex', randomBytes(16).toString('hex').toUpperCase()],
    ['31 characters', 'a'.repeat(31)],
    ['33 characters', 'a'.repeat(33)],
    ['not hex', 'g'.repeat(32)],
    ['a UUID', '123e4567-e89b-12d3-a456-426614174000'],
    ['a word', 'latest'],
    ['an SQL fragment', "x'%20OR%20'1'='1"],
    ['an encoded slash', '..%2F..%2Fadmin'],
  ];
  for (const [what, id] of malformed) {
    test(`a malformed id (${what})`, async () => {
      assertError(await read(id), 404, 'payment not found');
    });
  }

  test('an existing id with different case is not found', async () => {
    const id = await insertPayment(app);
    assertError(await read(id.toUpperCase()), 404, 'payment not found');
  });
});

describe('GET /v1/payments/{id}: a settled payment, read again from the cache', () => {
  test('the same bytes as the first read, beyond ASCII too, and never for another app', async () => {
    const id = await insertPayment(app, {
      status: 'succeeded',
      metadata: { buyer: 'Désirée Ñúñez', city: '東京', note: '💳✅', zwj: '👩‍💻' },
      last_error: '',
    });
    // The first read fills the cache from the row, the second is answered from it: the row
    // changed behind the gateway's back (nothing in the gateway changes a settled one) shows
    // that it is.
    const first = await read(id);
    assertStatus(first, 200);
    await sql(gw.databaseUrl, `UPDATE payments SET metadata = '{}' WHERE id = $1`, [id]);
    const second = await read(id);
    assertStatus(second, 200);
    assert.equal(second.text, first.text);
    assert.equal(second.headers.get('content-length'), first.headers.get('content-length'));
    assert.equal(
      Number(second.headers.get('content-length')),
      Buffer.byteLength(second.text, 'utf8'),
    );
    assert.deepEqual(second.json<PaymentView>().metadata, {
      buyer: 'Désirée Ñúñez',
      city: '東京',
      note: '💳✅',
      zwj: '👩‍💻',
    });
    assertError(await read(id, other), 404, 'payment not found');
    assert.equal((await read(id)).text, first.text);
  });
});
