/**
 * Provider text the database cannot store as it is (docs/api.md#text-in-request-bodies): a
 * NUL or an unpaired surrogate in a provider's status or error text. The provider's event
 * is still applied and answered 200 (refusing it would make the provider redeliver it
 * forever); the text is stored with each such character replaced by U+FFFD.
 *
 * An idr_psp notification is a hint: a payment's outcome and its text come from the
 * provider's status API, never from the notification's (unsigned) status_message. The
 * simulator keeps its transactions in jsonb, which holds neither a NUL nor a lone surrogate,
 * so its status API cannot answer such text: a failed payment's unstorable text is carried
 * by card_psp, whose signature covers the body and whose failure_reason is stored as sent.
 * idr_psp still carries it where its body is believed: a refund declined by the paying
 * wallet is named only by its own notification (the status API lists completed refunds).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { cardPspTestSigner, postCardPspEvent } from '../../helpers/cardPspNotify.js';
import { unpackEventBody, type StoredEventBody } from '../../../src/db/eventBody.js';
import { paymentBody, sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { idrNotification, idrTestServerKey, postWebhook } from '../../helpers/idrNotify.js';
import { lostWebhookPayment, silentAction, simAction } from '../../helpers/payments.js';

let gw: TestGateway;
let app: AppWithSecrets;
let serverKey: string;

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp();
  serverKey = idrTestServerKey(gw.config.masterKey);
});
after(async () => {
  await gw?.stop();
});

const ACK = '{"acknowledged":true}';

async function paymentRow(id: string) {
  const [row] = await sql<{ status: string; last_error: string }>(
    gw.databaseUrl,
    'SELECT status, last_error FROM payments WHERE id = $1',
    [id],
  );
  return row;
}

async function inboundOf(id: string) {
  return sql<{ outcome: string }>(
    gw.databaseUrl,
    'SELECT outcome FROM inbound_events WHERE payment_id = $1 ORDER BY id',
    [id],
  );
}

async function lastEventBody(id: string): Promise<{ event: string; last_error?: string }> {
  const [row] = await sql<StoredEventBody>(
    gw.databaseUrl,
    `SELECT event_type, body, body_codec, body_packed FROM outbound_events WHERE payment_id = $1
     ORDER BY created_at DESC LIMIT 1`,
    [id],
  );
  return JSON.parse(row ? unpackEventBody(row) : '{}') as { event: string; last_error?: string };
}

async function cardPayment() {
  const created = await gw.v1(
    app,
    'POST',
    '/v1/payments',
    paymentBody({
      currency: 'USD',
      method: 'card_psp',
      amount_minor: 1999,
      metadata: { card_psp_product_id: 'prod_pro_monthly' },
    }),
  );
  assert.equal(created.status, 201, created.text);
  const c = created.json<{ payment_id: string; checkout_url: string }>();
  return { id: c.payment_id, ref: new URL(c.checkout_url).pathname.split('/').pop() ?? '' };
}

for (const [message, stored] of [
  ['Card\u0000denied by bank', 'Card\uFFFDdenied by bank'],
  ['Expired \uD800 without payment\u0000', 'Expired \uFFFD without payment\uFFFD'],
] as const) {
  test(`card_psp checkout failed with a NUL or lone surrogate in failure_reason (${JSON.stringify(message)}): 200, payment failed, text stored with U+FFFD`, async () => {
    const p = await cardPayment();
    const signer = cardPspTestSigner(gw.config.masterKey);
    const body = JSON.stringify({
      type: 'checkout.updated',
      timestamp: new Date().toISOString(),
      data: {
        id: p.ref,
        status: 'failed',
        failure_reason: message,
        metadata: { payment_id: p.id },
      },
    });
    // The wire carries the JSON escape, as the provider would send it.
    assert.ok(body.includes(message.includes('\u0000') ? '\\u0000' : '\\ud800'));
    const res = await postCardPspEvent(gw.url, signer, body);
    assert.deepEqual([res.status, res.text], [200, ACK]);
    assert.deepEqual(await paymentRow(p.id), { status: 'failed', last_error: stored });
    assert.deepEqual(
      (await inboundOf(p.id)).map((r) => r.outcome),
      ['finalized_failed'],
    );
    const event = await lastEventBody(p.id);
    assert.equal(event.event, 'payment.failed');
    const read = await gw.v1(app, 'GET', `/v1/payments/${p.id}`);
    assert.equal(read.status, 200, read.text);
    assert.equal(read.json<{ last_error: string }>().last_error, stored);
    // A redelivery is acknowledged as already final.
    const again = await postCardPspEvent(gw.url, signer, body);
    assert.deepEqual(
      [again.status, again.text],
      [200, '{"acknowledged":true,"action":"already_finalized"}'],
    );
  });
}

test("idr_psp deny notification with a NUL in status_message: 200, archived, the failure text is the provider status API's", async () => {
  const p = await lostWebhookPayment(gw, app, 'idr', 12000);
  await silentAction(gw, 'idr', p.providerRef, 'fail');
  const body = idrNotification(serverKey, {
    orderId: p.id,
    status: 'deny',
    grossAmount: 12000,
    statusMessage: 'Card\u0000denied by bank',
  });
  assert.ok(body.includes('\\u0000'));
  const res = await postWebhook(gw.url, 'idr_psp', body);
  assert.deepEqual([res.status, res.text], [200, ACK]);
  assert.deepEqual(await paymentRow(p.id), {
    status: 'failed',
    last_error: 'Transaction denied by the issuer (simulated decline)',
  });
  assert.deepEqual(
    (await inboundOf(p.id)).map((r) => r.outcome),
    ['finalized_failed'],
  );
});

test('idr_psp refund declined by the paying wallet with a NUL in its text: 200, refund failed, text stored with U+FFFD', async () => {
  // Paid with another wallet than the acquirer's: the refund waits for that wallet.
  const p = await lostWebhookPayment(gw, app, 'idr', 15000);
  const paid = await simAction(gw, 'idr', p.providerRef, 'pay', '?wallet=ovo');
  assert.equal(paid.gateway_status, 0, paid.gateway_body);
  const settled = await postWebhook(
    gw.url,
    'idr_psp',
    idrNotification(serverKey, { orderId: p.id, status: 'settlement', grossAmount: 15000 }),
  );
  assert.deepEqual([settled.status, settled.text], [200, ACK]);
  const created = await gw.v1(app, 'POST', '/v1/refunds', { payment_id: p.id });
  assert.equal(created.status, 201, created.text);
  const refund = created.json<{ refund_id: string; status: string }>();
  assert.equal(refund.status, 'initiated');
  // The wallet declines it at the provider (the provider's own text cannot hold a NUL: its
  // store is jsonb); the notification is the test's.
  await silentAction(gw, 'idr', p.providerRef, 'refund_fail');
  // The provider's notification of the declined refund: still settled, the refund failed.
  const body = JSON.parse(
    idrNotification(serverKey, {
      orderId: p.id,
      status: 'settlement',
      grossAmount: 15000,
      statusMessage: 'Wallet\u0000account closed',
      // The provider's code for a declined refund (a settled notification with a failed
      // refund entry and any other code is an edited body, applied as nothing).
      statusCode: '202',
    }),
  ) as Record<string, unknown>;
  body.refunds = [
    {
      refund_key: refund.refund_id,
      refund_amount: '15000.00',
      status: 'failed',
      created_at: '2026-11-22 12:05:00',
    },
  ];
  const res = await postWebhook(gw.url, 'idr_psp', JSON.stringify(body));
  assert.deepEqual([res.status, res.text], [200, ACK]);
  const [row] = await sql<{ status: string; last_error: string }>(
    gw.databaseUrl,
    'SELECT status, last_error FROM refunds WHERE id = $1',
    [refund.refund_id],
  );
  assert.deepEqual(row, { status: 'failed', last_error: 'Wallet\uFFFDaccount closed' });
  const [ev] = await sql<{ event_type: string }>(
    gw.databaseUrl,
    'SELECT event_type FROM outbound_events WHERE refund_id = $1',
    [refund.refund_id],
  );
  assert.equal(ev?.event_type, 'refund.failed');
});

test('card_psp checkout failed with a NUL in failure_reason, and an unknown event type with a NUL: 200, stored with U+FFFD', async () => {
  const signer = cardPspTestSigner(gw.config.masterKey);
  const created = await gw.v1(
    app,
    'POST',
    '/v1/payments',
    paymentBody({
      currency: 'USD',
      method: 'card_psp',
      amount_minor: 1999,
      metadata: { card_psp_product_id: 'prod_pro_monthly' },
    }),
  );
  assert.equal(created.status, 201, created.text);
  const c = created.json<{ payment_id: string; checkout_url: string }>();
  const ref = new URL(c.checkout_url).pathname.split('/').pop() ?? '';
  const post = async (event: object) => {
    const r = await postCardPspEvent(gw.url, signer, JSON.stringify(event));
    return [r.status, r.text];
  };
  // An event type the adapter does not know, named with a NUL: acknowledged, its name archived.
  assert.deepEqual(
    await post({
      type: 'order.future\u0000kind',
      timestamp: new Date().toISOString(),
      data: { id: 'x', metadata: { payment_id: c.payment_id } },
    }),
    [200, '{"acknowledged":true,"action":"none"}'],
  );
  const [archived] = await sql<{ event_type: string; outcome: string }>(
    gw.databaseUrl,
    'SELECT event_type, outcome FROM inbound_events WHERE payment_id = $1 ORDER BY id LIMIT 1',
    [c.payment_id],
  );
  assert.deepEqual(archived, { event_type: 'order.future\uFFFDkind', outcome: 'none' });
  assert.deepEqual(
    await post({
      type: 'checkout.updated',
      timestamp: new Date().toISOString(),
      data: {
        id: ref,
        status: 'failed',
        failure_reason: 'Your card was declined.\u0000\uDC00',
        metadata: { payment_id: c.payment_id },
      },
    }),
    [200, ACK],
  );
  assert.deepEqual(await paymentRow(c.payment_id), {
    status: 'failed',
    last_error: 'Your card was declined.\uFFFD\uFFFD',
  });
});
