import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { createPayment, simAction } from '../../helpers/payments.js';

// Two instances on one database: the app-key cache and the settled-payment cache must never
// serve what the other instance has changed.

let a: TestGateway;
let b: TestGateway;

before(async () => {
  a = await startTestGateway();
  b = await startTestGateway({}, {}, a);
});
after(async () => {
  await b?.stop();
  await a?.stop();
});

test('regenerated keys stop working on the other instance too (NOTIFY invalidation)', async () => {
  const app = await a.createApp();
  const probe = `/v1/payments/${'0'.repeat(32)}`;
  // Warm both caches with the old key.
  assert.equal((await a.v1(app, 'GET', probe)).status, 404);
  assert.equal((await b.v1(app, 'GET', probe)).status, 404);
  const res = await a.admin('POST', `/admin/apps/${app.app_id}/regenerate-keys`);
  assert.equal(res.status, 200);
  const fresh = res.json<AppWithSecrets>();
  // On the instance that changed it: at once.
  const oldOnA = await a.v1(app, 'GET', probe);
  assert.equal(oldOnA.status, 401);
  assert.equal(oldOnA.text, 'bad signature');
  // On the other: as soon as the notification arrives (bounded wait, no fixed sleep).
  await eventually(
    async () => (await b.v1(app, 'GET', probe)).status === 401,
    'the old key refused on b',
    5000,
  );
  assert.equal((await b.v1(fresh, 'GET', probe)).status, 404);
  assert.equal((await a.v1(fresh, 'GET', probe)).status, 404);
});

test('an allowed-providers change on one instance is honoured by the other', async () => {
  const app = await a.createApp();
  const body = {
    external_user_id: 'u',
    email: 'u@example.com',
    amount_minor: 1000,
    currency: 'IDR',
    method: 'qris',
    return_url: 'https://shop.example/',
  };
  assert.equal((await b.v1(app, 'POST', '/v1/payments', body)).status, 201);
  const patched = await a.admin('PATCH', `/admin/apps/${app.app_id}`, {
    allowed_providers: ['card_psp'],
  });
  assert.equal(patched.status, 200);
  await eventually(
    async () => {
      const r = await b.v1(app, 'POST', '/v1/payments', body);
      return r.status === 422 && r.text === 'provider idr_psp not allowed for this app';
    },
    'the new settings on b',
    5000,
  );
});

test('an initiated payment read on one instance is never stale after it settles through the other', async () => {
  const app = await a.createApp();
  const p = await createPayment(a, app, 'idr', 4200);
  for (const gw of [a, b]) {
    assert.equal(
      (await gw.v1(app, 'GET', `/v1/payments/${p.id}`)).json<{ status: string }>().status,
      'initiated',
    );
  }
  // The provider's webhook lands on instance a; instance b answers from the database at once.
  await simAction(a, 'idr', p.providerRef, 'pay');
  for (const gw of [b, a]) {
    const read = await gw.v1(app, 'GET', `/v1/payments/${p.id}`);
    assert.equal(read.json<{ status: string }>().status, 'succeeded');
  }
  // Settled reads are cached and byte-identical to the database answer.
  const first = await b.v1(app, 'GET', `/v1/payments/${p.id}`);
  const second = await b.v1(app, 'GET', `/v1/payments/${p.id}`);
  assert.equal(first.text, second.text);
  // Tenant scope holds for cached entries too.
  const other = await a.createApp();
  const foreign = await b.v1(other, 'GET', `/v1/payments/${p.id}`);
  assert.equal(foreign.status, 404);
  assert.equal(foreign.text, 'payment not found');
});
