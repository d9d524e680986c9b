import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, afterEach, before, describe, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertError, count, nowSeconds, paymentBody, sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { sign, type HttpResult } from '../../helpers/http.js';

const REQUIRED = ['external_user_id', 'amount_minor', 'currency', 'method', 'return_url'];
const MIB = 1024 * 1024;

let gw: TestGateway;
let app: AppWithSecrets;
before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp({ name: 'Error shop' });
});
after(async () => {
  await gw?.stop();
});

/** Bad input changes nothing: no payment, no customer, no stored idempotent response. */
async function assertNothingWritten(g: TestGateway = gw): Promise<void> {
  assert.equal(await count(g.databaseUrl, 'payments'), 0, 'payments written');
  assert.equal(await count(g.databaseUrl, 'customers'), 0, 'customers written');
  assert.equal(
    await count(g.databaseUrl, "idempotency_keys WHERE state <> 'released'"),
    0,
    'idempotency keys held',
  );
}
afterEach(() => assertNothingWritten());

const create = (body: string | object, a: AppWithSecrets = app, headers?: Record<string, string>) =>
  gw.v1(a, 'POST', '/v1/payments', body, headers);

describe('400 invalid JSON body', () => {
  for (const raw of ['{', 'not json', '{"amount_minor": 1,}', "{'a': 1}", '', '\u0000']) {
    test(`body ${JSON.stringify(raw)}`, async () => {
      // An empty body is signed as empty and sent without one.
      assertError(await create(raw), 400, 'invalid JSON body');
    });
  }

  test('with an Idempotency-Key too', async () => {
    assertError(
      await create('{', app, { 'Idempotency-Key': 'bad-json-1' }),
      400,
      'invalid JSON body',
    );
  });
});

describe('400 body must be a JSON object', () => {
  for (const raw of ['[]', '[{"currency":"IDR"}]', '"text"', '42', 'null', 'true']) {
    test(`body ${raw}`, async () => {
      assertError(await create(raw), 400, 'body must be a JSON object');
    });
  }
});

describe('400 missing required fields (docs/api.md#create-a-payment: documented order, absent/null/empty all count)', () => {
  const combos: string[][] = [
    ['external_user_id'],
    ['amount_minor'],
    ['currency'],
    ['method'],
    ['return_url'],
    ['external_user_id', 'return_url'],
    ['amount_minor', 'method'],
    ['currency', 'method', 'return_url'],
    ['external_user_id', 'amount_minor', 'currency', 'method'],
    REQUIRED,
  ];
  for (const missing of combos) {
    for (const how of ['absent', 'null', 'empty string', 'mixed'] as const) {
      test(`${missing.join(', ')} (${how})`, async () => {
        const body: Record<string, unknown> = paymentBody();
        // Insert the missing ones in reverse order, so that the answer's order is the documented one (docs/api.md#create-a-payment).
        for (const [i, f] of [...missing].reverse().entries()) {
          const mode = how === 'mixed' ? (['absent', 'null', 'empty string'] as const)[i % 3] : how;
          if (mode === 'absent') delete body[f];
          else body[f] = mode === 'null' ? null : '';
        }
        assertError(await create(body), 400, `missing required fields: ${missing.join(', ')}`);
      });
    }
  }

  test('an empty object: all five', async () => {
    assertError(
      await create({}),
      400,
      'missing required fields: external_user_id, amount_minor, currency, method, return_url',
    );
  });

  test('a body with only optional fields: all five', async () => {
    assertError(
      await create({ email: 'a@b.example', metadata: { x: 1 }, invoice_prefix: 'INV' }),
      400,
      'missing required fields: external_user_id, amount_minor, currency, method, return_url',
    );
  });

  test('email is not required by the gateway (it is not listed)', async () => {
    const body = paymentBody({ amount_minor: null });
    delete body.email;
    assertError(await create(body), 400, 'missing required fields: amount_minor');
  });

  test('missing fields are reported before other invalid values', async () => {
    assertError(
      await create(paymentBody({ currency: '', amount_minor: -5, return_url: 'nope' })),
      400,
      'missing required fields: currency',
    );
  });
});

