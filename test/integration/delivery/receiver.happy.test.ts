import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { createPaymentRecord, newId, type TerminalStatus } from '../../helpers/state.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { finalizePayment } from '../../helpers/jobs.js';
import { eventually } from '../../helpers/eventually.js';
import {
  startWithReceiver,
  type GatewayWithReceiver,
  type TestGateway,
} from '../../helpers/gateway.js';
import { type Receiver } from '../../helpers/receiver.js';

// Outbound delivery (docs/api.md#outbound-webhooks, #webhook-signing, #event-bodies, #delivery-and-retries) against a real HTTP receiver. Payments are
// finalized through the gateway's own finalize path, which enqueues in the same transaction.

let gw: TestGateway;
let receiver: Receiver;
let app: AppWithSecrets;

let setup: GatewayWithReceiver;
before(async () => {
  setup = await startWithReceiver(
    {
      DELIVERY_MAX_ATTEMPTS: '4',
      DELIVERY_BASE_DELAY_MS: '50',
      DELIVERY_MAX_DELAY_MS: '200',
      DELIVERY_TIMEOUT_MS: '300',
    },
    {},
  );
  ({ gw, receiver, app } = setup);
});
after(() => setup?.stop());
beforeEach(() => {
  receiver.received.length = 0;
  receiver.behaviour = () => ({ status: 200 });
});

async function finalizedPayment(
  outcome: TerminalStatus = 'succeeded',
  errorText?: string,
): Promise<string> {
  const pool = gw.running.gw.pool;
  const p = await createPaymentRecord(
    pool,
    {
      id: newId(),
      app_id: app.app_id,
      mode: 'test',
      amount_minor: 125000,
      currency: 'IDR',
      method: 'qris',
      provider: 'idr_psp',
      external_user_id: 'buyer-1',
      email: 'b@example.com',
      return_url: 'https://shop.example/done',
      metadata: { order: 'A-1', nested: { k: [1, 2] } },
    },
    { invoicePrefix: null, claim: null, registrationDeadline: new Date(Date.now() + 600_000) },
  );
  await pool.query(`UPDATE payments SET provider_ref = $2 WHERE id = $1`, [p.id, `ref-${p.id}`]);
  const done = await finalizePayment(
    pool,
    { ...p, provider_ref: `ref-${p.id}` },
    outcome === 'succeeded'
      ? { outcome, paid: { amountMinor: p.amount_minor, currency: p.currency } }
      : { outcome, errorText },
  );
  assert.ok(done);
  return p.id;
}

async function deliveryRows(paymentId: string) {
  const res = await gw.running.gw.pool.query<{ id: string; status: string; attempts: number }>(
    `SELECT id, status, attempts FROM deliveries WHERE event_id IN (SELECT id FROM outbound_events WHERE payment_id = $1) ORDER BY created_at`,
    [paymentId],
  );
  return res.rows;
}

async function attemptRows(paymentId: string) {
  const res = await gw.running.gw.pool.query<{
    attempt: number;
    status_code: number | null;
    outcome: string;
    error: string | null;
  }>(
    `SELECT a.attempt, a.status_code, a.outcome, a.error FROM delivery_attempts a
     JOIN deliveries d ON d.id = a.delivery_id WHERE d.event_id IN (SELECT id FROM outbound_events WHERE payment_id = $1) ORDER BY a.id`,
    [paymentId],
  );
  return res.rows;
}

