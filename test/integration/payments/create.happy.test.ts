import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AppWithSecrets, PaymentView } from '../../helpers/contract.js';
import { simulatorEndpoint } from '../../helpers/drivers/sim.js';
import {
  assertError,
  assertStatus,
  assertTimestamp,
  count,
  HEX32,
  paymentBody,
  sql,
} from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

interface Created {
  payment_id: string;
  status: string;
  checkout_url: string;
  invoice_number?: string;
}

let gw: TestGateway;
let app: AppWithSecrets;
before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp({ name: 'Happy shop' });
});
after(async () => {
  await gw?.stop();
});

async function create(body: Record<string, unknown>, a: AppWithSecrets = app): Promise<Created> {
  const res = await gw.v1(a, 'POST', '/v1/payments', body);
  assertStatus(res, 201);
  return res.json<Created>();
}

async function customer(appId: string, externalUserId: string) {
  const rows = await sql<{ email: string | null; payments_count: number }>(
    gw.databaseUrl,
    'SELECT email, payments_count FROM customers WHERE app_id = $1 AND external_user_id = $2',
    [appId, externalUserId],
  );
  return rows;
}

describe('POST /v1/payments: idr_psp qris', () => {
  test('201 with payment_id, status initiated and checkout_url; no invoice_number', async () => {
    const res = await gw.v1(app, 'POST', '/v1/payments', paymentBody());
    assertStatus(res, 201);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    const body = res.json<Created>();
    assert.deepEqual(Object.keys(body).sort(), ['checkout_url', 'payment_id', 'status']);
    assert.match(body.payment_id, HEX32);
    assert.equal(body.status, 'initiated');
    const checkout = new URL(body.checkout_url);
    assert.ok(['http:', 'https:'].includes(checkout.protocol));
    // Test mode: the checkout page is the gateway's own simulator (docs/api.md#test-mode).
    assert.ok(body.checkout_url.startsWith(`${gw.running.gw.urls.public}/sim/idr_psp/`));
    const page = await fetch(body.checkout_url.replace(gw.running.gw.urls.public, gw.url));
    assert.equal(page.status, 200);
  });

  test('with invoice_prefix the 201 carries invoice_number <prefix>-<6 digits>', async () => {
    const body = await create(paymentBody({ invoice_prefix: 'SHOP-1' }));
    assert.deepEqual(Object.keys(body).sort(), [
      'checkout_url',
      'invoice_number',
      'payment_id',
      'status',
    ]);
    assert.match(body.invoice_number ?? '', /^SHOP-1-\d{6}$/);
  });

  test('every prefix shape the pattern allows', async () => {
    for (const prefix of ['A', 'ABCDEFGHIJKL', 'X-', 'Z9-9']) {
      const body = await create(paymentBody({ invoice_prefix: prefix }));
      assert.ok(body.invoice_number?.startsWith(`${prefix}-`));
      assert.match(body.invoice_number?.slice(prefix.length + 1) ?? '', /^\d{6}$/);
    }
  });

  test('GET shows the payment with its fields and formats', async () => {
    const request = paymentBody({
      amount_minor: 250000,
      metadata: { order_id: 'POS-77', till: 3, tags: ['a'] },
    });
    const created = await create(request);
    const res = await gw.v1(app, 'GET', `/v1/payments/${created.payment_id}`);
    assertStatus(res, 200);
    const p = res.json<PaymentView>();
    assert.deepEqual(Object.keys(p), [
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
    ]);
    assert.equal(p.payment_id, created.payment_id);
    assert.equal(p.status, 'initiated');
    assert.equal(p.amount_minor, 250000);
    assert.equal(p.currency, 'IDR');
    assert.equal(p.method, 'qris');
    assert.equal(p.provider, 'idr_psp');
    assert.equal(typeof p.provider_ref, 'string');
    assert.notEqual(p.provider_ref, '');
    assert.deepEqual(p.metadata, { order_id: 'POS-77', till: 3, tags: ['a'] });
    assert.equal(
      p.invoice_number,
      '',
      'GET carries invoice_number "" without a prefix (docs/api.md#read-a-payment)',
    );
    assert.equal(p.last_error, '');
    assertTimestamp(p.created_at);
    assertTimestamp(p.updated_at);
    assert.ok(Date.parse(p.updated_at) >= Date.parse(p.created_at));
  });

  test('GET shows the invoice_number of the 201', async () => {
    const created = await create(paymentBody({ invoice_prefix: 'INV' }));
    const p = (await gw.v1(app, 'GET', `/v1/payments/${created.payment_id}`)).json<PaymentView>();
    assert.equal(p.invoice_number, created.invoice_number);
  });

  test('every IDR virtual account rail registers too', async () => {
    for (const method of ['va_bca', 'va_mandiri', 'va_bni', 'va_bri', 'va_permata']) {
      const created = await create(paymentBody({ method }));
      const p = (await gw.v1(app, 'GET', `/v1/payments/${created.payment_id}`)).json<PaymentView>();
      assert.equal(p.method, method);
      assert.equal(p.provider, 'idr_psp');
    }
  });

  test('another app gets 404 payment not found (tenant scoping)', async () => {
    const created = await create(paymentBody());
    const other = await gw.createApp({ name: 'Nosy' });
    assertError(
      await gw.v1(other, 'GET', `/v1/payments/${created.payment_id}`),
      404,
      'payment not found',
    );
    assertError(
      await gw.v1(app, 'GET', `/v1/payments/${created.payment_id.toUpperCase()}`),
      404,
      'payment not found',
    );
    assertError(
      await gw.v1(app, 'GET', `/v1/payments/${created.payment_id.slice(1)}`),
      404,
      'payment not found',
    );
  });

  test('each payment gets a distinct id', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) ids.add((await create(paymentBody())).payment_id);
    assert.equal(ids.size, 5);
  });

  test('the stored row: the app, its mode, the buyer, the registration', async () => {
    const created = await create(paymentBody({ external_user_id: 'row-check' }));
    const [row] = await sql<Record<string, unknown>>(
      gw.databaseUrl,
      'SELECT * FROM payments WHERE id = $1',
      [created.payment_id],
    );
    assert.equal(row?.app_id, app.app_id);
    assert.equal(row?.mode, 'test');
    assert.equal(row?.external_user_id, 'row-check');
    assert.equal(row?.email, 'buyer@example.com');
    assert.equal(row?.return_url, 'https://shop.example.com/return');
    assert.equal(row?.checkout_url, created.checkout_url);
    assert.equal(typeof row?.provider_ref, 'string');
  });
});

