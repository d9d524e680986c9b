import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPool, type Pool } from '../../../src/db/pool.js';
import { purgeOldDeliveryAttempts } from '../../../src/db/retention.js';
import { purgeHistory } from '../../../src/workers.js';
import { startWithReceiver, type GatewayWithReceiver } from '../../helpers/gateway.js';
import { idrNotification, postWebhook } from '../../helpers/idrNotify.js';
import { paidPayment, type CreatedPayment } from '../../helpers/payments.js';

// docs/operations.md#retention: old history goes, recent history and what is still needed
// (the attempts of a delivery still being retried, an idempotency key inside its 24 hours)
// stays. Rows are made by the real flows, then aged by moving their timestamps back.

let h: GatewayWithReceiver;
let pool: Pool;
/** Receiver answers by payment: 200 by default, 500 (retried later) or 410 (dead at once). */
const answers = new Map<string, number>();

before(async () => {
  h = await startWithReceiver({
    INBOUND_RETENTION_DAYS: '30',
    DELIVERY_ATTEMPTS_RETENTION_DAYS: '60',
    // A failed attempt is retried an hour later: the delivery stays pending during the test.
    DELIVERY_BASE_DELAY_MS: '3600000',
    DELIVERY_MAX_DELAY_MS: '3600000',
  });
  h.receiver.behaviour = (_i, req) => {
    const id = (JSON.parse(req.body) as { payment_id?: string }).payment_id ?? '';
    return { status: answers.get(id) ?? 200 };
  };
  pool = createPool(h.gw.databaseUrl, 4);
});
after(async () => {
  await pool?.end();
  await h?.stop();
});

async function age(sql: string, days: number, id: string): Promise<void> {
  const res = await pool.query(sql, [days, id]);
  assert.ok((res.rowCount ?? 0) > 0, `nothing aged by ${sql}`);
}
const ageInbound = (id: string, days: number) =>
  age(
    `UPDATE inbound_events SET received_at = now() - $1 * interval '1 day' WHERE payment_id = $2`,
    days,
    id,
  );
const ageAttempts = (id: string, days: number) =>
  age(
    `UPDATE delivery_attempts SET started_at = now() - $1 * interval '1 day'
     WHERE delivery_id IN (SELECT id FROM deliveries WHERE event_id IN (SELECT id FROM outbound_events WHERE payment_id = $2))`,
    days,
    id,
  );
async function count(sql: string, id: string): Promise<number> {
  return (await pool.query<{ n: number }>(sql, [id])).rows[0]!.n;
}
const inboundOf = (id: string) =>
  count('SELECT count(*)::int AS n FROM inbound_events WHERE payment_id = $1', id);
const attemptsOf = (id: string) =>
  count(
    `SELECT count(*)::int AS n FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
     WHERE d.event_id IN (SELECT id FROM outbound_events WHERE payment_id = $1)`,
    id,
  );