test('2xx: delivered once, signed over timestamp.raw_body with the webhook secret, docs/api.md#event-bodies body', async () => {
  const id = await finalizedPayment('succeeded');
  const [got] = await receiver.waitFor(1);
  assert.ok(got);
  assert.equal(got.signatureValid, true);
  assert.equal(got.headers['content-type'], 'application/json');
  assert.match(String(got.headers['x-pay-timestamp']), /^\d{10}$/);
  assert.match(String(got.headers['x-pay-signature']), /^[0-9a-f]{64}$/);
  assert.match(String(got.headers['x-pay-event-id']), /^evt_[0-9a-f]{24}$/);
  const body = JSON.parse(got.body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body), [
    'event',
    'payment_id',
    'status',
    'amount',
    'currency',
    'method',
    'provider',
    'provider_ref',
    'timestamp',
    'metadata',
  ]);
  assert.equal(body.event, 'payment.succeeded');
  assert.equal(body.payment_id, id);
  assert.equal(body.status, 'succeeded');
  assert.equal(body.amount, 125000);
  assert.equal(body.currency, 'IDR');
  assert.equal(body.method, 'qris');
  assert.equal(body.provider, 'idr_psp');
  assert.equal(body.provider_ref, `ref-${id}`);
  assert.match(String(body.timestamp), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  assert.deepEqual(body.metadata, { order: 'A-1', nested: { k: [1, 2] } });
  const rows = await eventually(async () => {
    const r = await deliveryRows(id);
    return r[0]?.status === 'delivered' ? r : null;
  });
  assert.equal(rows.length, 1);
  assert.equal(rows[0]?.attempts, 1);
  assert.deepEqual(await attemptRows(id), [
    { attempt: 1, status_code: 200, outcome: 'delivered', error: null },
  ]);
});

test('a failed payment reports payment.failed; a canceled one payment.canceled', async () => {
  const failed = await finalizedPayment('failed', 'insufficient funds');
  const canceled = await finalizedPayment('canceled');
  const got = await receiver.waitFor(2);
  const byId = new Map(
    got.map((r) => [
      JSON.parse(r.body).payment_id as string,
      JSON.parse(r.body) as Record<string, unknown>,
    ]),
  );
  assert.equal(byId.get(failed)?.event, 'payment.failed');
  assert.equal(byId.get(failed)?.status, 'failed');
  assert.equal(byId.get(canceled)?.event, 'payment.canceled');
});

test('500 then 200: retried with the same event id and the same body', async () => {
  receiver.behaviour = (i) => ({ status: i === 0 ? 500 : 200 });
  const id = await finalizedPayment();
  const got = await receiver.waitFor(2);
  assert.equal(got[0]?.headers['x-pay-event-id'], got[1]?.headers['x-pay-event-id']);
  assert.equal(got[0]?.body, got[1]?.body);
  assert.ok(got.every((r) => r.signatureValid));
  await eventually(async () => (await deliveryRows(id))[0]?.status === 'delivered');
  assert.deepEqual(
    (await attemptRows(id)).map((a) => [a.attempt, a.status_code, a.outcome]),
    [
      [1, 500, 'retry'],
      [2, 200, 'delivered'],
    ],
  );
});

test('400: dead after one attempt; retry-webhook delivers again with the same event id', async () => {
  receiver.behaviour = () => ({ status: 400 });
  const id = await finalizedPayment();
  await receiver.waitFor(1);
  const dead = await eventually(async () => {
    const r = await deliveryRows(id);
    return r[0]?.status === 'dead' ? r : null;
  });
  assert.equal(dead[0]?.attempts, 1);
  const listed = await gw.admin('GET', '/admin/deliveries?status=dead');
  assert.equal(listed.status, 200);
  const deadList = listed.json<{
    deliveries: {
      delivery_id: string;
      payment_id: string;
      attempts: number;
      last_status_code: number;
    }[];
  }>();
  const mine = deadList.deliveries.find((d) => d.payment_id === id);
  assert.equal(mine?.delivery_id, dead[0]?.id);
  assert.equal(mine?.last_status_code, 400);

  receiver.behaviour = () => ({ status: 204 });
  const res = await gw.admin('POST', `/admin/payments/${id}/retry-webhook`);
  assert.equal(res.status, 202);
  const { delivery_id } = res.json<{ delivery_id: string }>();
  assert.match(delivery_id, /^dlv_[0-9a-f]{24}$/);
  const got = await receiver.waitFor(2);
  assert.equal(got[1]?.headers['x-pay-event-id'], got[0]?.headers['x-pay-event-id']);
  assert.equal(got[1]?.body, got[0]?.body);
  await eventually(
    async () => (await deliveryRows(id)).find((d) => d.id === delivery_id)?.status === 'delivered',
  );
  // The dead delivery stayed dead and was not attempted again.
  assert.equal(receiver.received.length, 2);
  assert.deepEqual(
    (await deliveryRows(id)).map((d) => d.status),
    ['dead', 'delivered'],
  );
});

