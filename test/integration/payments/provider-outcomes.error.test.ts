/**
 * D15 (docs/api.md#errors) for admin cancel and sync: 502 when the provider answered and
 * refused, 504 when its answer is unknown, the same body text either way, and the payment
 * left initiated by a 504. The sandbox endpoint of idr_psp is the gateway's own idr_psp
 * simulator behind a real loopback proxy, which cuts a connection after the request was
 * sent, or answers for the provider with the provider's own refusal.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, test } from 'node:test';
import { freePort } from '../../../scripts/net.js';
import { simulatorEndpoint } from '../../helpers/drivers/sim.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertError, assertStatus, paymentBody, sql } from '../../helpers/core.js';
import { FaultProxy } from '../../helpers/faultProxy.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

let gw: TestGateway;
let proxy: FaultProxy;
let app: AppWithSecrets;

/** The provider's own refusal bodies (Midtrans Core API: status_code and status_message). */
const refusal = (code: number, message: string) => ({
  status: code,
  body: JSON.stringify({ status_code: String(code), status_message: message }),
});

before(async () => {
  const port = await freePort();
  const masterKey = randomBytes(32);
  proxy = new FaultProxy(`http://127.0.0.1:${port}`);
  await proxy.start();
  const sim = simulatorEndpoint('idr_psp', masterKey, '');
  gw = await startTestGateway({
    PORT: String(port),
    MASTER_KEY: masterKey.toString('hex'),
    IDR_PSP_SANDBOX_BASE_URL: `${proxy.url}/sim/idr_psp`,
    IDR_PSP_SANDBOX_SERVER_KEY: sim.credentials.serverKey as string,
  });
  app = await gw.createApp({ name: 'Sandbox outcomes shop', mode: 'sandbox' });
});
after(async () => {
  await gw?.stop();
  await proxy?.stop();
});
beforeEach(() => {
  proxy.plan = [];
});

let buyer = 0;
async function initiated(): Promise<string> {
  const res = await gw.v1(
    app,
    'POST',
    '/v1/payments',
    paymentBody({ external_user_id: `outcome-${++buyer}` }),
  );
  assertStatus(res, 201);
  return res.json<{ payment_id: string }>().payment_id;
}

async function statusOf(id: string): Promise<string | undefined> {
  const [row] = await sql<{ status: string }>(
    gw.databaseUrl,
    'SELECT status FROM payments WHERE id = $1',
    [id],
  );
  return row?.status;
}

test('sync: the connection lost after sending is 504 sync failed; the payment stays initiated', async () => {
  const id = await initiated();
  proxy.plan = ['drop'];
  assertError(
    await gw.admin('POST', `/admin/payments/${id}/sync`),
    504,
    'sync failed: idr_psp unreachable',
  );
  assert.equal(await statusOf(id), 'initiated');
  // Asking again reaches the provider: still pending, still initiated.
  const again = await gw.admin('POST', `/admin/payments/${id}/sync`);
  assertStatus(again, 200);
  assert.equal(again.json<{ status: string }>().status, 'initiated');
});

test('sync: the provider refuses the status check: 502 sync failed with its text', async () => {
  const id = await initiated();
  const text = 'Access denied due to unauthorized transaction, please check client or server key';
  proxy.plan = [refusal(401, text)];
  assertError(await gw.admin('POST', `/admin/payments/${id}/sync`), 502, `sync failed: ${text}`);
  assert.equal(await statusOf(id), 'initiated');
});

test('cancel: the cancel call lost is 504 cancel failed; the payment stays initiated, a retry cancels', async () => {
  const id = await initiated();
  // The status read before the cancel passes; the cancel itself is cut.
  proxy.plan = ['forward', 'drop'];
  assertError(
    await gw.admin('POST', `/admin/payments/${id}/cancel`),
    504,
    'cancel failed: idr_psp unreachable',
  );
  assert.equal(await statusOf(id), 'initiated');
  const retry = await gw.admin('POST', `/admin/payments/${id}/cancel`);
  assertStatus(retry, 200);
  assert.equal(retry.json<{ status: string }>().status, 'canceled');
});

test('cancel: the provider refuses the cancel: 502 cancel failed with its text', async () => {
  const id = await initiated();
  const text = 'Merchant cannot modify the status of the transaction';
  proxy.plan = ['forward', refusal(412, text)];
  assertError(
    await gw.admin('POST', `/admin/payments/${id}/cancel`),
    502,
    `cancel failed: ${text}`,
  );
  // The status read after the refusal found it still pending.
  assert.equal(await statusOf(id), 'initiated');
});
