import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { purgeExpired } from '../../helpers/state.js';
import { createPool } from '../../../src/db/pool.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { eventually } from '../../helpers/eventually.js';
import { assertError, assertStatus, count, paymentBody, sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import type { HttpResult } from '../../helpers/http.js';

const CONFLICT = 'idempotency conflict — different body for same key';
const BAD_KEY = 'Idempotency-Key must be 1 to 255 printable ASCII characters';
const ENDPOINT = 'POST /v1/payments';

let gw: TestGateway;
let app: AppWithSecrets;
before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp({ name: 'Idempotent shop' });
});
after(async () => {
  await gw?.stop();
});

function post(body: string | object, key?: string, a: AppWithSecrets = app): Promise<HttpResult> {
  return gw.v1(
    a,
    'POST',
    '/v1/payments',
    body,
    key === undefined ? {} : { 'Idempotency-Key': key },
  );
}

/** A body unique to the test, so that payment counts are the test's own. */
function uniqueBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return paymentBody({ external_user_id: `u-${randomBytes(6).toString('hex')}`, ...overrides });
}

const paymentsOf = (externalUserId: unknown) =>
  count(gw.databaseUrl, 'payments WHERE external_user_id = $1', [externalUserId]);

const registrations = (paymentIds: string[]) =>
  count(
    gw.databaseUrl,
    "paygate_sim.sim_objects WHERE provider = 'idr_psp' AND kind = 'transaction' AND id = ANY($1)",
    [paymentIds],
  );

const keyRow = (key: string, appId = app.app_id) =>
  sql<{ state: string; response_status: number | null }>(
    gw.databaseUrl,
    'SELECT state, response_status FROM idempotency_keys WHERE app_id = $1 AND key = $2',
    [appId, key],
  );

describe('docs/api.md#idempotency: replay and conflict', () => {
  test('same key, same body: the original status and byte-identical body', async () => {
    const key = randomUUID();
    const body = uniqueBody({ invoice_prefix: 'IDEM' });
    const first = await post(body, key);
    assertStatus(first, 201);
    for (let i = 0; i < 3; i++) {
      const again = await post(body, key);
      assert.equal(again.status, 201);
      assert.equal(again.text, first.text);
      assert.equal(again.headers.get('content-type'), 'application/json; charset=utf-8');
    }
    assert.equal(await paymentsOf(body.external_user_id), 1);
    assert.equal(await registrations([first.json<{ payment_id: string }>().payment_id]), 1);
    assert.deepEqual(await keyRow(key), [{ state: 'completed', response_status: 201 }]);
  });

  test('same key, different body: 409, and the original is untouched', async () => {
    const key = randomUUID();
    const body = uniqueBody();
    const first = await post(body, key);
    assertStatus(first, 201);
    assertError(await post({ ...body, amount_minor: 15001 }, key), 409, CONFLICT);
    // Same JSON meaning, different bytes: a different body (docs/api.md#idempotency compares raw bytes).
    assertError(await post(JSON.stringify(body, null, 2), key), 409, CONFLICT);
    // An invalid body under a used key is a conflict too, not a 400.
    assertError(await post('{', key), 409, CONFLICT);
    assert.equal(await paymentsOf(body.external_user_id), 1);
    const replay = await post(body, key);
    assert.equal(replay.text, first.text);
  });

  test('keys are scoped per app', async () => {
    const other = await gw.createApp({ name: 'Same keys, other app' });
    const key = randomUUID();
    const a = await post(uniqueBody(), key);
    const b = await post(uniqueBody({ amount_minor: 99 }), key, other);
    assertStatus(a, 201);
    assertStatus(b, 201);
    assert.notEqual(
      a.json<{ payment_id: string }>().payment_id,
      b.json<{ payment_id: string }>().payment_id,
    );
  });

  test('keys are scoped per endpoint', async () => {
    // A key already completed on another endpoint (refunds) does not bind POST /v1/payments.
    const key = randomUUID();
    await sql(
      gw.databaseUrl,
      `INSERT INTO idempotency_keys (app_id, endpoint, key, request_hash, state, response_status,
         response_body) VALUES ($1, 'POST /v1/refunds', $2, 'x', 'completed', 201, '{"refund_id":"r"}')`,
      [app.app_id, key],
    );
    const res = await post(uniqueBody(), key);
    assertStatus(res, 201);
    assert.ok(res.json<{ payment_id?: string }>().payment_id);
    assert.equal(
      await count(gw.databaseUrl, 'idempotency_keys WHERE app_id = $1 AND key = $2', [
        app.app_id,
        key,
      ]),
      2,
    );
  });

  test('requests without a key are never deduplicated', async () => {
    const body = uniqueBody();
    const a = await post(body);
    const b = await post(body);
    assertStatus(a, 201);
    assertStatus(b, 201);
    assert.notEqual(a.text, b.text);
    assert.equal(await paymentsOf(body.external_user_id), 2);
  });
});

