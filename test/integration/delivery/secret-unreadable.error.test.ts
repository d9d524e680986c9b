import assert from 'node:assert/strict';
import { test } from 'node:test';
import { enqueueEvent } from '../../../src/db/outbox.js';
import { eventually } from '../../helpers/eventually.js';
import { gatewayProcessHarness } from '../../helpers/gatewayProcess.js';

// A delivery whose webhook secret this instance cannot read (sealed under another
// MASTER_KEY, or damaged) fails its attempt without a request and is retried on the schedule
// (src/delivery/worker.ts send): an instance with the right key may still send it. Before, decryptSecret's throw escaped
// the attempt as an unhandled rejection, which ends a Node 20 process: every instance then
// died on that delivery after its lease. The real gateway as its own process, so a crash is
// seen as one.

const harness = gatewayProcessHarness({ DELIVERY_TIMEOUT_MS: '1000' });

async function delivery(appId: string): Promise<string> {
  const e = await enqueueEvent(harness.pool, {
    appId,
    paymentId: null,
    eventType: 'payment.succeeded',
    body: '{"n":1}',
  });
  assert.ok(e?.deliveryId);
  return e.deliveryId;
}

test('an unreadable webhook secret: the attempt fails without a request and is retried (not dead: another instance may hold the right key), with a plain error and no secret in the logs; the process lives on and delivers the rest', async () => {
  const { pool, receiver } = harness;
  const gateway = await harness.startGateway();
  const broken = await harness.createApp(gateway, 'secret-unreadable');
  const fine = await harness.createApp(gateway, 'secret-fine');
  receiver.secret = fine.webhook_secret;
  // The sealed secret's ciphertext damaged: its authentication tag no longer matches.
  await pool.query(
    `UPDATE apps SET webhook_secret_enc = split_part(webhook_secret_enc, '.', 1) || '.' ||
       split_part(webhook_secret_enc, '.', 2) || '.' || split_part(webhook_secret_enc, '.', 3)
       || '.AAAAAAAAAAAA' WHERE id = $1`,
    [broken.app_id],
  );
  const unsigned = await delivery(broken.app_id);
  const row = await eventually(async () => {
    const r = await pool.query<{
      status: string;
      last_error: string | null;
      history: string[];
    }>(
      `SELECT d.status, d.last_error,
         ARRAY(SELECT a.attempt || ':' || a.outcome || ':' || coalesce(a.error, '')
           FROM delivery_attempts a WHERE a.delivery_id = d.id ORDER BY a.attempt) AS history
       FROM deliveries d WHERE d.id = $1`,
      [unsigned],
    );
    return r.rows[0]?.history.length ? r.rows[0] : undefined;
  }, 'the attempt recorded (before: the gateway process died)');
  assert.deepEqual(row, {
    status: 'pending',
    last_error: 'endpoint secret unreadable',
    history: ['1:retry:endpoint secret unreadable'],
  });
  assert.equal(receiver.received.length, 0);
  assert.equal(gateway.child.exitCode, null);

  // Still delivering: another app's event arrives, signed.
  const ok = await delivery(fine.app_id);
  await eventually(async () => receiver.received.length === 1, 'the other delivery');
  assert.ok(receiver.received[0]?.signatureValid);
  await eventually(async () => {
    const r = await pool.query('SELECT 1 FROM deliveries WHERE id = $1 AND status = $2', [
      ok,
      'delivered',
    ]);
    return r.rowCount === 1;
  }, 'the other delivery recorded');
  assert.equal((await fetch(`${gateway.url}/readyz`)).status, 200);
  assert.ok(!gateway.output().includes(broken.webhook_secret));
});
