import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DELIVERY_CHANNEL } from '../../../src/db/deliveries.js';
import { EVENT_BODY_DEFLATED_V1 } from '../../../src/db/eventBody.js';
import { newDeliveryId, newEventId } from '../../../src/domain/ids.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { eventually } from '../../helpers/eventually.js';
import {
  startWithReceiver,
  type GatewayWithReceiver,
  type TestGateway,
} from '../../helpers/gateway.js';
import { type Receiver } from '../../helpers/receiver.js';
import { finalizedPayment } from '../../helpers/finalized.js';

// A stored event body that cannot be read back (a damaged row, or a codec of a later
// version after a rollback) fails its own delivery, as dead without a request, and shows
// as a null payload in the feed; the deliveries and feed rows around it go on.

let gw: TestGateway;
let receiver: Receiver;
let app: AppWithSecrets;
let setup: GatewayWithReceiver;

before(async () => {
  setup = await startWithReceiver({});
  ({ gw, receiver, app } = setup);
});
after(() => setup?.stop());

/**
 * A copy of the payment's event with the stored form given (as an operator's SQL or a damaged
 * page would leave it) and its delivery, in one transaction; the NOTIFY wakes the worker.
 */
async function copiedEvent(
  paymentId: string,
  stored: { codec: number; size: string; packed: Buffer },
): Promise<{ eventId: string; deliveryId: string }> {
  const eventId = newEventId();
  const deliveryId = newDeliveryId();
  await gw.running.gw.pool.query(
    `WITH ev AS (
       INSERT INTO outbound_events (id, app_id, payment_id, event_type, body_codec, body_size,
         body_packed)
       SELECT $1, app_id, payment_id, event_type, $3, $4::int, $5 FROM outbound_events
       WHERE payment_id = $2 LIMIT 1
       RETURNING id, app_id, payment_id)
     INSERT INTO deliveries (id, event_id, app_id, payment_id)
     SELECT $6, id, app_id, payment_id FROM ev`,
    [eventId, paymentId, stored.codec, stored.size, stored.packed, deliveryId],
  );
  await gw.running.gw.pool.query(`SELECT pg_notify($1, '')`, [DELIVERY_CHANNEL]);
  return { eventId, deliveryId };
}

async function storedOf(
  paymentId: string,
): Promise<{ size: number; packed: Buffer; body: string }> {
  const r = await gw.running.gw.pool.query<{ body_size: number; body_packed: Buffer }>(
    `SELECT body_size, body_packed FROM outbound_events WHERE payment_id = $1 LIMIT 1`,
    [paymentId],
  );
  const row = r.rows[0];
  assert.ok(row);
  const sent = receiver.received.find((x) => x.body.includes(paymentId));
  assert.ok(sent);
  return { size: row.body_size, packed: row.body_packed, body: sent.body };
}

const CASES = [
  {
    name: 'bytes that are not deflate data',
    stored: (s: { size: number }) => ({
      codec: EVENT_BODY_DEFLATED_V1,
      size: String(s.size),
      packed: Buffer.from('not deflate at all, just bytes'),
    }),
    error: /^event body unreadable: /,
  },
  {
    name: 'a codec this version does not know',
    stored: (s: { size: number; packed: Buffer }) => ({
      codec: 9,
      size: String(s.size),
      packed: s.packed,
    }),
    error: /^event body unreadable: event body codec 9 of payment\.succeeded is not known$/,
  },
  {
    name: 'bytes that inflate to another length than was recorded',
    stored: (s: { size: number; packed: Buffer }) => ({
      codec: EVENT_BODY_DEFLATED_V1,
      size: String(s.size + 5),
      packed: s.packed,
    }),
    error: /^event body unreadable: event body is \d+ bytes, \d+ were recorded$/,
  },
];

for (const c of CASES) {
  test(`an event body with ${c.name}: its delivery dead without a request, the others sent, the feed goes on`, async () => {
    const paymentId = await finalizedPayment(gw.running.gw.pool, app.app_id);
    await eventually(async () => receiver.received.some((x) => x.body.includes(paymentId)));
    const healthy = await storedOf(paymentId);
    const count = receiver.received.length;

    const damaged = await copiedEvent(paymentId, c.stored(healthy));
    const good = await copiedEvent(paymentId, {
      codec: EVENT_BODY_DEFLATED_V1,
      size: String(healthy.size),
      packed: healthy.packed,
    });

    const db = gw.running.gw.pool;
    const state = async (id: string) =>
      (
        await db.query<{ status: string; last_error: string | null; attempts: number }>(
          `SELECT status, last_error, attempts FROM deliveries WHERE id = $1`,
          [id],
        )
      ).rows[0];
    await eventually(async () => (await state(damaged.deliveryId))?.status === 'dead');
    await eventually(async () => (await state(good.deliveryId))?.status === 'delivered');
    const dead = await state(damaged.deliveryId);
    assert.equal(dead?.attempts, 1);
    assert.match(dead?.last_error ?? '', c.error);

    // Only the readable copy reached the receiver, with the exact bytes of the original.
    const after = receiver.received.slice(count);
    assert.equal(after.length, 1);
    assert.equal(after[0]?.headers['x-pay-event-id'], good.eventId);
    assert.equal(after[0]?.body, healthy.body);
    assert.ok(after[0]?.signatureValid);

    // The feed answers 200: the damaged event with payload null, the next one whole.
    let text = '';
    let cursor: string | null = null;
    for (;;) {
      const res = await gw.v1(
        app,
        'GET',
        `/v1/events?limit=100${cursor ? `&after=${cursor}` : ''}`,
      );
      assert.equal(res.status, 200);
      text += res.text;
      const page = res.json<{ events: { id: string }[]; has_more: boolean }>();
      if (!page.has_more) break;
      cursor = page.events.at(-1)?.id ?? null;
    }
    assert.ok(text.includes(`"id":"${damaged.eventId}",`), 'the damaged event is listed');
    assert.match(
      text,
      new RegExp(
        `"id":"${damaged.eventId}","event":"payment.succeeded","created_at":"[^"]+","payload":null,`,
      ),
    );
    assert.ok(text.includes(`"id":"${good.eventId}",`));
    assert.ok(
      new RegExp(
        `"id":"${good.eventId}","event":"payment.succeeded","created_at":"[^"]+","payload":${healthy.body.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')},`,
      ).test(text),
    );
  });
}
