/**
 * A provider event that would move money, which the provider's API cannot confirm right now
 * (docs/api.md#provider-webhooks): refused with a retryable 503 and Retry-After, archived as
 * `unconfirmed`, nothing finalized; the provider's redelivery is confirmed and applied. The
 * sandbox endpoint of idr_psp is the gateway's own idr_psp simulator behind a real loopback
 * proxy that cuts the status call's connection.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { freePort } from '../../../scripts/net.js';
import { simulatorEndpoint } from '../../helpers/drivers/sim.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertStatus, paymentBody, sql } from '../../helpers/core.js';
import { FaultProxy } from '../../helpers/faultProxy.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { idrNotification, postWebhook } from '../../helpers/idrNotify.js';

let gw: TestGateway;
let proxy: FaultProxy;
let app: AppWithSecrets;
let serverKey: string;

before(async () => {
  const port = await freePort();
  const masterKey = randomBytes(32);
  proxy = new FaultProxy(`http://127.0.0.1:${port}`);
  await proxy.start();
  serverKey = simulatorEndpoint('idr_psp', masterKey, '').credentials.serverKey as string;
  gw = await startTestGateway({
    PORT: String(port),
    MASTER_KEY: masterKey.toString('hex'),
    IDR_PSP_SANDBOX_BASE_URL: `${proxy.url}/sim/idr_psp`,
    IDR_PSP_SANDBOX_SERVER_KEY: serverKey,
  });
  app = await gw.createApp({ name: 'Unconfirmed events shop', mode: 'sandbox' });
});
after(async () => {
  await gw?.stop();
  await proxy?.stop();
});

test('idr_psp: the status API unreachable: 503 with Retry-After, nothing finalized; the redelivery is confirmed', async () => {
  const res = await gw.v1(app, 'POST', '/v1/payments', paymentBody({ amount_minor: 25_000 }));
  assertStatus(res, 201);
  const id = res.json<{ payment_id: string }>().payment_id;
  const settlement = idrNotification(serverKey, {
    orderId: id,
    status: 'settlement',
    grossAmount: 25_000,
  });

  proxy.plan = ['drop'];
  const refused = await postWebhook(gw.url, 'idr_psp', settlement);
  assert.equal(refused.status, 503);
  assert.equal(refused.text, 'service unavailable');
  assert.equal(refused.retryAfter, '60');
  const [archived] = await sql<{ outcome: string; signature_valid: boolean }>(
    gw.databaseUrl,
    `SELECT outcome, signature_valid FROM inbound_events WHERE payment_id = $1`,
    [id],
  );
  assert.deepEqual(archived, { outcome: 'unconfirmed', signature_valid: true });
  const [row] = await sql<{ status: string }>(
    gw.databaseUrl,
    'SELECT status FROM payments WHERE id = $1',
    [id],
  );
  assert.equal(row?.status, 'initiated');

  // The provider redelivers; its API now answers: still pending there, so nothing to apply.
  const again = await postWebhook(gw.url, 'idr_psp', settlement);
  assert.equal(again.status, 200);
  assert.equal(again.text, '{"acknowledged":true,"action":"none"}');
  const [still] = await sql<{ status: string }>(
    gw.databaseUrl,
    'SELECT status FROM payments WHERE id = $1',
    [id],
  );
  assert.equal(still?.status, 'initiated');
  const events = await sql(gw.databaseUrl, 'SELECT 1 FROM outbound_events WHERE payment_id = $1', [
    id,
  ]);
  assert.equal(events.length, 0);
});
