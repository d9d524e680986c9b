/**
 * Metadata limits on POST /v1/payments (docs/api.md#metadata-limits): each limit answered 400
 * with its exact text and nothing created; metadata at every limit accepted, echoed
 * unchanged and carried by the payment's event; the provider enrichment the gateway adds
 * never makes a payment whose metadata was at the limits fail later.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertError, assertStatus, count, paymentBody } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { simAction } from '../../helpers/payments.js';

// The documented numbers, written out: a test that imported them would follow a change.
const MAX_BYTES = 32_768;
const MAX_KEYS = 50;
const MAX_KEY_LENGTH = 64;
const MAX_DEPTH = 32;

let gw: TestGateway;
let app: AppWithSecrets;
before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp({ name: 'Metadata shop' });
});
after(async () => {
  await gw?.stop();
});

const create = (metadata: unknown, overrides: Record<string, unknown> = {}) =>
  gw.v1(app, 'POST', '/v1/payments', paymentBody({ metadata, ...overrides }));

const bytesOf = (v: unknown) => Buffer.byteLength(JSON.stringify(v), 'utf8');

/** `keys` keys named k00.., string values padded so the whole serializes to exactly `bytes`. */
function metadataOf(keys: number, bytes: number, keyLength = 3): Record<string, string> {
  const m: Record<string, string> = {};
  for (let i = 0; i < keys; i++) m[`k${String(i).padStart(keyLength - 1, '0')}`] = '';
  const pad = bytes - bytesOf(m);
  assert.ok(pad >= 0, 'the keys alone fit');
  const first = Object.keys(m)[0] as string;
  m[first] = 'x'.repeat(pad);
  assert.equal(bytesOf(m), bytes);
  return m;
}

/** An object nested `levels` deep, itself the first level. */
function nested(levels: number): Record<string, unknown> {
  let v: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) v = { a: v };
  return v;
}

describe('400 over a limit, nothing created', () => {
  const cases: [string, () => unknown, string][] = [
    [
      `${MAX_KEYS + 1} keys`,
      () => metadataOf(MAX_KEYS + 1, 1000),
      `metadata must have at most ${MAX_KEYS} keys`,
    ],
    [
      `a key of ${MAX_KEY_LENGTH + 1} characters`,
      () => ({ order: 'A-17', ['k'.repeat(MAX_KEY_LENGTH + 1)]: 1 }),
      `metadata keys must be at most ${MAX_KEY_LENGTH} characters`,
    ],
    [
      `${MAX_BYTES + 1} bytes`,
      () => metadataOf(3, MAX_BYTES + 1),
      `metadata must be at most ${MAX_BYTES} bytes`,
    ],
    [
      'bytes counted as UTF-8, not characters',
      // 11,000 three-byte characters: 11,010 characters but 33,010 bytes.
      () => ({ note: '\u20ac'.repeat(11_000) }),
      `metadata must be at most ${MAX_BYTES} bytes`,
    ],
    [
      'about 1 MiB, the size the body limit alone allowed',
      () => metadataOf(1, 1_000_000),
      `metadata must be at most ${MAX_BYTES} bytes`,
    ],
    [
      'bytes of nested values count',
      () => ({ order: { lines: Array.from({ length: 400 }, () => 'y'.repeat(100)) } }),
      `metadata must be at most ${MAX_BYTES} bytes`,
    ],
    [
      `${MAX_DEPTH + 1} levels`,
      () => nested(MAX_DEPTH + 1),
      `metadata nested too deeply (max ${MAX_DEPTH} levels)`,
    ],
  ];
  for (const [what, metadata, reason] of cases) {
    test(what, async () => {
      assertError(await create(metadata()), 400, reason);
      assert.equal(await count(gw.databaseUrl, 'payments'), 0, 'payments written');
      assert.equal(await count(gw.databaseUrl, 'customers'), 0, 'customers written');
    });
  }

  test('with an Idempotency-Key the key stays free for a corrected body', async () => {
    const headers = { 'Idempotency-Key': 'fat-metadata-1' };
    const fat = paymentBody({ metadata: metadataOf(1, MAX_BYTES + 1) });
    assertError(
      await gw.v1(app, 'POST', '/v1/payments', fat, headers),
      400,
      `metadata must be at most ${MAX_BYTES} bytes`,
    );
    assert.equal(await count(gw.databaseUrl, "idempotency_keys WHERE state <> 'released'"), 0);
    const ok = await gw.v1(
      app,
      'POST',
      '/v1/payments',
      paymentBody({ external_user_id: 'idem' }),
      headers,
    );
    assertStatus(ok, 201);
  });
});

