import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AppWithSecrets, CreatedEndpoint, EndpointView } from '../../helpers/contract.js';
import { assertError, assertStatus, RFC3339_UTC, sql } from '../../helpers/core.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { paidPayment } from '../../helpers/payments.js';
import { Receiver, type Received } from '../../helpers/receiver.js';
import { verifyWebhook } from '../../../sdk/src/index.js';

// Webhook endpoints (docs/api.md#webhook-endpoints): several receivers over real HTTP, each
// with its own filter, secret and queue; the app's webhook_url stays the default endpoint.

let gw: TestGateway;
const receivers: Receiver[] = [];

before(async () => {
  gw = await startTestGateway({
    DELIVERY_MAX_ATTEMPTS: '3',
    DELIVERY_BASE_DELAY_MS: '50',
    DELIVERY_MAX_DELAY_MS: '100',
    // Long enough for the isolation test's slow endpoint, held until the healthy one is done.
    DELIVERY_TIMEOUT_MS: '30000',
    DELIVERY_ENDPOINT_CONCURRENCY: '4',
  });
});
after(async () => {
  for (const r of receivers) await r.stop();
  await gw?.stop();
});

async function receiver(): Promise<Receiver> {
  const r = new Receiver();
  await r.start();
  receivers.push(r);
  return r;
}

async function appWithDefault(): Promise<{ app: AppWithSecrets; main: Receiver }> {
  const main = await receiver();
  const app = await gw.createApp({ webhook_url: main.url });
  main.secret = app.webhook_secret;
  return { app, main };
}

async function addEndpoint(
  app: AppWithSecrets,
  r: Receiver,
  eventTypes: string[],
  description?: string,
): Promise<CreatedEndpoint> {
  const res = await gw.admin('POST', `/admin/apps/${app.app_id}/endpoints`, {
    url: r.url,
    event_types: eventTypes,
    ...(description === undefined ? {} : { description }),
  });
  assertStatus(res, 201);
  const ep = res.json<CreatedEndpoint>();
  r.secret = ep.secret;
  return ep;
}

const kinds = (r: Receiver) =>
  r.received.map((x) => (JSON.parse(x.body) as { event: string }).event).sort();

async function refund(app: AppWithSecrets, paymentId: string): Promise<void> {
  const res = await gw.v1(app, 'POST', '/v1/refunds', { payment_id: paymentId });
  assert.equal(res.status, 201, res.text);
}