describe('docs/api.md#idempotency: the key itself', () => {
  test('1 and 255 printable characters are accepted', async () => {
    assertStatus(await post(uniqueBody(), 'k'), 201);
    assertStatus(await post(uniqueBody(), 'x'.repeat(255)), 201);
    assertStatus(await post(uniqueBody(), ' !"#$%&\'()*+,-./0-9:;<=>?@A-Z[\\]^_`a-z{|}~'), 201);
  });

  test('256 characters: 400, nothing created', async () => {
    const body = uniqueBody();
    assertError(await post(body, 'x'.repeat(256)), 400, BAD_KEY);
    assert.equal(await paymentsOf(body.external_user_id), 0);
  });

  test('non-printable or non-ASCII characters: 400', async () => {
    for (const key of ['tab\there', 'caf\u00e9', 'x\u00ffy']) {
      const body = uniqueBody();
      assertError(await post(body, key), 400, BAD_KEY);
      assert.equal(await paymentsOf(body.external_user_id), 0);
    }
  });
});

describe('docs/api.md#idempotency: failures leave the key free', () => {
  test('a 400 then a fixed body with the same key: 201', async () => {
    const key = randomUUID();
    const body = uniqueBody();
    assertError(
      await post({ ...body, amount_minor: 0 }, key),
      400,
      'amount_minor must be a positive integer',
    );
    assertError(
      await post({ ...body, amount_minor: 0 }, key),
      400,
      'amount_minor must be a positive integer',
    );
    const fixed = await post(body, key);
    assertStatus(fixed, 201);
    assert.equal((await post(body, key)).text, fixed.text);
    assert.equal(await paymentsOf(body.external_user_id), 1);
  });

  test('a 422 then a fixed body: 201', async () => {
    const key = randomUUID();
    const body = uniqueBody();
    assertError(
      await post({ ...body, currency: 'idr' }, key),
      422,
      'no provider supports method=qris for currency=idr',
    );
    assertStatus(await post(body, key), 201);
  });

  test('a provider rejection (502) then a fixed body: 201', async () => {
    const key = randomUUID();
    const body = uniqueBody();
    const noEmail = { ...body };
    delete noEmail.email;
    assertError(
      await post(noEmail, key),
      502,
      'provider checkout failed: customer_details.email is required for qris',
    );
    const fixed = await post(body, key);
    assertStatus(fixed, 201);
    const rows = await sql<{ id: string; status: string }>(
      gw.databaseUrl,
      'SELECT id, status FROM payments WHERE external_user_id = $1 ORDER BY created_at',
      [body.external_user_id],
    );
    // The rejected registration stays failed; the fixed request is a new payment.
    assert.deepEqual(
      rows.map((r) => r.status),
      ['failed', 'initiated'],
    );
    assert.equal(rows[1]?.id, fixed.json<{ payment_id: string }>().payment_id);
  });
});

