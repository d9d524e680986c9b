import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually } from '../../helpers/eventually.js';
import { gatewayProcessHarness } from '../../helpers/gatewayProcess.js';
import { signedFetch } from '../../helpers/http.js';
import { idrNotification, idrTestServerKey, postWebhook } from '../../helpers/idrNotify.js';

// A real gateway process is SIGKILLed while it finalizes payments and delivers their
// webhooks. After a restart every finalized payment is delivered at least once and none
// is finalized twice (at-least-once delivery through the transactional outbox, docs/api.md#delivery-and-retries).
// The buyers pay first at the provider (test_scenario lost_webhook: the simulator settles and
// sends nothing), since the gateway confirms each idr_psp notification with the provider's
// status API; the test then plays the provider's deliveries and redeliveries itself.

const N = 300;
const harness = gatewayProcessHarness({
  DELIVERY_TIMEOUT_MS: '1000',
  DELIVERY_BASE_DELAY_MS: '100',
  DELIVERY_MAX_DELAY_MS: '500',
});

test('SIGKILL mid-finalization and mid-delivery loses nothing and finalizes nothing twice', async () => {
  const { pool, receiver } = harness;
  // A slow receiver keeps deliveries in flight when the kill comes.
  receiver.behaviour = () => ({ status: 200, delayMs: 30 });
  const gateway = await harness.startGateway();
  const app = await harness.createApp(gateway, 'crash');
  receiver.secret = app.webhook_secret;

  const ids: string[] = [];
  for (let i = 0; i < N; i++) {
    const res = await signedFetch(gateway.url, app, 'POST', '/v1/payments', {
      external_user_id: `u${i}`,
      email: 'crash@example.com',
      amount_minor: 1000 + i,
      currency: 'IDR',
      method: 'qris',
      return_url: 'https://shop.example/',
      metadata: { test_scenario: 'lost_webhook' },
    });
    assert.equal(res.status, 201, res.text);
    const id = res.json<{ payment_id: string }>().payment_id;
    ids.push(id);
    const read = await signedFetch(gateway.url, app, 'GET', `/v1/payments/${id}`);
    const ref = read.json<{ provider_ref: string }>().provider_ref;
    const paid: Response = await fetch(`${gateway.url}/sim/idr_psp/payments/${ref}/pay`, {
      method: 'POST',
    });
    assert.deepEqual(
      [paid.status, JSON.parse(await paid.text()) as unknown],
      [
        200,
        { gateway_status: 0, gateway_body: 'notification not sent (test_scenario lost_webhook)' },
      ],
    );
  }
  const settled = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM payments WHERE status = 'succeeded'`,
  );
  assert.equal(settled.rows[0]?.n, 0, 'no payment is finalized before its notification');
  const key = idrTestServerKey(Buffer.from(harness.masterKeyHex, 'hex'));
  const bodyFor = (i: number) =>
    idrNotification(key, {
      orderId: ids[i] as string,
      status: 'settlement',
      grossAmount: 1000 + i,
    });

  // Provider side: send every notification, 16 at a time; kill the gateway mid-stream.
  const acknowledged = new Set<string>();
  let next = 0;
  let killed = false;
  const sender = async () => {
    while (next < N && !killed) {
      const i = next++;
      try {
        const r = await postWebhook(gateway.url, 'idr_psp', bodyFor(i));
        if (r.status === 200) acknowledged.add(ids[i] as string);
      } catch {
        // connection died with the process: the provider will redeliver
      }
      if (acknowledged.size >= N / 3 && !killed) {
        killed = true;
        await harness.killGateway(gateway, 'SIGKILL');
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, sender));
  assert.ok(killed, 'the gateway was killed mid-stream');
  const deliveredBeforeRestart = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM deliveries WHERE status = 'delivered'`,
  );
  const finalizedAtKill = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM payments WHERE status = 'succeeded'`,
  );
  assert.ok(
    finalizedAtKill.rows[0]!.n >= acknowledged.size,
    'every acknowledged event was committed',
  );
  assert.ok(
    deliveredBeforeRestart.rows[0]!.n < finalizedAtKill.rows[0]!.n,
    'some deliveries were still pending at the kill',
  );

  // Restart; the provider redelivers everything it has not seen acknowledged, and some it has.
  const restarted = await harness.startGateway();
  for (let i = 0; i < N; i++) {
    const r = await postWebhook(restarted.url, 'idr_psp', bodyFor(i));
    assert.equal(r.status, 200);
    const wasAcked = acknowledged.has(ids[i] as string);
    if (wasAcked) assert.equal(r.text, '{"acknowledged":true,"action":"already_finalized"}');
  }

  // Every payment succeeded exactly once, with exactly one outbound event...
  const perPayment = await pool.query<{ id: string; status: string; events: number }>(
    `SELECT p.id, p.status, (SELECT count(*)::int FROM outbound_events e WHERE e.payment_id = p.id) AS events
     FROM payments p`,
  );
  assert.equal(perPayment.rows.length, N);
  for (const row of perPayment.rows) {
    assert.equal(row.status, 'succeeded');
    assert.equal(row.events, 1, `payment ${row.id} has ${row.events} events`);
  }
  // ...and is delivered at least once (the lease of the killed worker's claims runs out).
  await eventually(
    async () => {
      const r = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM deliveries WHERE status <> 'delivered'`,
      );
      return r.rows[0]?.n === 0;
    },
    'every delivery delivered',
    60_000,
  );
  const seen = new Set(receiver.received.map((r) => JSON.parse(r.body).payment_id as string));
  for (const id of ids) assert.ok(seen.has(id), `payment ${id} was delivered`);
  assert.ok(receiver.received.every((r) => r.signatureValid));
});