describe('CRUD', () => {
  test('create shows the secret once; list, patch and delete (disable, kept) answer the endpoint', async () => {
    const { app } = await appWithDefault();
    const r = await receiver();
    const ep = await addEndpoint(app, r, ['refund.succeeded', 'refund.failed'], 'Finance');
    assert.deepEqual(Object.keys(ep), [
      'endpoint_id',
      'app_id',
      'url',
      'event_types',
      'description',
      'secret',
      'disabled',
      'created_at',
    ]);
    assert.match(ep.endpoint_id, /^ep_[0-9a-f]{24}$/);
    assert.match(ep.secret, /^whsec_[0-9a-f]{64}$/);
    assert.equal(ep.app_id, app.app_id);
    assert.deepEqual(ep.event_types, ['refund.succeeded', 'refund.failed']);
    assert.equal(ep.description, 'Finance');
    assert.equal(ep.disabled, false);
    assert.match(ep.created_at, RFC3339_UTC);

    const listed = (await gw.admin('GET', `/admin/apps/${app.app_id}/endpoints`)).json<{
      endpoints: EndpointView[];
    }>().endpoints;
    assert.equal(listed.length, 1);
    assert.equal(listed[0]?.endpoint_id, ep.endpoint_id);
    assert.ok(!JSON.stringify(listed).includes(ep.secret), 'the list never shows the secret');
    // Sealed at rest.
    const rows = await sql(gw.databaseUrl, 'SELECT * FROM webhook_endpoints WHERE id = $1', [
      ep.endpoint_id,
    ]);
    assert.ok(!JSON.stringify(rows).includes(ep.secret));

    const path = `/admin/apps/${app.app_id}/endpoints/${ep.endpoint_id}`;
    const patched = await gw.admin('PATCH', path, { event_types: ['*'], description: 'All' });
    assertStatus(patched, 200);
    assert.deepEqual(patched.json<EndpointView>().event_types, ['*']);
    assert.equal(patched.json<EndpointView>().description, 'All');

    const deleted = await gw.admin('DELETE', path);
    assertStatus(deleted, 200);
    assert.equal(deleted.json<EndpointView>().disabled, true);
    assert.equal(deleted.json<EndpointView>().disabled_reason, 'disabled by an operator');
    const after = (await gw.admin('GET', `/admin/apps/${app.app_id}/endpoints`)).json<{
      endpoints: EndpointView[];
    }>().endpoints;
    assert.equal(after[0]?.disabled, true, 'a deleted endpoint stays listed, disabled');

    const enabled = await gw.admin('PATCH', path, { disabled: false });
    assert.equal(enabled.json<EndpointView>().disabled, false);
    assert.equal(enabled.json<EndpointView>().disabled_reason, null);

    const audit = await sql<{ action: string }>(
      gw.databaseUrl,
      `SELECT action FROM audit_log WHERE target_id = $1 ORDER BY id`,
      [ep.endpoint_id],
    );
    assert.deepEqual(
      audit.map((a) => a.action),
      ['endpoint.create', 'endpoint.update', 'endpoint.disable', 'endpoint.update'],
    );
  });

  test('errors: exact texts, nothing created', async () => {
    const { app } = await appWithDefault();
    const base = `/admin/apps/${app.app_id}/endpoints`;
    const url = 'http://127.0.0.1:9/hook';
    assertError(await gw.admin('POST', base, {}), 400, 'missing required fields: url, event_types');
    assertError(
      await gw.admin('POST', base, { url: 'ftp://x', event_types: ['*'] }),
      400,
      'url must be an absolute http(s) URL of at most 2048 characters',
    );
    assertError(
      await gw.admin('POST', base, { url, event_types: [] }),
      400,
      'event_types must be a non-empty array of event kinds, or ["*"]',
    );
    assertError(
      await gw.admin('POST', base, { url, event_types: ['payment.refunded'] }),
      400,
      'event_types may hold only payment.succeeded, payment.failed, payment.canceled, subscription.canceled, subscription.revoked, refund.succeeded, refund.failed, dispute.opened, dispute.closed, *',
    );
    assertError(
      await gw.admin('POST', base, { url, event_types: ['*', 'refund.failed'] }),
      400,
      'event_types ["*"] cannot be combined with other kinds',
    );
    assertError(
      await gw.admin('POST', base, { url, event_types: ['*'], description: 'x'.repeat(501) }),
      400,
      'description must be at most 500 characters',
    );
    assertError(await gw.admin('POST', base, [1]), 400, 'body must be a JSON object');
    assertError(
      await gw.admin('POST', '/admin/apps/app_000000000000000000000000/endpoints', {
        url,
        event_types: ['*'],
      }),
      404,
      'app not found',
    );
    const one = `${base}/ep_000000000000000000000000`;
    assertError(await gw.admin('PATCH', one, { description: 'x' }), 404, 'endpoint not found');
    assertError(await gw.admin('DELETE', one), 404, 'endpoint not found');
    assertError(await gw.admin('GET', `${one}/stats`), 404, 'endpoint not found');
    assertError(
      await gw.admin('POST', `${one}/recover`, { since: '2025-01-01' }),
      404,
      'endpoint not found',
    );
    assertError(await gw.admin('POST', `${one}/rotate-secret`), 404, 'endpoint not found');
    const ep = await addEndpoint(app, await receiver(), ['*']);
    const path = `${base}/${ep.endpoint_id}`;
    assertError(
      await gw.admin('PATCH', path, { disabled: 'yes' }),
      400,
      'disabled must be a boolean',
    );
    assertError(
      await gw.admin('POST', `${path}/rotate-secret`, { grace_hours: 169 }),
      400,
      'grace_hours must be an integer from 0 to 168',
    );
    assertError(
      await gw.admin('GET', `${path}/stats?days=0`),
      400,
      'days must be an integer from 1 to 90',
    );
    // Another app's endpoint is not found under this app.
    const other = await appWithDefault();
    assertError(
      await gw.admin('PATCH', `/admin/apps/${other.app.app_id}/endpoints/${ep.endpoint_id}`, {}),
      404,
      'endpoint not found',
    );
    const n = await sql<{ n: number }>(
      gw.databaseUrl,
      'SELECT count(*)::int AS n FROM webhook_endpoints WHERE app_id = $1',
      [app.app_id],
    );
    assert.equal(n[0]?.n, 1);
  });

  test('a live app: every endpoint must reach only public addresses, as its webhook_url', async () => {
    const live = await gw.createApp({ name: 'Live', mode: 'live' });
    assertError(
      await gw.admin('POST', `/admin/apps/${live.app_id}/endpoints`, {
        url: 'http://127.0.0.1:8080/hook',
        event_types: ['*'],
      }),
      400,
      'url must be a public address',
    );
    assertError(
      await gw.admin('POST', `/admin/apps/${live.app_id}/endpoints`, {
        url: 'http://10.1.2.3/hook',
        event_types: ['*'],
      }),
      400,
      'url must be a public address',
    );
  });
});

