import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import {
  EVENT_BODY_DEFLATED_V1,
  EVENT_BODY_RAW,
  packEventBody,
  unpackEventBody,
  type StoredEventBody,
} from '../../../src/db/eventBody.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { eventually } from '../../helpers/eventually.js';
import {
  startWithReceiver,
  type GatewayWithReceiver,
  type TestGateway,
} from '../../helpers/gateway.js';
import { type Receiver } from '../../helpers/receiver.js';
import { finalizedPayment } from '../../helpers/finalized.js';

// The outbound event body stored deflated (migration 0034, src/db/eventBody.ts): what is
// signed and sent on every attempt, and what GET /v1/events lists, is byte for byte the body
// that was written; rows stored as text before 0034 read as they are.

let gw: TestGateway;
let receiver: Receiver;
let app: AppWithSecrets;
let setup: GatewayWithReceiver;

before(async () => {
  setup = await startWithReceiver({
    DELIVERY_MAX_ATTEMPTS: '4',
    DELIVERY_BASE_DELAY_MS: '50',
    DELIVERY_MAX_DELAY_MS: '200',
  });
  ({ gw, receiver, app } = setup);
});
after(() => setup?.stop());
beforeEach(() => {
  receiver.received.length = 0;
  receiver.behaviour = () => ({ status: 200 });
});

type StoredRow = StoredEventBody & {
  id: string;
  body_size: number | null;
  packed_bytes: number | null;
};

async function storedEvents(where: string, value: string): Promise<StoredRow[]> {
  const res = await gw.running.gw.pool.query<StoredRow>(
    `SELECT id, event_type, body, body_codec, body_size, body_packed,
       octet_length(body_packed) AS packed_bytes
     FROM outbound_events WHERE ${where} = $1 ORDER BY created_at, id`,
    [value],
  );
  return res.rows;
}

/** The app's feed, as raw text (payloads are spliced in byte for byte). */
async function feedText(): Promise<string> {
  let text = '';
  let after: string | null = null;
  for (;;) {
    const path: string = `/v1/events?limit=100${after ? `&after=${after}` : ''}`;
    const res = await gw.v1(app, 'GET', path);
    assert.equal(res.status, 200);
    text += res.text;
    const page = res.json<{ events: { id: string }[]; has_more: boolean }>();
    if (!page.has_more) return text;
    after = page.events.at(-1)?.id ?? null;
  }
}

test('a deflated body is signed and sent byte for byte on every attempt, and listed as sent', async () => {
  receiver.behaviour = (i) => ({ status: i < 2 ? 500 : 200 });
  // Non-ASCII text: bytes, not characters, must round-trip.
  const id = await finalizedPayment(gw.running.gw.pool, app.app_id, {
    order: 'A-1',
    note: 'café ☕ 𝄞 "quoted" \\',
    n: [1, 2],
  });
  const got = await receiver.waitFor(3);
  assert.ok(got.every((r) => r.signatureValid));
  assert.equal(new Set(got.map((r) => r.body)).size, 1, 'the same bytes on every attempt');
  const sent = got[0]?.body ?? '';
  assert.equal((JSON.parse(sent) as { payment_id: string }).payment_id, id);

  const [row] = await storedEvents('payment_id', id);
  assert.ok(row);
  assert.equal(row.body, null);
  assert.equal(row.body_codec, EVENT_BODY_DEFLATED_V1);
  assert.equal(row.body_size, Buffer.byteLength(sent));
  assert.ok((row.packed_bytes ?? Infinity) < Buffer.byteLength(sent) / 2, 'kept in under half');
  assert.equal(unpackEventBody(row), sent);
  await eventually(async () => (await feedText()).includes(`"payload":${sent},`));
});

test('a short body is kept as its bytes (codec 0), unpacked as written', () => {
  const body = '{"event":"refund.failed","x":"é"}';
  const p = packEventBody('refund.failed', body);
  assert.equal(p.codec, EVENT_BODY_RAW);
  assert.equal(p.size, Buffer.byteLength(body));
  const stored = {
    event_type: 'refund.failed',
    body: null,
    body_codec: p.codec,
    body_packed: p.bytes,
  };
  assert.equal(unpackEventBody(stored), body);
});

test('a body stored as text before 0034 is delivered and listed as it is', async () => {
  const paymentId = await finalizedPayment(gw.running.gw.pool, app.app_id, {});
  await receiver.waitFor(1);
  receiver.received.length = 0;
  const [paid] = await storedEvents('payment_id', paymentId);
  assert.ok(paid);
  const body = JSON.stringify({
    ...(JSON.parse(unpackEventBody(paid)) as object),
    metadata: { legacy: 'ü' },
  });
  const eventId = `evt_${'0'.repeat(20)}lgcy`;
  await gw.running.gw.pool.query(
    `WITH ev AS (
       INSERT INTO outbound_events (id, app_id, payment_id, event_type, body)
       VALUES ($1, $2, $3, 'payment.succeeded', $4) RETURNING id)
     INSERT INTO deliveries (id, event_id, app_id, payment_id)
     SELECT 'dlv_legacy000000000000000001', id, $2, $3 FROM ev`,
    [eventId, app.app_id, paymentId, body],
  );
  await gw.running.gw.pool.query(`NOTIFY paygate_delivery`);
  const [got] = await receiver.waitFor(1);
  assert.equal(got?.body, body);
  assert.equal(got?.headers['x-pay-event-id'], eventId);
  assert.equal(got?.signatureValid, true);
  const [row] = await storedEvents('id', eventId);
  assert.equal(row?.body_codec, null);
  assert.ok((await feedText()).includes(`"payload":${body},`));
});