async function deliveryStatus(id: string): Promise<string> {
  const until = Date.now() + 15_000;
  for (;;) {
    const r = await pool.query<{ status: string; attempts: number }>(
      `SELECT d.status, (SELECT count(*)::int FROM delivery_attempts a WHERE a.delivery_id = d.id) AS attempts
       FROM deliveries d WHERE event_id IN (SELECT id FROM outbound_events WHERE payment_id = $1)`,
      [id],
    );
    const row = r.rows[0];
    if (row && row.attempts > 0) return row.status;
    if (Date.now() > until) throw new Error(`no delivery attempt for ${id}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

async function keyRows(key: string): Promise<number> {
  return count(
    'SELECT count(*)::int AS n FROM idempotency_keys WHERE key = $1 AND app_id IS NOT NULL',
    key,
  );
}

test('old inbound events, finished deliveries’ old attempts and expired idempotency keys go; the rest stays', async () => {
  const { gw, app } = h;
  const pay = (amount: number): Promise<CreatedPayment> => paidPayment(gw, app, 'idr', amount);
  const oldDone = await pay(10_000); // delivered, everything aged past the retentions
  const recent = await pay(11_000); // delivered, aged but inside the retentions
  const pendingPay = await gw.v1(app, 'POST', '/v1/payments', {
    external_user_id: 'buyer-p',
    email: 'p@example.com',
    amount_minor: 12_000,
    currency: 'IDR',
    method: 'qris',
    return_url: 'https://shop.example/back',
  });
  assert.equal(pendingPay.status, 201, pendingPay.text);
  const pendingId = pendingPay.json<{ payment_id: string }>().payment_id;
  answers.set(pendingId, 500);
  const deadId = (
    await gw.v1(app, 'POST', '/v1/payments', {
      external_user_id: 'buyer-d',
      email: 'd@example.com',
      amount_minor: 13_000,
      currency: 'IDR',
      method: 'qris',
      return_url: 'https://shop.example/back',
    })
  ).json<{ payment_id: string }>().payment_id;
  answers.set(deadId, 410);
  for (const id of [pendingId, deadId]) {
    const ref = (await gw.v1(app, 'GET', `/v1/payments/${id}`)).json<{ provider_ref: string }>()
      .provider_ref;
    const r = await fetch(`${gw.url}/sim/idr_psp/payments/${ref}/pay`, { method: 'POST' });
    assert.equal(r.status, 200, await r.text());
  }

  assert.equal(await deliveryStatus(oldDone.id), 'delivered');
  assert.equal(await deliveryStatus(recent.id), 'delivered');
  assert.equal(await deliveryStatus(pendingId), 'pending');
  assert.equal(await deliveryStatus(deadId), 'dead');

  // A bad-signature webhook (its own, shorter retention) and a verified one of the same age.
  const forged = idrNotification('not-the-key', {
    orderId: recent.id,
    status: 'settlement',
    grossAmount: 11_000,
  });
  assert.equal((await postWebhook(gw.url, 'idr_psp', forged)).status, 401);
  await pool.query(
    `UPDATE inbound_events SET received_at = now() - interval '8 days', payment_id = 'forged'
     WHERE outcome = 'bad_signature'`,
  );

  const oldInbound = await inboundOf(oldDone.id);
  assert.ok(oldInbound >= 1);
  await ageInbound(oldDone.id, 31);
  await ageAttempts(oldDone.id, 61);
  await ageInbound(recent.id, 8); // past the bad-signature retention, not the inbound one
  await ageAttempts(recent.id, 59);
  await ageAttempts(pendingId, 400); // pending: kept however old
  await ageInbound(pendingId, 29);
  await ageAttempts(deadId, 61); // dead: finished, goes

  // Idempotency keys: one past its 24 hours, one inside them.
  const body = {
    external_user_id: 'buyer-k',
    email: 'k@example.com',
    amount_minor: 14_000,
    currency: 'IDR',
    method: 'qris',
    return_url: 'https://shop.example/back',
  };
  const first = await gw.v1(app, 'POST', '/v1/payments', body, {
    'Idempotency-Key': 'expired-key',
  });
  const second = await gw.v1(app, 'POST', '/v1/payments', body, { 'Idempotency-Key': 'live-key' });
  assert.equal(first.status, 201);
  assert.equal(second.status, 201);
  await pool.query(
    `UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = 'expired-key'`,
  );
  await pool.query(
    `UPDATE idempotency_keys SET created_at = now() - interval '23 hours' WHERE key = 'live-key'`,
  );

  // Provider transmission ids: one past the 5 days they are remembered, one inside them.
  await pool.query(
    `INSERT INTO provider_transmissions (provider, transmission_id, body_sha256, received_at)
     VALUES ('wallet_psp', 'tx-old', '\\x00', now() - interval '6 days'),
            ('wallet_psp', 'tx-recent', '\\x00', now() - interval '4 days')`,
  );

  // Dashboard sessions: signed out two days ago, expired two days ago, signed out an hour
  // ago, live. Only the first two go.
  await pool.query(
    `INSERT INTO operators (id, email, name, role) VALUES ('op_${'5'.repeat(24)}', 'r@example.com', 'R', 'viewer')`,
  );
  await pool.query(
    `INSERT INTO operator_sessions (id_hash, operator_id, csrf_token, created_at, last_seen_at, expires_at, ended_at)
     VALUES ('\\x01', 'op_${'5'.repeat(24)}', 'c', now() - interval '3 days', now() - interval '3 days', now() + interval '1 hour', now() - interval '2 days'),
            ('\\x02', 'op_${'5'.repeat(24)}', 'c', now() - interval '3 days', now() - interval '3 days', now() - interval '2 days', NULL),
            ('\\x03', 'op_${'5'.repeat(24)}', 'c', now() - interval '2 hours', now() - interval '2 hours', now() + interval '1 hour', now() - interval '1 hour'),
            ('\\x04', 'op_${'5'.repeat(24)}', 'c', now(), now(), now() + interval '12 hours', NULL)`,
  );

  const deleted = await purgeHistory(h.gw.running.gw, h.gw.running.simulators?.purgeOld);
  assert.deepEqual(deleted, {
    idempotency_keys: 1,
    'inbound_events (bad signature)': 1,
    inbound_events: oldInbound,
    delivery_attempts: 2,
    provider_transmissions: 1,
    operator_sessions: 2,
    // This file's simulator objects are all recent (retention.simObjects.test.ts ages them).
    'simulator objects': 0,
  });
  const sessions = await pool.query<{ id_hash: Buffer }>(
    `SELECT id_hash FROM operator_sessions ORDER BY id_hash`,
  );
  assert.deepEqual(
    sessions.rows.map((r) => r.id_hash.toString('hex')),
    ['03', '04'],
  );
  const kept = await pool.query<{ transmission_id: string }>(
    `SELECT transmission_id FROM provider_transmissions WHERE transmission_id LIKE 'tx-%'`,
  );
  assert.deepEqual(kept.rows, [{ transmission_id: 'tx-recent' }]);

  assert.equal(await inboundOf(oldDone.id), 0);
  assert.equal(await attemptsOf(oldDone.id), 0);
  assert.ok((await inboundOf(recent.id)) >= 1);
  assert.equal(await attemptsOf(recent.id), 1);
  assert.equal(await attemptsOf(pendingId), 1);
  assert.ok((await inboundOf(pendingId)) >= 1);
  assert.equal(await attemptsOf(deadId), 0);
  assert.equal(await inboundOf('forged'), 0);
  // The payments, deliveries and outbound events themselves are never purged.
  for (const id of [oldDone.id, recent.id, pendingId, deadId]) {
    assert.equal(
      await count(
        'SELECT count(*)::int AS n FROM deliveries WHERE event_id IN (SELECT id FROM outbound_events WHERE payment_id = $1)',
        id,
      ),
      1,
    );
    assert.equal((await gw.v1(app, 'GET', `/v1/payments/${id}`)).status, 200);
  }
  // The admin view of an aged payment still answers, with no attempts left to show.
  const detail = await gw.admin('GET', `/admin/payments/${oldDone.id}`);
  assert.equal(detail.status, 200);

  assert.equal(await keyRows('expired-key'), 0);
  assert.equal(await keyRows('live-key'), 1);
  // Inside its 24 hours the key still replays the same answer; the purged one is free again.
  const replay = await gw.v1(app, 'POST', '/v1/payments', body, { 'Idempotency-Key': 'live-key' });
  assert.equal(replay.status, 201);
  assert.equal(replay.text, second.text);
  const fresh = await gw.v1(app, 'POST', '/v1/payments', body, {
    'Idempotency-Key': 'expired-key',
  });
  assert.equal(fresh.status, 201);
  assert.notEqual(
    fresh.json<{ payment_id: string }>().payment_id,
    first.json<{ payment_id: string }>().payment_id,
  );

  // Nothing left to do: a second run deletes nothing.
  const again = await purgeHistory(h.gw.running.gw, h.gw.running.simulators?.purgeOld);
  assert.deepEqual(Object.values(again), [0, 0, 0, 0, 0, 0, 0]);
});

test('two instances purging at once in batches of one delete each old attempt once and skip none', async () => {
  const { gw, app } = h;
  const payments = await Promise.all(
    [1, 2, 3, 4, 5].map((i) => paidPayment(gw, app, 'idr', 20_000 + i)),
  );
  for (const p of payments) assert.equal(await deliveryStatus(p.id), 'delivered');
  for (const p of payments.slice(0, 4)) await ageAttempts(p.id, 90);
  const purger = async () => {
    let n = 0;
    for (let d; (d = await purgeOldDeliveryAttempts(pool, 60, 1)) > 0;) n += d;
    return n;
  };
  const [a, b] = await Promise.all([purger(), purger()]);
  assert.equal(a + b, 4);
  for (const p of payments.slice(0, 4)) assert.equal(await attemptsOf(p.id), 0);
  assert.equal(await attemptsOf(payments[4]!.id), 1);
});