describe('delivery', () => {
  test('filters: each endpoint gets its kinds, signed with its own secret; webhook_url gets the spec kinds', async () => {
    const { app, main } = await appWithDefault();
    const orders = await receiver();
    const finance = await receiver();
    const all = await receiver();
    const epOrders = await addEndpoint(app, orders, ['payment.succeeded']);
    const epFinance = await addEndpoint(app, finance, ['refund.succeeded', 'refund.failed']);
    await addEndpoint(app, all, ['*']);

    const p = await paidPayment(gw, app, 'idr', 30000);
    await refund(app, p.id);
    await main.waitFor(2);
    await orders.waitFor(1);
    await finance.waitFor(1);
    await all.waitFor(2);
    // Nothing more arrives (a filter that leaked would show up by now).
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(kinds(main), ['payment.succeeded', 'refund.succeeded']);
    assert.deepEqual(kinds(orders), ['payment.succeeded']);
    assert.deepEqual(kinds(finance), ['refund.succeeded']);
    assert.deepEqual(kinds(all), ['payment.succeeded', 'refund.succeeded']);
    for (const r of [main, orders, finance, all]) {
      assert.ok(
        r.received.every((x) => x.signatureValid),
        'each signed with its own secret',
      );
    }
    // The same event (same id and bytes) to every endpoint.
    const id = (r: Receiver, k: string) =>
      r.received.find((x) => x.body.includes(`"event":"${k}"`))?.headers['x-pay-event-id'];
    assert.equal(id(orders, 'payment.succeeded'), id(main, 'payment.succeeded'));
    assert.equal(id(all, 'refund.succeeded'), id(finance, 'refund.succeeded'));
    assert.ok(epOrders.secret !== epFinance.secret && epOrders.secret !== app.webhook_secret);

    // The admin payment detail names each delivery's endpoint (null: webhook_url).
    const detail = await eventually(async () => {
      const d = (await gw.admin('GET', `/admin/payments/${p.id}`)).json<{
        deliveries: { endpoint_id: string | null; status: string; event_type: string }[];
      }>();
      return d.deliveries.every((x) => x.status === 'delivered') ? d : null;
    });
    const targets = detail.deliveries
      .map((d) => `${d.event_type}:${d.endpoint_id ?? 'default'}`)
      .sort();
    assert.equal(targets.length, 6);
    assert.ok(targets.includes('payment.succeeded:default'));
    assert.ok(targets.includes(`payment.succeeded:${epOrders.endpoint_id}`));
    assert.ok(targets.includes(`refund.succeeded:${epFinance.endpoint_id}`));
  });

  test('isolation: one endpoint answering 500 and one slow never delay a healthy one; each keeps its own attempts and answers', async () => {
    const { app, main } = await appWithDefault();
    const down = await receiver();
    const slow = await receiver();
    const healthy = await receiver();
    down.behaviour = () => ({ status: 500, body: 'database unavailable' });
    // The slow endpoint answers nothing until the healthy one has everything: whatever the
    // machine's speed, the healthy deliveries cannot have waited for it.
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    slow.behaviour = () => ({ status: 200, heldUntil: released, delayMs: 2500, body: 'slow ok' });
    healthy.behaviour = () => ({ status: 200, body: 'thanks' });
    const epDown = await addEndpoint(app, down, ['*']);
    const epSlow = await addEndpoint(app, slow, ['*']);
    const epHealthy = await addEndpoint(app, healthy, ['*']);

    // Twelve events at once: more than the slow endpoint may hold in flight (4).
    const payments = await Promise.all(
      Array.from({ length: 12 }, () => paidPayment(gw, app, 'idr', 1000)),
    );
    await healthy.waitFor(12);
    await main.waitFor(12);
    // The slow receiver holds its in-flight requests unanswered: at most its cap reached it.
    assert.ok(
      slow.received.length <= 4,
      `slow endpoint got ${slow.received.length} requests before the healthy one finished`,
    );
    release();
    await slow.waitFor(12, 30_000);

    // The down endpoint's deliveries die after their attempts; the others are delivered.
    const byEndpoint = async (epId: string) =>
      sql<{ status: string; attempts: number; last_response_body: string | null }>(
        gw.databaseUrl,
        `SELECT status, attempts, last_response_body FROM deliveries WHERE endpoint_id = $1`,
        [epId],
      );
    await eventually(async () =>
      (await byEndpoint(epDown.endpoint_id)).every((d) => d.status === 'dead'),
    );
    const deadRows = await byEndpoint(epDown.endpoint_id);
    assert.equal(deadRows.length, 12);
    assert.ok(
      deadRows.every((d) => d.attempts === 3 && d.last_response_body === 'database unavailable'),
    );
    await eventually(async () =>
      (await byEndpoint(epSlow.endpoint_id)).every((d) => d.status === 'delivered'),
    );
    assert.ok((await byEndpoint(epHealthy.endpoint_id)).every((d) => d.status === 'delivered'));

    // The payment detail: each attempt with its status, duration and the receiver's answer.
    const detail = (await gw.admin('GET', `/admin/payments/${payments[0]?.id}`)).json<{
      deliveries: {
        endpoint_id: string | null;
        attempts: { status_code: number; response_body: string; duration_ms: number }[];
      }[];
    }>();
    const of = (id: string) => detail.deliveries.find((d) => d.endpoint_id === id);
    assert.deepEqual(
      of(epDown.endpoint_id)?.attempts.map((a) => [a.status_code, a.response_body]),
      [
        [500, 'database unavailable'],
        [500, 'database unavailable'],
        [500, 'database unavailable'],
      ],
    );
    assert.equal(of(epHealthy.endpoint_id)?.attempts[0]?.response_body, 'thanks');
    const slowAttempt = of(epSlow.endpoint_id)?.attempts[0];
    assert.equal(slowAttempt?.response_body, 'slow ok');
    assert.ok((slowAttempt?.duration_ms ?? 0) >= 2400, 'the duration is the receiver’s');

    // Stats per endpoint: attempts, success rate, latency percentiles, last answers.
    const stats = await gw.admin(
      'GET',
      `/admin/apps/${app.app_id}/endpoints/${epDown.endpoint_id}/stats?days=1`,
    );
    assertStatus(stats, 200);
    const s = stats.json<{
      attempts: number;
      delivered: number;
      failed: number;
      success_rate: number;
      latency_ms: { p50: number; p99: number };
      recent_attempts: { status_code: number; response_body: string }[];
    }>();
    assert.equal(s.attempts, 36);
    assert.equal(s.delivered, 0);
    assert.equal(s.failed, 36);
    assert.equal(s.success_rate, 0);
    assert.equal(s.recent_attempts.length, 20);
    assert.equal(s.recent_attempts[0]?.response_body, 'database unavailable');
    const slowStats = (
      await gw.admin('GET', `/admin/apps/${app.app_id}/endpoints/${epSlow.endpoint_id}/stats`)
    ).json<{ success_rate: number; latency_ms: { p50: number; p99: number } }>();
    assert.equal(slowStats.success_rate, 1);
    assert.ok(
      slowStats.latency_ms.p50 >= 2400 && slowStats.latency_ms.p99 >= slowStats.latency_ms.p50,
    );
  });

  test('dispute events go to the endpoints subscribed to them, never to webhook_url', async () => {
    const { app, main } = await appWithDefault();
    const disputes = await receiver();
    const payments = await receiver();
    await addEndpoint(app, disputes, ['dispute.opened', 'dispute.closed']);
    await addEndpoint(app, payments, ['payment.succeeded']);
    const p = await paidPayment(gw, app, 'idr', 50000);
    const res = await fetch(`${gw.url}/sim/idr_psp/payments/${p.providerRef}/chargeback`, {
      method: 'POST',
    });
    assert.equal(res.status, 200, await res.text());
    await disputes.waitFor(2);
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(kinds(disputes), ['dispute.closed', 'dispute.opened']);
    assert.ok(disputes.received.every((x) => x.signatureValid));
    const opened = JSON.parse(
      disputes.received.find((x) => x.body.includes('dispute.opened'))?.body ?? '{}',
    ) as Record<string, unknown>;
    assert.equal(opened.payment_id, p.id);
    assert.equal(opened.amount, 50000);
    // The SDK verifies them for an endpoint that asks for disputes; by default they are unknown.
    const got = disputes.received[0] as Received;
    const secret = disputes.secret;
    assert.match(
      verifyWebhook(got.body, got.headers, secret, { allowDisputes: true }).event,
      /^dispute\./,
    );
    assert.throws(
      () => verifyWebhook(got.body, got.headers, secret),
      /unknown event type: dispute\./,
    );
    assert.deepEqual(kinds(main), ['payment.succeeded']);
    assert.deepEqual(kinds(payments), ['payment.succeeded']);
  });

  test('a disabled endpoint gets nothing new; its history stays', async () => {
    const { app, main } = await appWithDefault();
    const r = await receiver();
    const ep = await addEndpoint(app, r, ['*']);
    await paidPayment(gw, app, 'idr', 1000);
    await r.waitFor(1);
    await gw.admin('DELETE', `/admin/apps/${app.app_id}/endpoints/${ep.endpoint_id}`);
    await paidPayment(gw, app, 'idr', 1000);
    await main.waitFor(2);
    await new Promise((x) => setTimeout(x, 300));
    assert.equal(r.received.length, 1);
    const kept = await sql<{ n: number }>(
      gw.databaseUrl,
      `SELECT count(*)::int AS n FROM deliveries d JOIN delivery_attempts a ON a.delivery_id = d.id
       WHERE d.endpoint_id = $1`,
      [ep.endpoint_id],
    );
    assert.equal(kept[0]?.n, 1);
  });
});