describe('at the limits: accepted, stored and echoed unchanged', () => {
  test(`${MAX_KEYS} keys of ${MAX_KEY_LENGTH} characters, exactly ${MAX_BYTES} bytes`, async () => {
    const metadata = metadataOf(MAX_KEYS, MAX_BYTES, MAX_KEY_LENGTH);
    const res = await create(metadata);
    assertStatus(res, 201);
    const id = res.json<{ payment_id: string }>().payment_id;
    const read = await gw.v1(app, 'GET', `/v1/payments/${id}`);
    assert.deepEqual(read.json<{ metadata: unknown }>().metadata, metadata);
  });

  test('the bytes are the compact serialization: whitespace in the request is free', async () => {
    const metadata = metadataOf(2, MAX_BYTES);
    const raw = JSON.stringify(paymentBody({ metadata }), null, 8);
    assert.ok(Buffer.byteLength(raw) > MAX_BYTES + 100);
    assertStatus(await gw.v1(app, 'POST', '/v1/payments', raw), 201);
  });

  test(`${MAX_DEPTH} levels`, async () => {
    assertStatus(await create(nested(MAX_DEPTH)), 201);
  });

  test('Stripe-shaped metadata at its maximums: 50 keys of 40 characters, 500-character values', async () => {
    const metadata: Record<string, string> = {};
    for (let i = 0; i < 50; i++)
      metadata[`${'k'.repeat(38)}${String(i).padStart(2, '0')}`] = 'v'.repeat(500);
    assert.ok(bytesOf(metadata) <= MAX_BYTES);
    assertStatus(await create(metadata), 201);
  });
});

describe('provider enrichment is never counted against the limits', () => {
  test('card_psp: metadata at every limit is paid, enriched past them, and its event is listed', async () => {
    // card_psp needs card_psp_product_id; the rest pads to the limits.
    const metadata = metadataOf(MAX_KEYS, MAX_BYTES, MAX_KEY_LENGTH);
    const firstKey = Object.keys(metadata)[0] as string;
    delete metadata[firstKey];
    metadata.card_psp_product_id = 'prod_basic';
    const pad = MAX_BYTES - bytesOf(metadata);
    const second = Object.keys(metadata)[0] as string;
    metadata[second] = `${metadata[second] ?? ''}${'x'.repeat(pad)}`;
    assert.equal(bytesOf(metadata), MAX_BYTES);
    assert.equal(Object.keys(metadata).length, MAX_KEYS);

    const res = await create(metadata, {
      currency: 'USD',
      method: 'card_psp',
      email: 'card@example.com',
    });
    assertStatus(res, 201);
    const id = res.json<{ payment_id: string }>().payment_id;
    const read = await gw.v1(app, 'GET', `/v1/payments/${id}`);
    const ref = read.json<{ provider_ref: string }>().provider_ref;
    const paid = await simAction(gw, 'card', ref, 'pay');
    assert.equal(paid.gateway_status, 200, paid.gateway_body);

    const now = await gw.v1(app, 'GET', `/v1/payments/${id}`);
    const p = now.json<{ status: string; metadata: Record<string, unknown> }>();
    assert.equal(p.status, 'succeeded');
    assert.ok(Object.keys(p.metadata).length > MAX_KEYS, 'enrichment added keys');
    assert.ok(bytesOf(p.metadata) > MAX_BYTES, 'enrichment added bytes');
    assert.equal(p.metadata.card_psp_event_type, 'order.paid');

    const feed = await gw.v1(app, 'GET', '/v1/events');
    assertStatus(feed, 200);
    const events = feed.json<{ events: { payload: { payment_id: string; metadata: unknown } }[] }>()
      .events;
    const mine = events.filter((e) => e.payload.payment_id === id);
    assert.equal(mine.length, 1);
    assert.deepEqual(mine[0]?.payload.metadata, p.metadata);
  });
});
