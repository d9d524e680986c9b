import assert from 'node:assert/strict';
import { test } from 'node:test';
import { enqueueEvent } from '../../../src/db/outbox.js';
import { eventually } from '../../helpers/eventually.js';
import { gatewayProcessHarness } from '../../helpers/gatewayProcess.js';

// A finished delivery attempt is recorded by the worker's next claim, one statement and one
// commit for both (src/delivery/worker.ts, db/deliveries.ts claimDueDeliveries). This is the
// window that opens: the receiver has answered, and the gateway process dies before the
// statement recording that answer commits. Nothing may be lost: the delivery stays pending
// under its lease, and after a restart it is sent again with the same event id and body (at
// least once; receivers dedupe on X-PAY-Event-Id).

// The lease of a claim: 2 × 1,000 ms + 5 s.
const harness = gatewayProcessHarness({ DELIVERY_TIMEOUT_MS: '1000' });

interface DeliveryState {
  status: string;
  attempts: number;
  attempt_rows: number[];
}

async function state(deliveryId: string): Promise<DeliveryState | undefined> {
  const r = await harness.pool.query<DeliveryState>(
    `SELECT d.status, d.attempts,
       ARRAY(SELECT a.attempt FROM delivery_attempts a WHERE a.delivery_id = d.id ORDER BY a.attempt)
         AS attempt_rows
     FROM deliveries d WHERE d.id = $1`,
    [deliveryId],
  );
  return r.rows[0];
}

test('killed after the receiver answered, before the claim recording the answer committed: sent again with the same event id after the lease', async () => {
  const { pool, receiver } = harness;
  const gateway = await harness.startGateway();
  const app = await harness.createApp(gateway, 'recorded-claim');
  receiver.secret = app.webhook_secret;

  // The receiver holds its first answer until the test has locked the delivery's row, so
  // the statement that records the answer (and claims) waits on that row.
  let answer!: () => void;
  const held = new Promise<void>((r) => (answer = r));
  receiver.behaviour = (index) =>
    index === 0 ? { status: 200, heldUntil: held } : { status: 200 };

  const e = await enqueueEvent(pool, {
    appId: app.app_id,
    paymentId: null,
    eventType: 'payment.succeeded',
    body: '{"n":1}',
  });
  assert.ok(e?.deliveryId);
  const deliveryId = e.deliveryId;
  await eventually(async () => receiver.received.length === 1, 'the first attempt arrives');

  const holder = await pool.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM deliveries WHERE id = $1 FOR UPDATE', [deliveryId]);
    answer();
    // The gateway's statement that records the answer waits on the held row (its text as
    // pg_stat_activity keeps it: the first 1 KiB, where the attempts' arrays are unnested).
    const waiting = await eventually(async () => {
      const w = await pool.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock'
           AND query LIKE '%unnest($1::text[], $2::text[]%'`,
      );
      return w.rows[0]?.pid;
    }, 'the statement recording the answer, waiting on the held row');
    // The process dies; its statement never commits (as a crash of the whole host would
    // leave it: the statement's session is ended too, rather than left to finish).
    await harness.killGateway(gateway, 'SIGKILL');
    await pool.query('SELECT pg_terminate_backend($1)', [waiting]);
    await eventually(async () => {
      const r = await pool.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [waiting]);
      return r.rowCount === 0;
    }, 'the recording session ended');
  } finally {
    await holder.query('ROLLBACK').catch(() => undefined);
    holder.release();
  }

  // Answered, but not recorded: pending under the dead worker's lease, no attempt row.
  assert.deepEqual(await state(deliveryId), {
    status: 'pending',
    attempts: 1,
    attempt_rows: [],
  });

  // After a restart, once the lease has run out, the delivery is sent again: the same
  // event id, the same body, signed; then recorded as the second attempt.
  await harness.startGateway();
  await eventually(async () => receiver.received.length === 2, 'the second attempt', 30_000);
  const [first, second] = receiver.received;
  assert.equal(second?.headers['x-pay-event-id'], first?.headers['x-pay-event-id']);
  assert.equal(second?.headers['x-pay-event-id'], e.eventId);
  assert.equal(second?.body, first?.body);
  assert.ok(second?.signatureValid);
  assert.deepEqual(
    await eventually(async () => {
      const s = await state(deliveryId);
      return s?.status === 'delivered' ? s : undefined;
    }, 'the second attempt recorded'),
    { status: 'delivered', attempts: 2, attempt_rows: [2] },
  );
});
