/**
 * An admin cancel whose void the provider reports by notification before the cancel's own
 * answer arrives (Midtrans sends its cancel notification right after voiding): the
 * notification finalizes the payment first, the operator's action still took effect at the
 * provider, so it answers 200 canceled with exactly one audit entry and one event
 * (docs/api.md#admin-cancel, docs/api.md#audit-log).
 *
 * The sandbox idr_psp endpoint is a small loopback server playing the provider: it answers
 * the Snap registration and the status check, and on POST /v2/{order_id}/cancel first posts
 * the signed cancel notification to the gateway and waits for its 200, then answers.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertError, assertStatus, sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { idrNotification, postWebhook } from '../../helpers/idrNotify.js';
import { createPayment } from '../../helpers/payments.js';

const SERVER_KEY = 'SB-Mid-server-cancel-race-key-for-tests';
const AMOUNT = 10000;

let gw: TestGateway;
let app: AppWithSecrets;
let provider: Server;
/** order_id -> transaction_status at the played provider. */
const orders = new Map<string, string>();
const notified: { status: number; text: string }[] = [];

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

function transaction(orderId: string, status: string, statusCode: string) {
  return {
    status_code: statusCode,
    status_message:
      status === 'cancel' ? 'Success, transaction is canceled' : 'Success, transaction is found',
    transaction_id: `7d4b4a56-0000-4000-8000-${orderId.slice(-12).padStart(12, '0')}`,
    order_id: orderId,
    gross_amount: `${AMOUNT}.00`,
    currency: 'IDR',
    payment_type: 'qris',
    transaction_time: '2026-11-22 12:00:00',
    transaction_status: status,
    fraud_status: 'accept',
  };
}

before(async () => {
  provider = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      if (req.method === 'POST' && path === '/snap/v1/transactions') {
        const orderId = (JSON.parse(body) as { transaction_details: { order_id: string } })
          .transaction_details.order_id;
        orders.set(orderId, 'pending');
        const token = `tok-${orderId}`;
        return send(201, { token, redirect_url: `http://127.0.0.1/snap/v4/redirection/${token}` });
      }
      const m = /^\/v2\/([^/]+)\/(status|cancel)$/.exec(path);
      const orderId = m ? decodeURIComponent(m[1] as string) : '';
      const status = orders.get(orderId);
      if (!m || status === undefined) {
        return send(404, { status_code: '404', status_message: "Transaction doesn't exist." });
      }
      if (m[2] === 'status') {
        return send(200, transaction(orderId, status, status === 'pending' ? '201' : '200'));
      }
      if (req.method !== 'POST' || status !== 'pending') {
        return send(412, { status_code: '412', status_message: 'Merchant cannot modify status' });
      }
      orders.set(orderId, 'cancel');
      // The notification wins: the gateway has finalized the payment before the answer.
      notified.push(
        await postWebhook(
          gw.url,
          'idr_psp',
          idrNotification(SERVER_KEY, { orderId, status: 'cancel', grossAmount: AMOUNT }),
        ),
      );
      return send(200, transaction(orderId, 'cancel', '200'));
    })().catch((err: unknown) => {
      res.writeHead(500);
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  const { port } = provider.address() as AddressInfo;
  gw = await startTestGateway({
    IDR_PSP_SANDBOX_BASE_URL: `http://127.0.0.1:${port}`,
    IDR_PSP_SANDBOX_SERVER_KEY: SERVER_KEY,
  });
  app = await gw.createApp({ name: 'Sandbox shop', mode: 'sandbox' });
});
after(async () => {
  await gw?.stop();
  await new Promise<void>((resolve) => (provider ? provider.close(() => resolve()) : resolve()));
});

test('the provider notification finalizes first: 200 canceled, one event, one audit entry', async () => {
  const p = await createPayment(gw, app, 'idr', AMOUNT);
  const cancel = await gw.admin('POST', `/admin/payments/${p.id}/cancel`);
  assertStatus(cancel, 200);
  const view = cancel.json<{ payment_id: string; status: string }>();
  assert.equal(view.payment_id, p.id);
  assert.equal(view.status, 'canceled');
  // The race went the way this test forces: the notification was taken before the answer.
  assert.equal(notified.length, 1);
  assert.equal(notified[0]?.status, 200, notified[0]?.text);
  assert.equal(orders.get(p.id), 'cancel');

  const events = await sql<{ event_type: string }>(
    gw.databaseUrl,
    'SELECT event_type FROM outbound_events WHERE payment_id = $1',
    [p.id],
  );
  assert.deepEqual(
    events.map((e) => e.event_type),
    ['payment.canceled'],
  );

  const audit = await gw.admin('GET', `/admin/audit?target_id=${p.id}&limit=1000`);
  assertStatus(audit, 200);
  const entries = audit.json<{
    entries: { action: string; target_type: string; target_id: string; outcome: string }[];
  }>().entries;
  assert.equal(entries.length, 1, JSON.stringify(entries));
  assert.equal(entries[0]?.action, 'payment.cancel');
  assert.equal(entries[0]?.target_type, 'payment');
  assert.equal(entries[0]?.target_id, p.id);
  assert.equal(entries[0]?.outcome, 'canceled');

  // A second cancel changes nothing: 422, and no further entry.
  const again = await gw.admin('POST', `/admin/payments/${p.id}/cancel`);
  assertError(again, 422, 'payment already finalized (status canceled)');
  const after = await gw.admin('GET', `/admin/audit?target_id=${p.id}&limit=1000`);
  assert.equal(after.json<{ entries: unknown[] }>().entries.length, 1);
});