describe('docs/api.md#idempotency: the 24 hour window', () => {
  test('after 24 hours the key may be reused, with any body', async () => {
    const key = randomUUID();
    const body = uniqueBody();
    const first = await post(body, key);
    assertStatus(first, 201);
    await sql(
      gw.databaseUrl,
      "UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = $1",
      [key],
    );
    const reused = await post({ ...body, amount_minor: 777 }, key);
    assertStatus(reused, 201);
    assert.notEqual(reused.text, first.text);
    // The key is bound to the new request now.
    assert.equal((await post({ ...body, amount_minor: 777 }, key)).text, reused.text);
    assertError(await post(body, key), 409, CONFLICT);
  });

  test('just inside 24 hours the key still binds', async () => {
    const key = randomUUID();
    const body = uniqueBody();
    const first = await post(body, key);
    await sql(
      gw.databaseUrl,
      "UPDATE idempotency_keys SET created_at = now() - interval '23 hours 59 minutes' WHERE key = $1",
      [key],
    );
    assert.equal((await post(body, key)).text, first.text);
    assertError(await post({ ...body, amount_minor: 1 }, key), 409, CONFLICT);
  });

  test('purgeExpired removes expired keys only', async () => {
    const old = randomUUID();
    const fresh = randomUUID();
    assertStatus(await post(uniqueBody(), old), 201);
    assertStatus(await post(uniqueBody(), fresh), 201);
    await sql(
      gw.databaseUrl,
      "UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = $1",
      [old],
    );
    const pool = createPool(gw.databaseUrl, 2);
    try {
      const removed = await purgeExpired(pool);
      assert.ok(removed >= 1);
      assert.equal(await purgeExpired(pool), 0);
    } finally {
      await pool.end();
    }
    assert.deepEqual(await keyRow(old), []);
    assert.equal((await keyRow(fresh)).length, 1);
    assert.equal(
      await count(
        gw.databaseUrl,
        "idempotency_keys WHERE created_at < now() - interval '24 hours'",
      ),
      0,
    );
  });

  test('purgeExpired works in bounded batches', async () => {
    for (let i = 0; i < 5; i++) {
      await sql(
        gw.databaseUrl,
        `INSERT INTO idempotency_keys (app_id, endpoint, key, request_hash, state, created_at)
         VALUES ($1, $2, $3, 'h', 'released', now() - interval '2 days')`,
        [app.app_id, ENDPOINT, `batch-${i}-${randomUUID()}`],
      );
    }
    const pool = createPool(gw.databaseUrl, 2);
    try {
      assert.equal(await purgeExpired(pool, 2), 2);
      assert.equal(await purgeExpired(pool, 2), 2);
      assert.equal(await purgeExpired(pool, 2), 1);
      assert.equal(await purgeExpired(pool, 2), 0);
    } finally {
      await pool.end();
    }
  });
});

