import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestDatabase, testServerUrl } from '../../helpers/db.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { paidPayment, simAction } from '../../helpers/payments.js';
import { startPgBouncer, type PgBouncer } from '../../helpers/pgbouncer.js';
import { Receiver } from '../../helpers/receiver.js';
import type { AppWithSecrets } from '../../helpers/contract.js';

// docs/operations.md#pgbouncer: the core flows through a real PgBouncer in transaction
// pooling mode (DATABASE_POOL_MODE=transaction), LISTEN and migrations on the direct
// DATABASE_DIRECT_URL. PgBouncer 1.18 (Debian 12) keeps no prepared statement across
// transactions, so one named statement, or any session state, would break these flows.

let bouncer: PgBouncer;
let gw: TestGateway;
let second: TestGateway;
let receiver: Receiver;
let app: AppWithSecrets;

before(async () => {
  bouncer = await startPgBouncer(testServerUrl());
  const db = await createTestDatabase();
  const env = {
    DATABASE_URL: bouncer.url(db.name),
    DATABASE_POOL_MODE: 'transaction',
    DATABASE_DIRECT_URL: db.url,
  };
  gw = await startTestGateway(env, { database: db, poolMax: 8 });
  // A second instance through the same PgBouncer: claims and NOTIFYs cross instances.
  second = await startTestGateway(env, { poolMax: 8 }, gw);
  receiver = new Receiver();
  await receiver.start();
  app = await gw.createApp({ webhook_url: receiver.url });
  receiver.secret = app.webhook_secret;
});
after(async () => {
  await receiver?.stop();
  await second?.stop();
  await gw?.stop();
  await bouncer?.stop();
});

const body = (amount: number) => ({
  external_user_id: 'buyer-pgb',
  email: 'pgb@example.com',
  amount_minor: amount,
  currency: 'IDR',
  method: 'qris',
  return_url: 'https://shop.example/back',
});

test('the gateway talks to PostgreSQL through PgBouncer in transaction mode', async () => {
  assert.match(bouncer.version, /^1\.\d+/);
  const pools = await bouncer.show('POOLS');
  const ours = pools.filter((p) => String(p.database).startsWith('paygate_t_'));
  assert.equal(ours.length, 1, JSON.stringify(pools));
  assert.equal(ours[0]?.pool_mode, 'transaction');
  const stats = await bouncer.show('STATS');
  const mine = stats.find((s) => s.database === ours[0]?.database);
  assert.ok(Number(mine?.total_xact_count) > 0, JSON.stringify(stats));
});

test('create with an Idempotency-Key, replay, conflict; read it back on the other instance', async () => {
  const key = { 'Idempotency-Key': 'pgb-create-1' };
  const first = await gw.v1(app, 'POST', '/v1/payments', body(21_000), key);
  assert.equal(first.status, 201, first.text);
  const id = first.json<{ payment_id: string }>().payment_id;
  assert.match(id, /^[0-9a-f]{32}$/);
  const replay = await second.v1(app, 'POST', '/v1/payments', body(21_000), key);
  assert.equal(replay.status, 201);
  assert.equal(replay.text, first.text);
  const conflict = await second.v1(app, 'POST', '/v1/payments', body(21_001), key);
  assert.equal(conflict.status, 409);
  assert.equal(conflict.text, 'idempotency conflict — different body for same key');
  const read = await second.v1(app, 'GET', `/v1/payments/${id}`);
  assert.equal(read.status, 200);
  assert.equal(read.json<{ status: string }>().status, 'initiated');
  // Concurrent duplicates through the pooler: one payment.
  const same = { 'Idempotency-Key': 'pgb-create-2' };
  const all = await Promise.all(
    [gw, second, gw, second].map((g) => g.v1(app, 'POST', '/v1/payments', body(22_000), same)),
  );
  for (const r of all) assert.equal(r.status, 201, r.text);
  assert.equal(new Set(all.map((r) => r.text)).size, 1);
});

test('provider webhook finalizes once, the delivery reaches the receiver signed, and a refund is made', async () => {
  receiver.received.length = 0;
  const p = await paidPayment(gw, app, 'idr', 23_000);
  const again = await simAction(gw, 'idr', p.providerRef, 'pay').catch((e: unknown) => e);
  assert.ok(again instanceof Error, 'a second pay is refused by the provider');
  const read = await second.v1(app, 'GET', `/v1/payments/${p.id}`);
  assert.equal(read.json<{ status: string }>().status, 'succeeded');
  const [got] = await receiver.waitFor(1);
  assert.equal(got?.signatureValid, true);
  const event = JSON.parse(got?.body ?? '{}') as { event: string; payment_id: string };
  assert.equal(event.event, 'payment.succeeded');
  assert.equal(event.payment_id, p.id);

  const key = { 'Idempotency-Key': 'pgb-refund-1' };
  const refund = await second.v1(
    app,
    'POST',
    '/v1/refunds',
    { payment_id: p.id, amount_minor: 5000, reason: 'through the pooler' },
    key,
  );
  assert.equal(refund.status, 201, refund.text);
  const r = refund.json<{ refund_id: string; status: string; amount_minor: number }>();
  assert.match(r.refund_id, /^[0-9a-f]{32}$/);
  assert.equal(r.status, 'succeeded');
  assert.equal(r.amount_minor, 5000);
  const replay = await gw.v1(
    app,
    'POST',
    '/v1/refunds',
    { payment_id: p.id, amount_minor: 5000, reason: 'through the pooler' },
    key,
  );
  assert.equal(replay.text, refund.text);
  const blocked = await gw.v1(app, 'POST', '/v1/refunds', { payment_id: p.id });
  assert.equal(blocked.status, 422);
  assert.equal(blocked.text, 'payment already has a refund');
  const got2 = await receiver.waitFor(2);
  const events = got2.map((g) => (JSON.parse(g.body) as { event: string }).event).sort();
  assert.deepEqual(events, ['payment.succeeded', 'refund.succeeded']);

  // The settlement and, once the refund completed, the provider's refund notification.
  const d = await eventually(async () => {
    const detail = await gw.admin('GET', `/admin/payments/${p.id}`);
    assert.equal(detail.status, 200);
    const view = detail.json<{ inbound_events_count: number; deliveries: unknown[] }>();
    return view.inbound_events_count === 2 ? view : undefined;
  }, 'the refund notification');
  assert.equal(d.deliveries.length, 2);
});

test('an app change on one instance reaches the other through NOTIFY on the direct connection', async () => {
  const created = await second.v1(app, 'POST', '/v1/payments', body(24_000));
  assert.equal(created.status, 201, created.text);
  const path = `/v1/payments/${created.json<{ payment_id: string }>().payment_id}`;
  // The second instance has the app's keys cached (for a minute, unless told otherwise).
  assert.equal((await second.v1(app, 'GET', path)).status, 200);
  const regen = await gw.admin('POST', `/admin/apps/${app.app_id}/regenerate-keys`);
  assert.equal(regen.status, 200);
  const until = Date.now() + 3000;
  let old = await second.v1(app, 'GET', path);
  while (old.status === 200 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    old = await second.v1(app, 'GET', path);
  }
  assert.equal(old.status, 401);
  assert.equal(old.text, 'bad signature');
  const fresh = { ...app, ...regen.json<Partial<AppWithSecrets>>() } as AppWithSecrets;
  assert.equal((await second.v1(fresh, 'GET', path)).status, 200);
});