describe('the provider says no (docs/api.md#create-a-payment)', () => {
  test('IDR qris without email: 502 with the provider text; the payment is failed', async () => {
    const body = paymentBody({ external_user_id: 'no-email' });
    delete body.email;
    const res = await gw.v1(app, 'POST', '/v1/payments', body);
    assertError(res, 502, 'provider checkout failed: customer_details.email is required for qris');
    const rows = await sql<{ status: string; last_error: string }>(
      gw.databaseUrl,
      'SELECT status, last_error FROM payments WHERE external_user_id = $1',
      ['no-email'],
    );
    assert.deepEqual(rows, [
      { status: 'failed', last_error: 'customer_details.email is required for qris' },
    ]);
  });
});

describe('customers (docs/api.md#customers)', () => {
  test('one row per (app, external_user_id); payments_count counts payments', async () => {
    const a = await gw.createApp({ name: 'Customers A' });
    const b = await gw.createApp({ name: 'Customers B' });
    await create(paymentBody({ external_user_id: 'buyer-1' }), a);
    assert.deepEqual(await customer(a.app_id, 'buyer-1'), [
      { email: 'buyer@example.com', payments_count: 1 },
    ]);
    await create(paymentBody({ external_user_id: 'buyer-1', email: 'new@example.com' }), a);
    await create(paymentBody({ external_user_id: 'buyer-1', method: 'va_bca' }), a);
    assert.deepEqual(await customer(a.app_id, 'buyer-1'), [
      { email: 'buyer@example.com', payments_count: 3 },
    ]);
    // Another buyer of the same app, and the same buyer id in another app: separate rows.
    await create(paymentBody({ external_user_id: 'buyer-2' }), a);
    await create(paymentBody({ external_user_id: 'buyer-1' }), b);
    assert.equal((await customer(a.app_id, 'buyer-2'))[0]?.payments_count, 1);
    assert.equal((await customer(b.app_id, 'buyer-1'))[0]?.payments_count, 1);
    assert.equal(await count(gw.databaseUrl, 'customers WHERE app_id = $1', [a.app_id]), 2);
    assert.equal(await count(gw.databaseUrl, 'customers WHERE app_id = $1', [b.app_id]), 1);
  });

  test('the latest email is kept', async () => {
    const a = await gw.createApp({ name: 'Emails' });
    await create(paymentBody({ external_user_id: 'e', email: 'first@example.com' }), a);
    await create(paymentBody({ external_user_id: 'e', email: 'second@example.com' }), a);
    assert.deepEqual(await customer(a.app_id, 'e'), [
      { email: 'second@example.com', payments_count: 2 },
    ]);
  });
});