describe('400 amount_minor must be a positive integer', () => {
  const values: [string, unknown][] = [
    ['0', 0],
    ['negative', -1],
    ['negative large', -15000],
    ['1.5', 1.5],
    ['the string "100"', '100'],
    ['2**53', 2 ** 53],
    ['1e300', 1e300],
    ['true', true],
    ['an array', [100]],
    ['an object', { value: 100 }],
  ];
  for (const [what, amount] of values) {
    test(what, async () => {
      assertError(
        await create(paymentBody({ amount_minor: amount })),
        400,
        'amount_minor must be a positive integer',
      );
    });
  }

  test('a number literal beyond 2**53 in the raw JSON', async () => {
    const raw = JSON.stringify(paymentBody({ amount_minor: 1 })).replace(
      '"amount_minor":1',
      '"amount_minor":123456789012345678901234567890',
    );
    assertError(await create(raw), 400, 'amount_minor must be a positive integer');
  });
});

describe('400 other invalid fields', () => {
  for (const url of [
    '/return',
    'shop.example.com/return',
    'ftp://shop.example.com/return',
    'javascript:alert(1)',
    'https://',
    'file:///etc/passwd',
  ]) {
    test(`return_url ${url}`, async () => {
      assertError(
        await create(paymentBody({ return_url: url })),
        400,
        'return_url must be an absolute http(s) URL',
      );
    });
  }

  for (const metadata of [[], 'order-1', 7, true, [{ a: 1 }]]) {
    test(`metadata ${JSON.stringify(metadata)}`, async () => {
      assertError(await create(paymentBody({ metadata })), 400, 'metadata must be a JSON object');
    });
  }

  const prefixes: [string, unknown][] = [
    ['lowercase', 'inv'],
    ['mixed case', 'Inv'],
    ['13 characters', 'ABCDEFGHIJKLM'],
    ['starts with a digit', '1INV'],
    ['starts with a dash', '-INV'],
    ['empty string', ''],
    ['with a space', 'IN V'],
    ['with an underscore', 'INV_1'],
    ['a number', 12],
  ];
  for (const [what, prefix] of prefixes) {
    test(`invoice_prefix ${what}`, async () => {
      const res = await create(paymentBody({ invoice_prefix: prefix }));
      assertError(res, 400, 'invoice_prefix must match ^[A-Z][A-Z0-9-]{0,11}$');
    });
  }

  const wrongTypes: [string, unknown, string][] = [
    ['external_user_id', 12345, 'external_user_id must be a string'],
    ['currency', 360, 'currency must be a string'],
    ['method', ['qris'], 'method must be a string'],
    ['return_url', { href: 'https://x.example' }, 'return_url must be a string'],
    ['email', 42, 'email must be a string'],
    ['email', 'no-at-sign', 'email must be an email address'],
  ];
  for (const [field, value, reason] of wrongTypes) {
    test(`${field} ${JSON.stringify(value)}`, async () => {
      assertError(await create(paymentBody({ [field]: value })), 400, reason);
    });
  }

  test('validation comes before routing', async () => {
    assertError(
      await create(paymentBody({ method: 'bitcoin', amount_minor: 0 })),
      400,
      'amount_minor must be a positive integer',
    );
  });
});

describe('422 routing (docs/api.md#routing)', () => {
  const unsupported: [string, string][] = [
    ['IDR', 'bitcoin'],
    ['JPY', 'qris'],
    ['idr', 'qris'],
    ['Idr', 'va_bca'],
    ['IDR', 'QRIS'],
    ['USD', 'qris'],
    ['EUR', 'va_mandiri'],
    ['IDR', 'card_psp'],
    ['IDR', 'wallet_psp'],
    ['usd', 'card_psp'],
  ];
  for (const [currency, method] of unsupported) {
    test(`currency=${currency} method=${method}`, async () => {
      assertError(
        await create(paymentBody({ currency, method })),
        422,
        `no provider supports method=${method} for currency=${currency}`,
      );
    });
  }

  test('the provider is not in allowed_providers', async () => {
    const cardOnly = await gw.createApp({ allowed_providers: ['card_psp'] });
    assertError(
      await create(paymentBody(), cardOnly),
      422,
      'provider idr_psp not allowed for this app',
    );
    assertError(
      await create(paymentBody({ currency: 'USD', method: 'wallet_psp' }), cardOnly),
      422,
      'provider wallet_psp not allowed for this app',
    );
    const idrOnly = await gw.createApp({ allowed_providers: ['idr_psp'] });
    assertError(
      await create(paymentBody({ currency: 'EUR', method: 'card_psp' }), idrOnly),
      422,
      'provider card_psp not allowed for this app',
    );
  });

  test('the method is not in the provider allowed_methods', async () => {
    const vaOnly = await gw.createApp({
      allowed_methods: { idr_psp: ['va_bca', 'va_bni'], card_psp: [] },
    });
    assertError(
      await create(paymentBody({ method: 'qris' }), vaOnly),
      422,
      'method qris not enabled for provider idr_psp on this app',
    );
    assertError(
      await create(paymentBody({ method: 'va_permata' }), vaOnly),
      422,
      'method va_permata not enabled for provider idr_psp on this app',
    );
    assertError(
      await create(paymentBody({ currency: 'GBP', method: 'card_psp' }), vaOnly),
      422,
      'method card_psp not enabled for provider card_psp on this app',
    );
  });

  test('unknown pair wins over the app policy', async () => {
    const none = await gw.createApp({ allowed_providers: [] });
    assertError(
      await create(paymentBody({ currency: 'USD', method: 'qris' }), none),
      422,
      'no provider supports method=qris for currency=USD',
    );
    assertError(
      await create(paymentBody(), none),
      422,
      'provider idr_psp not allowed for this app',
    );
  });
});