test('timeout: an attempt that outlasts DELIVERY_TIMEOUT_MS is retried', async () => {
  receiver.behaviour = (i) => ({ status: 200, delayMs: i === 0 ? 2000 : 0 });
  const id = await finalizedPayment();
  await receiver.waitFor(2);
  await eventually(async () => (await deliveryRows(id))[0]?.status === 'delivered');
  const attempts = await attemptRows(id);
  assert.equal(attempts[0]?.outcome, 'retry');
  assert.equal(attempts[0]?.status_code, null);
  assert.match(String(attempts[0]?.error), /timeout/);
  assert.equal(attempts[1]?.outcome, 'delivered');
});

test('5xx on every attempt: dead after DELIVERY_MAX_ATTEMPTS', async () => {
  receiver.behaviour = () => ({ status: 503 });
  const id = await finalizedPayment();
  await receiver.waitFor(4);
  const dead = await eventually(async () => {
    const r = await deliveryRows(id);
    return r[0]?.status === 'dead' ? r : null;
  });
  assert.equal(dead[0]?.attempts, 4);
  assert.deepEqual(
    (await attemptRows(id)).map((a) => a.outcome),
    ['retry', 'retry', 'retry', 'dead'],
  );
});

test('receiver down, then up: delivered once it is back', async () => {
  const port = receiver.port;
  await receiver.stop();
  const id = await finalizedPayment();
  const failures = await eventually(async () => {
    const a = await attemptRows(id);
    return a.length >= 1 ? a : null;
  });
  assert.equal(failures[0]?.status_code, null);
  assert.match(String(failures[0]?.error), /ECONNREFUSED/);
  await receiver.start(port);
  await receiver.waitFor(1);
  await eventually(async () => (await deliveryRows(id))[0]?.status === 'delivered');
});

test('retry-webhook: unknown payment 404, payment without events 422, admin token required', async () => {
  const unknown = await gw.admin('POST', `/admin/payments/${'a'.repeat(32)}/retry-webhook`);
  assert.equal(unknown.status, 404);
  assert.equal(unknown.text, 'payment not found');
  const malformed = await gw.admin('POST', `/admin/payments/nope/retry-webhook`);
  assert.equal(malformed.status, 404);
  assert.equal(malformed.text, 'payment not found');
  const p = await createPaymentRecord(
    gw.running.gw.pool,
    {
      id: newId(),
      app_id: app.app_id,
      mode: 'test',
      amount_minor: 10,
      currency: 'USD',
      method: 'card_psp',
      provider: 'card_psp',
      external_user_id: 'u',
      email: null,
      return_url: 'https://x.example/',
      metadata: {},
    },
    { invoicePrefix: null, claim: null, registrationDeadline: new Date(Date.now() + 600_000) },
  );
  const none = await gw.admin('POST', `/admin/payments/${p.id}/retry-webhook`);
  assert.equal(none.status, 422);
  assert.equal(none.text, 'payment has no webhook event to deliver');
  const noToken = await gw.admin('POST', `/admin/payments/${p.id}/retry-webhook`, undefined, '');
  assert.equal(noToken.status, 401);
  assert.equal(noToken.text, 'unauthorized');
});

interface DetailAttempt {
  attempt: number;
  status_code: number | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number;
  outcome: string;
}

/** The attempts of the payment's first delivery as the admin payment detail shows them. */
async function detailAttempts(paymentId: string): Promise<DetailAttempt[]> {
  const res = await gw.admin('GET', `/admin/payments/${paymentId}`);
  assert.equal(res.status, 200, res.text);
  const detail = res.json<{ deliveries: { attempts: DetailAttempt[] }[] }>();
  return detail.deliveries[0]?.attempts ?? [];
}