describe('invoice numbers: one global sequence (docs/api.md#invoice-numbers)', () => {
  test('shared across apps, consecutive, zero-padded to 6 digits', async () => {
    const a = await gw.createApp({ name: 'Invoices A' });
    const b = await gw.createApp({ name: 'Invoices B' });
    const first = await create(paymentBody({ invoice_prefix: 'AAA' }), a);
    const second = await create(paymentBody({ invoice_prefix: 'BBB' }), b);
    await create(paymentBody(), a); // no prefix: no number taken
    const third = await create(paymentBody({ invoice_prefix: 'AAA' }), a);
    const n = (s: string | undefined) => Number(s?.split('-').at(-1));
    assert.match(first.invoice_number ?? '', /^AAA-\d{6}$/);
    assert.match(second.invoice_number ?? '', /^BBB-\d{6}$/);
    assert.equal(n(second.invoice_number), n(first.invoice_number) + 1);
    assert.equal(n(third.invoice_number), n(second.invoice_number) + 1);
  });

  test('past 999999 the number grows to 7 digits and never wraps', async () => {
    await sql(gw.databaseUrl, "SELECT setval('invoice_number_seq', 999998)");
    const last6 = await create(paymentBody({ invoice_prefix: 'BIG' }));
    assert.equal(last6.invoice_number, 'BIG-999999');
    const first7 = await create(paymentBody({ invoice_prefix: 'BIG' }));
    assert.equal(first7.invoice_number, 'BIG-1000000');
    const next = await create(paymentBody({ invoice_prefix: 'B' }));
    assert.equal(next.invoice_number, 'B-1000001');
    const p = (await gw.v1(app, 'GET', `/v1/payments/${first7.payment_id}`)).json<PaymentView>();
    assert.equal(p.invoice_number, 'BIG-1000000');
  });
});

describe('mode inheritance (docs/api.md#modes)', () => {
  test('a test-mode app makes test-mode payments on the simulator', async () => {
    const created = await create(paymentBody({ external_user_id: 'mode-test' }));
    const [row] = await sql<{ mode: string }>(
      gw.databaseUrl,
      'SELECT mode FROM payments WHERE id = $1',
      [created.payment_id],
    );
    assert.equal(row?.mode, 'test');
  });

  test('a sandbox app uses the sandbox endpoint and makes sandbox payments', async () => {
    // A second gateway whose idr_psp sandbox endpoint is the first gateway's simulator.
    const sim = simulatorEndpoint('idr_psp', gw.config.masterKey, `${gw.url}/sim/idr_psp`);
    const second = await startTestGateway({
      MASTER_KEY: gw.config.masterKey.toString('hex'),
      IDR_PSP_SANDBOX_BASE_URL: sim.baseUrl,
      IDR_PSP_SANDBOX_SERVER_KEY: sim.credentials.serverKey ?? '',
    });
    try {
      const sandbox = await second.createApp({ name: 'Sandbox shop', mode: 'sandbox' });
      const testApp = await second.createApp({ name: 'Test shop' });
      const res = await second.v1(sandbox, 'POST', '/v1/payments', paymentBody());
      assertStatus(res, 201);
      const created = res.json<Created>();
      const [row] = await sql<{ mode: string }>(
        second.databaseUrl,
        'SELECT mode FROM payments WHERE id = $1',
        [created.payment_id],
      );
      assert.equal(row?.mode, 'sandbox');
      // The registration went to the first gateway's simulator, not the second's.
      assert.equal(
        await count(
          gw.databaseUrl,
          "paygate_sim.sim_objects WHERE provider = 'idr_psp' AND id = $1",
          [created.payment_id],
        ),
        1,
      );
      assert.equal(await count(second.databaseUrl, 'paygate_sim.sim_objects'), 0);
      // The test-mode app of the same gateway still uses its own simulator.
      const t = await second.v1(testApp, 'POST', '/v1/payments', paymentBody());
      assertStatus(t, 201);
      const [testRow] = await sql<{ mode: string }>(
        second.databaseUrl,
        'SELECT mode FROM payments WHERE id = $1',
        [t.json<Created>().payment_id],
      );
      assert.equal(testRow?.mode, 'test');
      // card_psp has no sandbox configuration there.
      assertError(
        await second.v1(
          sandbox,
          'POST',
          '/v1/payments',
          paymentBody({ currency: 'USD', method: 'card_psp' }),
        ),
        502,
        'provider checkout failed: card_psp is not configured for sandbox mode',
      );
    } finally {
      await second.stop();
    }
  });
});

describe('IDR_PSP_DIRECT_QR (docs/api.md#create-a-payment response shapes)', () => {
  test('qris answers qr_string and qr_image_url; a virtual account does not', async () => {
    const direct = await startTestGateway({ IDR_PSP_DIRECT_QR: 'true' });
    try {
      const shop = await direct.createApp({ name: 'Direct QR' });
      const res = await direct.v1(shop, 'POST', '/v1/payments', paymentBody());
      assertStatus(res, 201);
      const body = res.json<Created & { qr_string?: string; qr_image_url?: string }>();
      assert.match(body.payment_id, HEX32);
      assert.equal(body.status, 'initiated');
      assert.ok(body.checkout_url, 'checkout_url is always present');
      assert.equal(typeof body.qr_string, 'string');
      assert.notEqual(body.qr_string, '');
      const image = new URL(body.qr_image_url ?? '');
      assert.ok(['http:', 'https:'].includes(image.protocol));
      assert.equal('invoice_number' in body, false);

      const va = await direct.v1(shop, 'POST', '/v1/payments', paymentBody({ method: 'va_bni' }));
      assertStatus(va, 201);
      assert.deepEqual(Object.keys(va.json()).sort(), ['checkout_url', 'payment_id', 'status']);
    } finally {
      await direct.stop();
    }
  });
});
