import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { freePort } from '../../../scripts/net.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { simulatorEndpoint } from '../../helpers/drivers/sim.js';
import { eventually } from '../../helpers/eventually.js';
import { assertStatus, sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { paidPayment } from '../../helpers/payments.js';
import { Receiver } from '../../helpers/receiver.js';

// Live-mode apps get their webhooks. The live idr_psp endpoint is this gateway's own
// simulator (configured like any live endpoint); webhook hosts resolve through the test
// network, whose answers pass the gateway's real public-address check before the socket is
// pointed at a receiver on loopback. No traffic leaves 127.0.0.1.

let gw: TestGateway;
const receiver = new Receiver();

before(async () => {
  const masterKey = randomBytes(32);
  const port = await freePort();
  const live = simulatorEndpoint('idr_psp', masterKey, 'unused');
  gw = await startTestGateway({
    PORT: String(port),
    MASTER_KEY: masterKey.toString('hex'),
    IDR_PSP_LIVE_BASE_URL: `http://127.0.0.1:${port}/sim/idr_psp`,
    IDR_PSP_LIVE_SERVER_KEY: String(live.credentials.serverKey),
    DELIVERY_MAX_ATTEMPTS: '1',
  });
  await receiver.start();
});
after(async () => {
  await receiver.stop();
  await gw?.stop();
});

async function liveApp(webhookUrl: string): Promise<AppWithSecrets> {
  const res = await gw.admin('POST', '/admin/apps', {
    name: 'Live shop',
    mode: 'live',
    webhook_url: webhookUrl,
  });
  assertStatus(res, 201);
  return res.json<AppWithSecrets>();
}

interface Attempt {
  attempt: number;
  status_code: number | null;
  error: string | null;
  outcome: string;
}

async function attemptsOf(paymentId: string): Promise<Attempt[]> {
  return sql<Attempt>(
    gw.databaseUrl,
    `SELECT a.attempt, a.status_code, a.error, a.outcome FROM delivery_attempts a
     JOIN deliveries d ON d.id = a.delivery_id WHERE d.event_id IN (SELECT id FROM outbound_events WHERE payment_id = $1) ORDER BY a.id`,
    [paymentId],
  );
}

async function eventIdOf(paymentId: string): Promise<string | undefined> {
  const [row] = await sql<{ event_id: string }>(
    gw.databaseUrl,
    'SELECT event_id FROM deliveries WHERE event_id IN (SELECT id FROM outbound_events WHERE payment_id = $1)',
    [paymentId],
  );
  return row?.event_id;
}

async function settledAttempts(paymentId: string): Promise<Attempt[]> {
  return eventually(async () => {
    const rows = await attemptsOf(paymentId);
    return rows.length > 0 ? rows : null;
  });
}

test('a live app with a public webhook_url receives its signed delivery', async () => {
  gw.network.set('shop.example.com', '93.184.216.34');
  const app = await liveApp(`http://shop.example.com:${receiver.port}/hook`);
  receiver.secret = app.webhook_secret;
  const before = receiver.received.length;
  const dialedBefore = gw.network.dialed.length;

  const payment = await paidPayment(gw, app, 'idr', 15000);

  const [got] = (await receiver.waitFor(before + 1)).slice(before);
  assert.ok(got);
  assert.equal(got.signatureValid, true);
  assert.equal(got.headers.host, `shop.example.com:${receiver.port}`);
  const event = JSON.parse(got.body) as Record<string, unknown>;
  assert.equal(event.event, 'payment.succeeded');
  assert.equal(event.payment_id, payment.id);
  assert.equal(event.amount, 15000);
  assert.equal(got.headers['x-pay-event-id'], await eventIdOf(payment.id));
  const [row] = await sql<{ mode: string }>(
    gw.databaseUrl,
    'SELECT mode FROM payments WHERE id = $1',
    [payment.id],
  );
  assert.equal(row?.mode, 'live');
  // The socket was opened for the address the real check passed, then sent to loopback.
  assert.deepEqual(gw.network.dialed.slice(dialedBefore), ['93.184.216.34']);
  assert.deepEqual(await settledAttempts(payment.id), [
    { attempt: 1, status_code: 200, error: null, outcome: 'delivered' },
  ]);
});

test('a live app with a public address literal receives its delivery', async () => {
  const app = await liveApp(`http://[2606:4700:4700::1111]:${receiver.port}/hook`);
  receiver.secret = app.webhook_secret;
  const before = receiver.received.length;
  const payment = await paidPayment(gw, app, 'idr', 20000);
  const [got] = (await receiver.waitFor(before + 1)).slice(before);
  assert.equal(got?.signatureValid, true);
  assert.deepEqual(await settledAttempts(payment.id), [
    { attempt: 1, status_code: 200, error: null, outcome: 'delivered' },
  ]);
});

test('a name that resolves to a private address by delivery time is refused and recorded', async () => {
  gw.network.set('rebind.example.com', '93.184.216.34');
  const app = await liveApp(`http://rebind.example.com:${receiver.port}/hook`);
  gw.network.set('rebind.example.com', '93.184.216.34', '10.0.0.8');
  const before = receiver.received.length;

  const payment = await paidPayment(gw, app, 'idr', 30000);

  assert.deepEqual(await settledAttempts(payment.id), [
    {
      attempt: 1,
      status_code: null,
      error: 'webhook_url resolves to a private address (10.0.0.8)',
      outcome: 'dead',
    },
  ]);
  const res = await gw.admin('GET', '/admin/deliveries?status=dead');
  const listed = res
    .json<{ deliveries: { payment_id: string; last_error: string }[] }>()
    .deliveries.find((d) => d.payment_id === payment.id);
  assert.equal(listed?.last_error, 'webhook_url resolves to a private address (10.0.0.8)');
  assert.equal(receiver.received.length, before);
});

test('a private literal stored before the operator forbade it is refused at delivery', async () => {
  const app = await liveApp(`http://93.184.216.34:${receiver.port}/hook`);
  // As if created while ALLOW_PRIVATE_WEBHOOK_TARGETS was on.
  await sql(gw.databaseUrl, 'UPDATE apps SET webhook_url = $2 WHERE id = $1', [
    app.app_id,
    `http://[::ffff:127.0.0.1]:${receiver.port}/hook`,
  ]);
  await gw.running.gw.appChanged(app.app_id);
  const before = receiver.received.length;

  const payment = await paidPayment(gw, app, 'idr', 40000);

  assert.deepEqual(await settledAttempts(payment.id), [
    {
      attempt: 1,
      status_code: null,
      error: 'webhook_url is not a public address',
      outcome: 'dead',
    },
  ]);
  assert.equal(receiver.received.length, before);
});