/** Sends a signed POST over node:http, so that the body size and framing are ours to choose. */
function rawPost(body: Buffer, chunked: boolean): Promise<HttpResult> {
  const ts = String(nowSeconds());
  const u = new URL(gw.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        method: 'POST',
        path: '/v1/payments',
        headers: {
          'Content-Type': 'application/json',
          'X-PAY-Key': app.api_key,
          'X-PAY-Timestamp': ts,
          'X-PAY-Signature': sign(app.signing_secret, ts, 'POST', '/v1/payments', body.toString()),
          ...(chunked ? { 'Transfer-Encoding': 'chunked' } : { 'Content-Length': body.length }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            if (typeof v === 'string') headers.set(k, v);
          }
          resolve({
            status: res.statusCode ?? 0,
            text,
            headers,
            json: <T>() => JSON.parse(text) as T,
          });
        });
      },
    );
    // The server may answer and close before it has read everything we send.
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err);
    });
    if (chunked) {
      for (let i = 0; i < body.length; i += 64 * 1024) req.write(body.subarray(i, i + 64 * 1024));
      req.end();
    } else req.end(body);
  });
}

/** A JSON object of exactly n bytes that lacks every required field. */
function paddedBody(n: number): Buffer {
  const shell = '{"pad":""}';
  return Buffer.from(shell.replace('""', `"${'x'.repeat(n - shell.length)}"`));
}

describe('413 body too large (docs/api.md#limits)', () => {
  test('1 MiB + 1 byte with Content-Length', async () => {
    assertError(await rawPost(paddedBody(MIB + 1), false), 413, 'body too large');
  });

  test('2 MiB chunked, without Content-Length', async () => {
    assertError(await rawPost(paddedBody(2 * MIB), true), 413, 'body too large');
  });

  test('exactly 1 MiB is read and validated', async () => {
    assertError(
      await rawPost(paddedBody(MIB), false),
      400,
      'missing required fields: external_user_id, amount_minor, currency, method, return_url',
    );
  });
});

describe('502 provider not configured for the mode (docs/api.md#modes)', () => {
  test('a sandbox app without sandbox provider configuration', async () => {
    const sandbox = await gw.createApp({ mode: 'sandbox' });
    assertError(
      await create(paymentBody(), sandbox),
      502,
      'provider checkout failed: idr_psp is not configured for sandbox mode',
    );
    assertError(
      await create(paymentBody({ currency: 'USD', method: 'card_psp' }), sandbox),
      502,
      'provider checkout failed: card_psp is not configured for sandbox mode',
    );
    assertError(
      await create(paymentBody({ currency: 'EUR', method: 'wallet_psp' }), sandbox, {
        'Idempotency-Key': 'sandbox-1',
      }),
      502,
      'provider checkout failed: wallet_psp is not configured for sandbox mode',
    );
  });

  test('a live app without live provider configuration', async () => {
    const live = await gw.createApp({ mode: 'live' });
    assertError(
      await create(paymentBody(), live),
      502,
      'provider checkout failed: idr_psp is not configured for live mode',
    );
  });

  test('SIMULATORS=off: a test-mode app has no provider', async () => {
    const off = await startTestGateway({ SIMULATORS: 'off' });
    try {
      const testApp = await off.createApp();
      const res = await off.v1(testApp, 'POST', '/v1/payments', paymentBody());
      assertError(res, 502, 'provider checkout failed: idr_psp is not configured for test mode');
      assertError(
        await off.v1(
          testApp,
          'POST',
          '/v1/payments',
          paymentBody({ currency: 'USD', method: 'card_psp' }),
        ),
        502,
        'provider checkout failed: card_psp is not configured for test mode',
      );
      // Simulator routes do not exist either.
      const sim = await fetch(`${off.url}/sim/idr_psp/payments/x/pay`, { method: 'POST' });
      assert.equal(sim.status, 404);
      assert.equal(await sim.text(), 'not found');
      await assertNothingWritten(off);
    } finally {
      await off.stop();
    }
  });
});