async function deadListed(paymentId: string) {
  const res = await gw.admin('GET', '/admin/deliveries?status=dead');
  assert.equal(res.status, 200, res.text);
  return res
    .json<{
      deliveries: {
        payment_id: string;
        last_status_code: number | null;
        last_error: string | null;
        last_response_body: string | null;
      }[];
    }>()
    .deliveries.find((d) => d.payment_id === paymentId);
}

test("400 with a body: the receiver's answer is kept with the attempt and shown on the dead delivery", async () => {
  const answer = '{"error":"unknown order A-1","hint":"create the order first"}';
  receiver.behaviour = () => ({ status: 400, body: answer });
  const id = await finalizedPayment();
  await eventually(async () => (await deliveryRows(id))[0]?.status === 'dead');
  const attempts = await detailAttempts(id);
  assert.equal(attempts.length, 1);
  const [a] = attempts;
  assert.equal(a?.status_code, 400);
  assert.equal(a?.response_body, answer);
  assert.equal(a?.error, null);
  assert.equal(a?.outcome, 'dead');
  assert.ok(Number.isInteger(a?.duration_ms) && (a?.duration_ms ?? -1) >= 0);
  const listed = await deadListed(id);
  assert.equal(listed?.last_status_code, 400);
  assert.equal(listed?.last_error, null);
  assert.equal(listed?.last_response_body, answer);
});

test('500 with 5 KiB: each attempt keeps exactly the first 1 KiB; a character cut at the limit is dropped', async () => {
  const ascii = Array.from({ length: 5120 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
  // "€" is three bytes, at 1023..1025: the limit cuts it, so only the 1023 bytes before it stay.
  const straddling = `${'x'.repeat(1023)}€${'y'.repeat(5120 - 1026)}`;
  assert.equal(Buffer.byteLength(ascii), 5120);
  assert.equal(Buffer.byteLength(straddling), 5120);
  receiver.behaviour = (i) =>
    i === 0
      ? { status: 500, body: ascii }
      : i === 1
        ? { status: 500, body: straddling }
        : { status: 200, body: 'ok' };
  const id = await finalizedPayment();
  await eventually(async () => (await deliveryRows(id))[0]?.status === 'delivered');
  const attempts = await detailAttempts(id);
  assert.deepEqual(
    attempts.map((a) => [a.attempt, a.status_code, a.outcome, a.response_body]),
    [
      [1, 500, 'retry', ascii.slice(0, 1024)],
      [2, 500, 'retry', 'x'.repeat(1023)],
      [3, 200, 'delivered', 'ok'],
    ],
  );
});

test('an answer that is not UTF-8 is stored as text with U+FFFD for each bad sequence and NUL', async () => {
  // o k FF ␠ C3 ( NUL ! E2 82: a stray byte, a lead byte without its continuation, a NUL
  // (PostgreSQL text cannot hold one) and a sequence the body ends inside.
  const bytes = Buffer.from([0x6f, 0x6b, 0xff, 0x20, 0xc3, 0x28, 0x00, 0x21, 0xe2, 0x82]);
  receiver.behaviour = () => ({ status: 400, body: bytes });
  const id = await finalizedPayment();
  await eventually(async () => (await deliveryRows(id))[0]?.status === 'dead');
  const [a] = await detailAttempts(id);
  assert.equal(a?.response_body, 'ok\uFFFD \uFFFD(\uFFFD!\uFFFD');
  assert.equal((await deadListed(id))?.last_response_body, 'ok\uFFFD \uFFFD(\uFFFD!\uFFFD');
});

test('no answer at all (timeout) stores a null response_body', async () => {
  receiver.behaviour = (i) => ({ status: 200, delayMs: i === 0 ? 2000 : 0, body: 'late' });
  const id = await finalizedPayment();
  await eventually(async () => (await deliveryRows(id))[0]?.status === 'delivered');
  const attempts = await detailAttempts(id);
  assert.equal(attempts[0]?.response_body, null);
  assert.match(String(attempts[0]?.error), /timeout/);
  assert.equal(attempts[1]?.response_body, 'late');
});
