/**
 * Input the database cannot store (issue 10 defect 5): a NUL character, an unpaired UTF-16
 * surrogate, metadata nested 5,000 deep, bytes that are not UTF-8. Each is a 400 with a
 * plain-text reason naming the field; nothing is stored and the Idempotency-Key stays free.
 */
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertError, assertStatus, count, paymentBody } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { paidPayment } from '../../helpers/payments.js';

let gw: TestGateway;
let app: AppWithSecrets;

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp({ name: 'Storable shop' });
});
after(() => gw?.stop());

/** metadata as JSON text nested `levels` deep: {"a":{"a":...{}}} (metadata itself is level 1). */
function nested(levels: number): string {
  return '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);
}

/** A create-payment body as JSON text with `metadata` spliced in as raw JSON. */
function withRawMetadata(metadataJson: string): string {
  return JSON.stringify(paymentBody()).replace(/}$/, `,"metadata":${metadataJson}}`);
}

const tables = async () => ({
  payments: await count(gw.databaseUrl, 'payments'),
  customers: await count(gw.databaseUrl, 'customers'),
  refunds: await count(gw.databaseUrl, 'refunds'),
  apps: await count(gw.databaseUrl, 'apps'),
  events: await count(gw.databaseUrl, 'outbound_events'),
});

describe('POST /v1/payments', () => {
  const cases: [string, string, string][] = [
    [
      'NUL in metadata value',
      JSON.stringify(paymentBody({ metadata: { note: 'a\u0000b' } })),
      'metadata must not contain NUL characters',
    ],
    [
      'NUL in a metadata key',
      JSON.stringify(paymentBody({ metadata: { 'k\u0000': 1 } })),
      'metadata must not contain NUL characters',
    ],
    [
      'NUL in external_user_id',
      JSON.stringify(paymentBody({ external_user_id: 'u\u0000' })),
      'external_user_id must not contain NUL characters',
    ],
    [
      'NUL in return_url',
      JSON.stringify(paymentBody({ return_url: 'https://shop.example/\u0000' })),
      'return_url must not contain NUL characters',
    ],
    [
      'unpaired high surrogate (JSON escape) in metadata',
      withRawMetadata('{"note":"x\\ud800y"}'),
      'metadata must not contain unpaired UTF-16 surrogates',
    ],
    [
      'unpaired low surrogate (JSON escape) in external_user_id',
      JSON.stringify(paymentBody()).replace('"user-1"', '"\\udc00"'),
      'external_user_id must not contain unpaired UTF-16 surrogates',
    ],
    [
      'metadata nested 5,000 deep',
      withRawMetadata(nested(5000)),
      'metadata nested too deeply (max 32 levels)',
    ],
    [
      'metadata nested 33 deep',
      withRawMetadata(nested(33)),
      'metadata nested too deeply (max 32 levels)',
    ],
    [
      'NUL in an unknown field',
      JSON.stringify(paymentBody({ extra: '\u0000' })),
      'extra must not contain NUL characters',
    ],
  ];
  for (const [what, body, reason] of cases) {
    test(`${what}: 400, nothing stored, the key stays free`, async () => {
      const key = `storable-${what}`;
      const before = await tables();
      const res = await gw.v1(app, 'POST', '/v1/payments', body, { 'Idempotency-Key': key });
      assertError(res, 400, reason);
      assert.deepEqual(await tables(), before);
      // The same key with a good body (a different body: only a 2xx is stored) works.
      const ok = await gw.v1(app, 'POST', '/v1/payments', paymentBody({ external_user_id: key }), {
        'Idempotency-Key': key,
      });
      assertStatus(ok, 201);
    });
  }

  test('metadata nested 32 deep is accepted and echoed', async () => {
    const res = await gw.v1(app, 'POST', '/v1/payments', withRawMetadata(nested(32)));
    assertStatus(res, 201);
    const id = res.json<{ payment_id: string }>().payment_id;
    const got = await gw.v1(app, 'GET', `/v1/payments/${id}`);
    assertStatus(got, 200);
    assert.equal(JSON.stringify(got.json().metadata), nested(32));
  });

  test('a surrogate pair (an emoji) is fine', async () => {
    const res = await gw.v1(app, 'POST', '/v1/payments', paymentBody({ metadata: { e: '😀' } }));
    assertStatus(res, 201);
  });

  test('bytes that are not UTF-8: 400 invalid JSON body', async () => {
    for (const bytes of [
      [0xff, 0xfe],
      [0xed, 0xa0, 0x80], // a surrogate encoded as if it were a character (CESU-8)
      [0xc0, 0x80], // an overlong NUL
    ]) {
      const json = Buffer.from(JSON.stringify(paymentBody({ external_user_id: 'XX' })));
      const at = json.indexOf('XX');
      const body = Buffer.concat([json.subarray(0, at), Buffer.from(bytes), json.subarray(at + 2)]);
      const before = await tables();
      const raw = await rawPost('/v1/payments', body);
      assertError(raw, 400, 'invalid JSON body');
      assert.deepEqual(await tables(), before);
    }
  });
});

