/**
 * A provider event is applied only to the payment it names: a refund notification for
 * payment A that carries payment B's refund key is a bad reference and changes nothing.
 * idr_psp notifications are confirmed with the provider's status API, whose answer lists the
 * refunds applied: so the provider itself holds a refund of A under B's key here (made at
 * the provider with that key, notified by nobody: lost_webhook), and the test's own
 * notification names it too.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { idrNotification, idrTestServerKey, postWebhook } from '../../helpers/idrNotify.js';
import {
  idrProviderRefund,
  lostWebhookPayment,
  paidPayment,
  silentAction,
} from '../../helpers/payments.js';

let gw: TestGateway;
let app: AppWithSecrets;

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp();
});
after(async () => {
  await gw?.stop();
});

test("a refund notification naming payment A with payment B's refund key: 400, nothing changes", async () => {
  const serverKey = idrTestServerKey(gw.running.gw.config.masterKey);
  const a = await lostWebhookPayment(gw, app, 'idr', 10000);
  await silentAction(gw, 'idr', a.providerRef, 'pay');
  const settled = await postWebhook(
    gw.url,
    'idr_psp',
    idrNotification(serverKey, { orderId: a.id, status: 'settlement', grossAmount: 10000 }),
  );
  assert.equal(settled.text, '{"acknowledged":true}');
  const b = await paidPayment(gw, app, 'idr', 10000);
  const refunded = await gw.v1(app, 'POST', '/v1/refunds', { payment_id: b.id });
  assert.equal(refunded.status, 201, refunded.text);
  const refundB = refunded.json<{ refund_id: string; provider_ref: string }>();
  // At the provider, A is refunded under B's refund key.
  const atProvider = await idrProviderRefund(gw, serverKey, a.id, {
    refund_key: refundB.provider_ref,
  });
  assert.equal(atProvider.status, 200, JSON.stringify(atProvider.body));
  assert.equal(atProvider.body.status_code, '200', JSON.stringify(atProvider.body));

  const notification = JSON.parse(
    idrNotification(serverKey, {
      orderId: a.id,
      status: 'refund',
      grossAmount: 10000,
    }),
  ) as Record<string, unknown>;
  notification.refund_amount = '10000.00';
  notification.refunds = [
    {
      refund_chargeback_id: 1,
      refund_amount: '10000.00',
      created_at: '2026-11-22 12:01:00',
      reason: '',
      refund_key: refundB.provider_ref,
      refund_method: '',
    },
  ];
  const before = await sql(gw.databaseUrl, 'SELECT id FROM outbound_events');
  const res = await postWebhook(gw.url, 'idr_psp', JSON.stringify(notification));
  assert.deepEqual(res, {
    status: 400,
    text: `bad reference: refund ${JSON.stringify(refundB.provider_ref)} belongs to another payment`,
    contentType: 'text/plain; charset=utf-8',
    retryAfter: null,
  });
  assert.deepEqual(
    await sql(gw.databaseUrl, 'SELECT id FROM refunds WHERE payment_id = $1', [a.id]),
    [],
  );
  const [rowB] = await sql<{ status: string; payment_id: string }>(
    gw.databaseUrl,
    'SELECT status, payment_id FROM refunds WHERE id = $1',
    [refundB.refund_id],
  );
  assert.deepEqual(rowB, { status: 'succeeded', payment_id: b.id });
  assert.equal((await sql(gw.databaseUrl, 'SELECT id FROM outbound_events')).length, before.length);
});