describe('500 internal failures are retryable with the same Idempotency-Key (docs/api.md#errors)', () => {
  // A gateway of its own: these failures are staged with constraints and triggers in its database.
  let g: TestGateway;
  let shop: AppWithSecrets;
  before(async () => {
    g = await startTestGateway();
    shop = await g.createApp({ name: 'Fragile shop' });
  });
  after(async () => {
    await g?.stop();
  });

  const post = (body: object, key: string) =>
    g.v1(shop, 'POST', '/v1/payments', body, { 'Idempotency-Key': key });

  test('500 customer upsert failed: nothing written; the retry succeeds', async () => {
    const body = paymentBody({ external_user_id: 'boom-customer' });
    await sql(
      g.databaseUrl,
      "ALTER TABLE customers ADD CONSTRAINT t_boom CHECK (external_user_id <> 'boom-customer')",
    );
    try {
      assertError(await post(body, 'cust-1'), 500, 'customer upsert failed');
      await assertNothingWritten(g);
    } finally {
      await sql(g.databaseUrl, 'ALTER TABLE customers DROP CONSTRAINT t_boom');
    }
    const retry = await post(body, 'cust-1');
    assert.equal(retry.status, 201, retry.text);
  });

  test('500 payment create failed: the customer upsert is rolled back too; the retry succeeds', async () => {
    const body = paymentBody({ external_user_id: 'boom-payment' });
    await sql(
      g.databaseUrl,
      "ALTER TABLE payments ADD CONSTRAINT t_boom CHECK (external_user_id <> 'boom-payment')",
    );
    try {
      assertError(await post(body, 'pay-1'), 500, 'payment create failed');
      assert.equal(
        await count(g.databaseUrl, "customers WHERE external_user_id = 'boom-payment'"),
        0,
      );
      assert.equal(
        await count(g.databaseUrl, "payments WHERE external_user_id = 'boom-payment'"),
        0,
      );
    } finally {
      await sql(g.databaseUrl, 'ALTER TABLE payments DROP CONSTRAINT t_boom');
    }
    const retry = await post(body, 'pay-1');
    assert.equal(retry.status, 201, retry.text);
  });

  test('500 store provider_ref: the retry resumes the same payment, one registration', async () => {
    const body = paymentBody({ external_user_id: 'boom-store' });
    await sql(
      g.databaseUrl,
      `CREATE FUNCTION t_boom() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN RAISE EXCEPTION 'staged failure'; END $$;
       CREATE TRIGGER t_boom BEFORE UPDATE OF provider_ref ON payments FOR EACH ROW
       WHEN (NEW.external_user_id = 'boom-store') EXECUTE FUNCTION t_boom();`,
    );
    try {
      assertError(await post(body, 'store-1'), 500, 'store provider_ref');
    } finally {
      await sql(g.databaseUrl, 'DROP TRIGGER t_boom ON payments; DROP FUNCTION t_boom()');
    }
    const [orphan] = await sql<{ id: string; provider_ref: string | null }>(
      g.databaseUrl,
      "SELECT id, provider_ref FROM payments WHERE external_user_id = 'boom-store'",
    );
    assert.ok(orphan);
    assert.equal(orphan.provider_ref, null);
    const retry = await post(body, 'store-1');
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.json<{ payment_id: string }>().payment_id, orphan.id);
    assert.equal(await count(g.databaseUrl, "payments WHERE external_user_id = 'boom-store'"), 1);
    assert.equal(
      await count(
        g.databaseUrl,
        "paygate_sim.sim_objects WHERE provider = 'idr_psp' AND kind = 'transaction' AND id = $1",
        [orphan.id],
      ),
      1,
      'one provider registration for the payment',
    );
  });
});