/** A signed POST of raw bytes (the helpers sign strings). */
async function rawPost(path: string, body: Buffer) {
  const ts = String(Math.floor(Date.now() / 1000));
  const hash = createHash('sha256').update(body).digest('hex');
  const sig = createHmac('sha256', app.signing_secret)
    .update(`${ts}.POST.${path}.${hash}`)
    .digest('hex');
  const res = await fetch(gw.url + path, {
    method: 'POST',
    headers: {
      'X-PAY-Key': app.api_key,
      'X-PAY-Timestamp': ts,
      'X-PAY-Signature': sig,
      'Content-Type': 'application/json',
    },
    body: new Uint8Array(body),
  });
  const text = await res.text();
  return { status: res.status, text, headers: res.headers, json: <T>() => JSON.parse(text) as T };
}

describe('refunds', () => {
  test('POST /v1/refunds: NUL in reason, 400, no refund, the key stays free', async () => {
    const paid = await paidPayment(gw, app, 'idr', 20000);
    const before = await tables();
    const key = 'storable-refund';
    const res = await gw.v1(
      app,
      'POST',
      '/v1/refunds',
      { payment_id: paid.id, reason: 'oops\u0000' },
      { 'Idempotency-Key': key },
    );
    assertError(res, 400, 'reason must not contain NUL characters');
    assert.deepEqual(await tables(), before);
    const ok = await gw.v1(
      app,
      'POST',
      '/v1/refunds',
      { payment_id: paid.id, reason: 'fine' },
      { 'Idempotency-Key': key },
    );
    assertStatus(ok, 201);
  });

  test('POST /admin/payments/{id}/refund: unpaired surrogate in reason, 400, no refund', async () => {
    const paid = await paidPayment(gw, app, 'idr', 21000);
    const before = await tables();
    const res = await gw.admin('POST', `/admin/payments/${paid.id}/refund`, '{"reason":"\\udfff"}');
    assertError(res, 400, 'reason must not contain unpaired UTF-16 surrogates');
    assert.deepEqual(await tables(), before);
  });
});

describe('admin apps', () => {
  test('create: NUL in name, surrogate in webhook_url, deep allowed_methods: 400, no app', async () => {
    const before = await tables();
    assertError(
      await gw.admin('POST', '/admin/apps', { name: 'shop\u0000' }),
      400,
      'name must not contain NUL characters',
    );
    assertError(
      await gw.admin(
        'POST',
        '/admin/apps',
        '{"name":"s","webhook_url":"https://x.example/\\ud800"}',
      ),
      400,
      'webhook_url must not contain unpaired UTF-16 surrogates',
    );
    assertError(
      await gw.admin('POST', '/admin/apps', `{"name":"s","allowed_methods":${nested(5000)}}`),
      400,
      'allowed_methods nested too deeply (max 32 levels)',
    );
    assert.deepEqual(await tables(), before);
  });

  test('update: NUL in name is a 400 and changes nothing', async () => {
    const res = await gw.admin('PATCH', `/admin/apps/${app.app_id}`, { name: 'x\u0000' });
    assertError(res, 400, 'name must not contain NUL characters');
    const list = await gw.admin('GET', '/admin/apps');
    const mine = list.json<{ apps: { app_id: string; name: string }[] }>().apps;
    assert.equal(mine.find((a) => a.app_id === app.app_id)?.name, 'Storable shop');
  });

  test('an app id with a NUL in the path: 404 app not found', async () => {
    assertError(
      await gw.admin('PATCH', '/admin/apps/app_%00', { name: 'n' }),
      404,
      'app not found',
    );
    assertError(await gw.admin('POST', '/admin/apps/%00/regenerate-keys'), 404, 'app not found');
  });
});

test('GET /admin/inbound_events?payment_id with a NUL: no events', async () => {
  const res = await gw.admin('GET', '/admin/inbound_events?payment_id=%00');
  assertStatus(res, 200);
  assert.deepEqual(res.json(), { events: [] });
});

test('a path that does not percent-decode: plain text, a malformed payment id is not found', async () => {
  assertError(await gw.admin('GET', '/admin/payments/%ED%A0%80'), 404, 'payment not found');
  assertError(await gw.v1(app, 'GET', '/v1/payments/%FF'), 404, 'payment not found');
  assertError(await gw.admin('PATCH', '/admin/apps/%FF', {}), 400, 'bad request');
});