describe('docs/api.md#idempotency: concurrency', () => {
  test('THE RACE: 50 concurrent requests with one key make one payment and one registration', async () => {
    const key = randomUUID();
    const body = uniqueBody({ invoice_prefix: 'RACE' });
    const results = await Promise.all(Array.from({ length: 50 }, () => post(body, key)));
    for (const r of results) assert.equal(r.status, 201, r.text);
    const texts = new Set(results.map((r) => r.text));
    assert.equal(texts.size, 1, 'all 50 bodies are identical');
    const paymentId = results[0]?.json<{ payment_id: string }>().payment_id ?? '';
    assert.equal(await paymentsOf(body.external_user_id), 1);
    assert.equal(
      await count(
        gw.databaseUrl,
        "paygate_sim.sim_objects WHERE provider = 'idr_psp' AND kind = 'transaction' AND id = $1",
        [paymentId],
      ),
      1,
    );
    const customers = await sql<{ payments_count: number }>(
      gw.databaseUrl,
      'SELECT payments_count FROM customers WHERE app_id = $1 AND external_user_id = $2',
      [app.app_id, body.external_user_id],
    );
    assert.deepEqual(customers, [{ payments_count: 1 }]);
  });

  test('contrast: 20 concurrent identical requests without a key make 20 payments', async () => {
    const body = uniqueBody();
    const results = await Promise.all(Array.from({ length: 20 }, () => post(body)));
    for (const r of results) assert.equal(r.status, 201, r.text);
    const ids = results.map((r) => r.json<{ payment_id: string }>().payment_id);
    assert.equal(new Set(ids).size, 20);
    assert.equal(await paymentsOf(body.external_user_id), 20);
    assert.equal(await registrations(ids), 20);
  });

  test('concurrent requests with one key and different bodies: one wins, the rest 409', async () => {
    const key = randomUUID();
    const bodies = Array.from({ length: 10 }, (_, i) => uniqueBody({ amount_minor: 1000 + i }));
    const results = await Promise.all(bodies.map((b) => post(b, key)));
    const created = results.filter((r) => r.status === 201);
    assert.equal(created.length, 1);
    for (const r of results.filter((x) => x.status !== 201)) assertError(r, 409, CONFLICT);
    assert.equal(
      await count(gw.databaseUrl, 'payments WHERE external_user_id = ANY($1)', [
        bodies.map((b) => b.external_user_id),
      ]),
      1,
    );
  });

  test('a duplicate waits for the owner and replays its stored response', async () => {
    const key = randomUUID();
    const body = uniqueBody();
    const raw = JSON.stringify(body);
    const hash = createHash('sha256').update(raw).digest('hex');
    // Another instance holds the claim with a live lease.
    await sql(
      gw.databaseUrl,
      `INSERT INTO idempotency_keys (app_id, endpoint, key, request_hash, state, locked_until)
       VALUES ($1, $2, $3, $4, 'processing', now() + interval '1 hour')`,
      [app.app_id, ENDPOINT, key, hash],
    );
    let settled = false;
    const waiting = post(raw, key).finally(() => (settled = true));
    // While the owner works, a different body is still a conflict.
    assertError(await post({ ...body, amount_minor: 5 }, key), 409, CONFLICT);
    assert.equal(settled, false, 'the duplicate waits while the owner holds the claim');
    const stored =
      '{"payment_id":"' + 'ab'.repeat(16) + '","status":"initiated","checkout_url":"x"}';
    await sql(
      gw.databaseUrl,
      `UPDATE idempotency_keys SET state = 'completed', locked_until = NULL, response_status = 201,
         response_body = $3 WHERE app_id = $1 AND key = $2`,
      [app.app_id, key, stored],
    );
    const res = await waiting;
    assert.equal(res.status, 201);
    assert.equal(res.text, stored);
    assert.equal(await paymentsOf(body.external_user_id), 0);
  });

  test('a duplicate whose owner failed is processed itself', async () => {
    const key = randomUUID();
    const body = uniqueBody();
    const raw = JSON.stringify(body);
    const hash = createHash('sha256').update(raw).digest('hex');
    await sql(
      gw.databaseUrl,
      `INSERT INTO idempotency_keys (app_id, endpoint, key, request_hash, state, locked_until)
       VALUES ($1, $2, $3, $4, 'processing', now() + interval '1 hour')`,
      [app.app_id, ENDPOINT, key, hash],
    );
    const waiting = post(raw, key);
    await eventually(
      async () => ((await keyRow(key))[0]?.state === 'processing' ? true : undefined),
      'claim',
    );
    await sql(
      gw.databaseUrl,
      "UPDATE idempotency_keys SET state = 'released', locked_until = NULL WHERE key = $1",
      [key],
    );
    const res = await waiting;
    assertStatus(res, 201);
    assert.equal(await paymentsOf(body.external_user_id), 1);
  });

  test("a claim left 'processing' by a crashed owner is taken over by a retry", async () => {
    const key = randomUUID();
    const body = uniqueBody();
    const raw = JSON.stringify(body);
    const hash = createHash('sha256').update(raw).digest('hex');
    await sql(
      gw.databaseUrl,
      `INSERT INTO idempotency_keys (app_id, endpoint, key, request_hash, state, locked_until)
       VALUES ($1, $2, $3, $4, 'processing', now() - interval '1 second')`,
      [app.app_id, ENDPOINT, key, hash],
    );
    const res = await post(raw, key);
    assertStatus(res, 201);
    assert.equal(await paymentsOf(body.external_user_id), 1);
    assert.deepEqual(await keyRow(key), [{ state: 'completed', response_status: 201 }]);
    assert.equal((await post(raw, key)).text, res.text);
  });

  test('the retry resumes the payment the crashed owner created: no second payment', async () => {
    const key = randomUUID();
    const body = uniqueBody();
    const raw = JSON.stringify(body);
    const hash = createHash('sha256').update(raw).digest('hex');
    // The owner inserted the payment and crashed before registering it with the provider.
    const orphan = randomBytes(16).toString('hex');
    await sql(
      gw.databaseUrl,
      `INSERT INTO payments (id, app_id, mode, amount_minor, currency, method, provider,
         external_user_id, email, return_url)
       VALUES ($1, $2, 'test', $3, 'IDR', 'qris', 'idr_psp', $4, $5, $6)`,
      [orphan, app.app_id, body.amount_minor, body.external_user_id, body.email, body.return_url],
    );
    await sql(
      gw.databaseUrl,
      `INSERT INTO idempotency_keys (app_id, endpoint, key, request_hash, state, locked_until,
         resource_id) VALUES ($1, $2, $3, $4, 'processing', now() - interval '1 second', $5)`,
      [app.app_id, ENDPOINT, key, hash, orphan],
    );
    const res = await post(raw, key);
    assertStatus(res, 201);
    assert.equal(res.json<{ payment_id: string }>().payment_id, orphan);
    assert.equal(await paymentsOf(body.external_user_id), 1);
    assert.equal(await registrations([orphan]), 1);
    const [row] = await sql<{ provider_ref: string | null }>(
      gw.databaseUrl,
      'SELECT provider_ref FROM payments WHERE id = $1',
      [orphan],
    );
    assert.ok(row?.provider_ref);
  });
});
