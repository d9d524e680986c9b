/**
 * Money a provider moved is always on record: card_psp cannot close an open checkout, so a
 * buyer can pay a payment the operator canceled, and its subscription can renew. The
 * payment stays canceled; each charge becomes an exception the operator sees and resolves.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertError, assertTimestamp, paymentBody, sql } from '../../helpers/core.js';
import { cardPspTestSigner, postCardPspEvent } from '../../helpers/cardPspNotify.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { idrNotification, idrTestServerKey, postWebhook } from '../../helpers/idrNotify.js';
import { idrProviderRefund, silentAction } from '../../helpers/payments.js';
import { act } from '../../helpers/drivers/card_psp.js';
import { receivedBody, type ArchivedBodyColumns } from '../../helpers/inboundBody.js';

let gw: TestGateway;
let app: AppWithSecrets;

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp();
});
after(async () => {
  await gw?.stop();
});

interface ExceptionView {
  id: string;
  payment_id: string;
  app_id: string;
  kind: string;
  provider: string;
  provider_ref: string;
  amount_minor: number;
  currency: string;
  detected_at: string;
  resolution: string;
  note: string | null;
  resolved_at: string | null;
}

async function cardPayment(scenario?: 'lost_webhook'): Promise<{ id: string; ref: string }> {
  const res = await gw.v1(
    app,
    'POST',
    '/v1/payments',
    paymentBody({
      currency: 'USD',
      method: 'card_psp',
      amount_minor: 1999,
      metadata: {
        card_psp_product_id: 'prod_pro_monthly',
        ...(scenario ? { test_scenario: scenario } : {}),
      },
    }),
  );
  assert.equal(res.status, 201, res.text);
  const body = res.json<{ payment_id: string; checkout_url: string }>();
  return { id: body.payment_id, ref: new URL(body.checkout_url).pathname.split('/').pop() ?? '' };
}

async function exceptionsOf(paymentId: string): Promise<ExceptionView[]> {
  const res = await gw.admin('GET', '/admin/exceptions?limit=1000');
  assert.equal(res.status, 200, res.text);
  return res
    .json<{ exceptions: ExceptionView[] }>()
    .exceptions.filter((e) => e.payment_id === paymentId);
}

async function status(id: string): Promise<string> {
  const res = await gw.v1(app, 'GET', `/v1/payments/${id}`);
  return res.json<{ status: string }>().status;
}

const ALREADY = '{"acknowledged":true,"action":"already_finalized"}';

test('paid after an operator cancel: the payment stays canceled, the charge is an exception', async () => {
  const p = await cardPayment();
  const canceled = await gw.admin('POST', `/admin/payments/${p.id}/cancel`);
  assert.equal(canceled.status, 200, canceled.text);

  // The provider's checkout was still payable: the buyer pays, the provider charges.
  const paid = await act(gw, p.ref, 'pay');
  assert.deepEqual(paid, { gateway_status: 200, gateway_body: ALREADY });
  assert.equal(await status(p.id), 'canceled');

  const [e, ...rest] = await exceptionsOf(p.id);
  assert.deepEqual(rest, []);
  assert.ok(e);
  assert.match(e.id, /^[0-9a-f]{32}$/);
  assertTimestamp(e.detected_at);
  assert.deepEqual(
    { ...e, id: '', detected_at: '' },
    {
      id: '',
      payment_id: p.id,
      app_id: app.app_id,
      kind: 'paid_after_cancel',
      provider: 'card_psp',
      provider_ref: p.ref,
      amount_minor: 1999,
      currency: 'USD',
      detected_at: '',
      resolution: 'manual',
      note: null,
      resolved_at: null,
    },
  );

  // A redelivery of the same provider event records nothing twice.
  const [archived] = await sql<{ headers: Record<string, string> } & ArchivedBodyColumns>(
    gw.databaseUrl,
    `SELECT headers, provider, raw_body, body_codec FROM inbound_events
     WHERE payment_id = $1 AND outcome = 'already_finalized' AND signature_valid ORDER BY id LIMIT 1`,
    [p.id],
  );
  assert.ok(archived);
  const again = await fetch(`${gw.url}/webhooks/card_psp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': archived.headers['webhook-id'] ?? '',
      'webhook-timestamp': archived.headers['webhook-timestamp'] ?? '',
      'webhook-signature': archived.headers['webhook-signature'] ?? '',
    },
    body: new Uint8Array(receivedBody(archived)),
  });
  assert.equal(again.status, 200, await again.text());
  assert.equal((await exceptionsOf(p.id)).length, 1);

  // Its subscription renews: another exception, never a succeeded child of a canceled payment.
  const renewed = await act(gw, p.ref, 'renew');
  assert.deepEqual(renewed, { gateway_status: 200, gateway_body: ALREADY });
  const children = await sql(
    gw.databaseUrl,
    'SELECT id FROM payments WHERE parent_payment_id = $1',
    [p.id],
  );
  assert.deepEqual(children, []);
  const both = await exceptionsOf(p.id);
  assert.equal(both.length, 2);
  const renewal = both.find((x) => x.provider_ref !== p.ref);
  assert.equal(renewal?.kind, 'paid_after_cancel');
  assert.equal(renewal?.amount_minor, 1999);
  assert.equal(renewal?.resolution, 'manual');

  const metrics = await gw.admin('GET', '/metrics');
  assert.match(metrics.text, /paygate_payment_exceptions_total\{kind="paid_after_cancel"\} [2-9]/);
});

test('paid after a failure is an exception of its own kind', async () => {
  const p = await cardPayment();
  await act(gw, p.ref, 'fail');
  assert.equal(await status(p.id), 'failed');
  // The buyer retries on the provider's page and the card goes through this time.
  await sql(
    gw.databaseUrl,
    `UPDATE paygate_sim.sim_objects SET data = jsonb_set(data, '{status}', '"open"')
     WHERE provider = 'card_psp' AND kind = 'checkout' AND id = $1`,
    [p.ref],
  );
  const paid = await act(gw, p.ref, 'pay');
  assert.deepEqual(paid, { gateway_status: 200, gateway_body: ALREADY });
  assert.equal(await status(p.id), 'failed');
  const [e] = await exceptionsOf(p.id);
  assert.equal(e?.kind, 'paid_after_failure');
});

test('resolve: a note marks a manual exception resolved once', async () => {
  const p = await cardPayment();
  await gw.admin('POST', `/admin/payments/${p.id}/cancel`);
  await act(gw, p.ref, 'pay');
  const [e] = await exceptionsOf(p.id);
  assert.ok(e);
  const path = `/admin/exceptions/${e.id}/resolve`;
  assertError(await gw.admin('POST', path, {}), 400, 'note is required');
  assertError(await gw.admin('POST', path, { note: '  ' }), 400, 'note is required');
  assertError(await gw.admin('POST', path, { note: 7 }), 400, 'note is required');
  assertError(
    await gw.admin('POST', path, { note: 'x'.repeat(2001) }),
    400,
    'note must be at most 2000 characters',
  );
  const ok = await gw.admin('POST', path, { note: 'refunded in the provider dashboard' });
  assert.equal(ok.status, 200, ok.text);
  const resolved = ok.json<ExceptionView>();
  assert.equal(resolved.resolution, 'resolved');
  assert.equal(resolved.note, 'refunded in the provider dashboard');
  assertTimestamp(resolved.resolved_at);
  assertError(await gw.admin('POST', path, { note: 'again' }), 422, 'exception already resolved');
  // Who resolved it, once, on the payment's audit trail.
  const audit = await gw.admin('GET', `/admin/audit?action=exception.resolve&target_id=${p.id}`);
  assert.deepEqual(
    audit
      .json<{ entries: { actor: string; outcome: string; details: unknown }[] }>()
      .entries.map((a) => [a.actor, a.outcome, a.details]),
    [
      [
        'root',
        'resolved',
        { exception_id: e.id, kind: e.kind, note: 'refunded in the provider dashboard' },
      ],
    ],
  );
  assertError(
    await gw.admin('POST', `/admin/exceptions/${'0'.repeat(32)}/resolve`, { note: 'n' }),
    404,
    'exception not found',
  );
  assertError(
    await gw.admin('POST', '/admin/exceptions/nope/resolve', { note: 'n' }),
    404,
    'exception not found',
  );
});

test('list: newest first, limit and before paging, 400s, admin token only', async () => {
  const all = (await gw.admin('GET', '/admin/exceptions?limit=1000')).json<{
    exceptions: ExceptionView[];
  }>().exceptions;
  assert.ok(all.length >= 3);
  const times = all.map((e) => Date.parse(e.detected_at));
  assert.deepEqual(
    times,
    [...times].sort((a, b) => b - a),
  );
  const first = (await gw.admin('GET', '/admin/exceptions?limit=1')).json<{
    exceptions: ExceptionView[];
  }>().exceptions;
  assert.deepEqual(
    first.map((e) => e.id),
    [all[0]?.id],
  );
  const next = (await gw.admin('GET', `/admin/exceptions?limit=2&before=${all[0]?.id}`)).json<{
    exceptions: ExceptionView[];
  }>().exceptions;
  assert.deepEqual(
    next.map((e) => e.id),
    all.slice(1, 3).map((e) => e.id),
  );
  for (const bad of ['0', '1001', 'x']) {
    assertError(
      await gw.admin('GET', `/admin/exceptions?limit=${bad}`),
      400,
      'limit must be an integer from 1 to 1000',
    );
  }
  for (const bad of ['nope', '0'.repeat(32)]) {
    assertError(
      await gw.admin('GET', `/admin/exceptions?before=${bad}`),
      400,
      'before must be an exception id from a previous page',
    );
  }
  const anon = await fetch(`${gw.url}/admin/exceptions`);
  assert.equal(anon.status, 401);
  assert.equal(await anon.text(), 'unauthorized');
});

test('idr_psp: a charge reported on a canceled payment, delivered 8 times at once, is refunded once and recorded', async () => {
  const created = await gw.v1(
    app,
    'POST',
    '/v1/payments',
    paymentBody({ currency: 'IDR', method: 'qris', amount_minor: 25000 }),
  );
  assert.equal(created.status, 201, created.text);
  const id = created.json<{ payment_id: string }>().payment_id;
  assert.equal((await gw.admin('POST', `/admin/payments/${id}/cancel`)).status, 200);
  // The provider settles the transaction anyway (a late confirmation from the paying bank).
  await sql(
    gw.databaseUrl,
    `UPDATE paygate_sim.sim_objects SET data = data || '{"transaction_status":"settlement"}'::jsonb
     WHERE provider = 'idr_psp' AND kind = 'transaction' AND id = $1`,
    [id],
  );
  const notification = idrNotification(idrTestServerKey(gw.running.gw.config.masterKey), {
    orderId: id,
    status: 'settlement',
    grossAmount: 25000,
  });
  // Redelivered, several at once: one exception, one refund at the provider.
  const answers = await Promise.all(
    Array.from({ length: 8 }, () => postWebhook(gw.url, 'idr_psp', notification)),
  );
  for (const res of answers) assert.deepEqual([res.status, res.text], [200, ALREADY]);
  assert.equal(await status(id), 'canceled');
  const [e, ...rest] = await exceptionsOf(id);
  assert.deepEqual(rest, []);
  assert.equal(e?.kind, 'paid_after_cancel');
  assert.equal(e?.resolution, 'refunded');
  assertTimestamp(e?.resolved_at);
  assertError(
    await gw.admin('POST', `/admin/exceptions/${e?.id}/resolve`, { note: 'n' }),
    422,
    'exception already refunded',
  );
  const refunds = await sql<{ status: string; amount_minor: number; reason: string }>(
    gw.databaseUrl,
    'SELECT status, amount_minor, reason FROM refunds WHERE payment_id = $1',
    [id],
  );
  assert.deepEqual(refunds, [
    { status: 'succeeded', amount_minor: 25000, reason: 'charged after the payment was final' },
  ]);
  const [sim] = await sql<{ data: { transaction_status: string; refunds?: unknown[] } }>(
    gw.databaseUrl,
    `SELECT data FROM paygate_sim.sim_objects WHERE provider = 'idr_psp' AND kind = 'transaction' AND id = $1`,
    [id],
  );
  assert.equal(sim?.data.transaction_status, 'refund');
  assert.equal(sim?.data.refunds?.length, 1);
  const events = await sql<{ event_type: string }>(
    gw.databaseUrl,
    'SELECT event_type FROM outbound_events WHERE payment_id = $1 ORDER BY created_at',
    [id],
  );
  assert.deepEqual(
    events.map((x) => x.event_type),
    ['payment.canceled', 'refund.succeeded'],
  );
});

// An idr_psp notification is confirmed with the provider's status API, which reports a
// refunded transaction as paid first: there a refund never arrives for an unpaid payment (see
// the next test). card_psp signs its whole body, so its events are applied as sent: an
// order.refunded whose order.paid never arrived is a refund on a payment that never succeeded.
test('a refund the gateway never asked for on an unpaid payment is an unrequested_refund, once', async () => {
  const p = await cardPayment('lost_webhook');
  // At the provider the buyer pays and the operator refunds; neither event reaches the gateway.
  for (const action of ['pay', 'refund']) {
    assert.deepEqual(await act(gw, p.ref, action), {
      gateway_status: 0,
      gateway_body: 'notification not sent (test_scenario lost_webhook)',
    });
  }
  const [checkout] = await sql<{
    data: {
      order: { id: string; amount: number; refunded_amount: number; billing_reason: string };
      currency: string;
      metadata: Record<string, unknown>;
    };
  }>(
    gw.databaseUrl,
    `SELECT data FROM paygate_sim.sim_objects WHERE provider = 'card_psp' AND kind = 'checkout' AND id = $1`,
    [p.ref],
  );
  const order = checkout?.data.order;
  assert.ok(checkout && order);
  assert.equal(order.refunded_amount, 1999);
  // The provider's order.refunded for that order, as it would have sent it.
  const body = JSON.stringify({
    type: 'order.refunded',
    timestamp: new Date().toISOString(),
    data: {
      id: order.id,
      status: 'refunded',
      paid: true,
      billing_reason: order.billing_reason,
      subtotal_amount: order.amount,
      discount_amount: 0,
      net_amount: order.amount,
      tax_amount: 0,
      total_amount: order.amount,
      refunded_amount: order.refunded_amount,
      currency: checkout.data.currency,
      checkout_id: p.ref,
      subscription_id: null,
      metadata: checkout.data.metadata,
    },
  });
  const signer = cardPspTestSigner(gw.running.gw.config.masterKey);
  const res = await postCardPspEvent(gw.url, signer, body);
  assert.equal(res.text, '{"acknowledged":true}');
  assert.equal(await status(p.id), 'initiated');
  const refunds = await sql(
    gw.databaseUrl,
    'SELECT status, amount_minor, provider_ref FROM refunds WHERE payment_id = $1',
    [p.id],
  );
  assert.deepEqual(refunds, [{ status: 'succeeded', amount_minor: 1999, provider_ref: order.id }]);
  const [e, ...rest] = await exceptionsOf(p.id);
  assert.deepEqual(rest, []);
  assert.equal(e?.kind, 'unrequested_refund');
  assert.equal(e?.resolution, 'manual');
  assert.equal(e?.provider_ref, order.id);
  assert.equal(e?.amount_minor, 1999);
  // The app is told of the refund.
  const events = await sql<{ event_type: string }>(
    gw.databaseUrl,
    'SELECT event_type FROM outbound_events WHERE payment_id = $1 ORDER BY created_at',
    [p.id],
  );
  assert.deepEqual(
    events.map((x) => x.event_type),
    ['refund.succeeded'],
  );
  assert.equal((await postCardPspEvent(gw.url, signer, body)).text, ALREADY);
  assert.equal((await exceptionsOf(p.id)).length, 1);
});

test('idr_psp: a refund at the provider of a payment whose settlement was never notified finalizes it, then records the refund', async () => {
  const created = await gw.v1(
    app,
    'POST',
    '/v1/payments',
    paymentBody({
      currency: 'IDR',
      method: 'qris',
      amount_minor: 6000,
      metadata: { test_scenario: 'lost_webhook' },
    }),
  );
  assert.equal(created.status, 201, created.text);
  const id = created.json<{ payment_id: string }>().payment_id;
  const ref = (await gw.v1(app, 'GET', `/v1/payments/${id}`)).json<{ provider_ref: string }>()
    .provider_ref;
  const serverKey = idrTestServerKey(gw.running.gw.config.masterKey);
  // The buyer pays and the operator refunds in the provider's dashboard; nothing is notified.
  await silentAction(gw, 'idr', ref, 'pay');
  const dash = await idrProviderRefund(gw, serverKey, id, { refund_key: 'dashboard-6000' });
  assert.equal(dash.body.status_code, '200', JSON.stringify(dash.body));
  const body = idrNotification(serverKey, {
    orderId: id,
    status: 'refund',
    grossAmount: 6000,
    transactionId: ref,
  });
  const res = await postWebhook(gw.url, 'idr_psp', body);
  assert.equal(res.text, '{"acknowledged":true}');
  // The provider's answer says paid, then refunded: both are on record, in that order.
  assert.equal(await status(id), 'succeeded');
  const [archived] = await sql<{ outcome: string }>(
    gw.databaseUrl,
    'SELECT outcome FROM inbound_events WHERE payment_id = $1 ORDER BY id',
    [id],
  );
  assert.equal(archived?.outcome, 'finalized_succeeded+refund_succeeded');
  const refunds = await sql(
    gw.databaseUrl,
    'SELECT status, amount_minor, provider_ref, additional FROM refunds WHERE payment_id = $1',
    [id],
  );
  assert.deepEqual(refunds, [
    { status: 'succeeded', amount_minor: 6000, provider_ref: 'dashboard-6000', additional: false },
  ]);
  // A refund of a paid payment: no exception.
  assert.deepEqual(await exceptionsOf(id), []);
  const events = await sql<{ event_type: string }>(
    gw.databaseUrl,
    'SELECT event_type FROM outbound_events WHERE payment_id = $1 ORDER BY created_at',
    [id],
  );
  assert.deepEqual(
    events.map((x) => x.event_type),
    ['payment.succeeded', 'refund.succeeded'],
  );
  assert.equal((await postWebhook(gw.url, 'idr_psp', body)).text, ALREADY);
  assert.equal(
    (await sql(gw.databaseUrl, 'SELECT id FROM refunds WHERE payment_id = $1', [id])).length,
    1,
  );
});

test("card_psp: the operator's refund at the provider answers the late charge", async () => {
  const p = await cardPayment();
  await gw.admin('POST', `/admin/payments/${p.id}/cancel`);
  await act(gw, p.ref, 'pay');
  const refunded = await act(gw, p.ref, 'refund');
  assert.deepEqual(refunded, { gateway_status: 200, gateway_body: '{"acknowledged":true}' });
  assert.equal(await status(p.id), 'canceled');
  const [e, ...rest] = await exceptionsOf(p.id);
  assert.deepEqual(rest, []);
  assert.equal(e?.kind, 'paid_after_cancel');
  assert.equal(e?.resolution, 'refunded');
  assert.equal(e?.note, 'refunded at the provider');
});
