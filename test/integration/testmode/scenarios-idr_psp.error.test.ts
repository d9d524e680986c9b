/**
 * Provider faults on demand (docs/testing.md): a test-mode payment names a test_scenario in
 * its metadata and the idr_psp simulator misbehaves the way real providers do. Each test
 * drives one scenario through the public API and checks what an app relies on: one terminal
 * state, one outbound event per transition, a stuck payment resolved by status sync, and no
 * second payment or refund at the provider.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { UNKNOWN_TEST_SCENARIO } from '../../helpers/state.js';
import { serviceDeps } from '../../../src/gateway.js';
import { basicAuth } from '../../helpers/drivers/idr_psp.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { retryUnansweredRefunds } from '../../helpers/jobs.js';
import { FAULT_DELAY_MS, simulatorEndpoint } from '../../helpers/drivers/sim.js';
import { assertError, assertStatus, count, sql } from '../../helpers/core.js';
import { startWithReceiver, type GatewayWithReceiver } from '../../helpers/gateway.js';
import { eventually } from '../../helpers/eventually.js';
import { PROVIDER_TIMEOUT_MS, ScenarioProbe, scenarioGateway } from '../../helpers/scenarios.js';
import { reconcileOnceDue } from '../../helpers/clock.js';

const setup = scenarioGateway('Scenario shop');

let nextAmount = 41_000;

function body(scenario: string | number | null, over: Record<string, unknown> = {}) {
  return {
    external_user_id: 'buyer-scenario',
    email: 'buyer@example.com',
    amount_minor: nextAmount++,
    currency: 'IDR',
    method: 'qris',
    return_url: 'https://shop.example/back',
    metadata: { order: 'O-7', ...(scenario === null ? {} : { test_scenario: scenario }) },
    ...over,
  };
}

interface Created {
  id: string;
  ref: string;
  amount: number;
}

const probe = new ScenarioProbe(() => setup);

async function create(scenario: string, app: AppWithSecrets = setup.app): Promise<Created> {
  const b = body(scenario);
  return { ...(await probe.create(b, app)), amount: b.amount_minor };
}
const act = (ref: string, action: string) => probe.act('idr_psp', ref, action);
const payment = (id: string, app?: AppWithSecrets) => probe.payment(id, app);
const expectDelivered = (id: string, events: string[], app?: AppWithSecrets) =>
  probe.expectDelivered(id, events, app);

/** The transaction_status of each notification the gateway archived, oldest first. */
async function inbound(paymentId: string): Promise<string[]> {
  const bodies = await probe.inbound<{ transaction_status: string }>(paymentId);
  return bodies.map((b) => b.transaction_status);
}

/** Provider transactions of this amount: the provider's count of the payment. */
async function providerTransactions(amount: number) {
  return sql<{ data: { order_id: string; refunds?: { status: string }[] } }>(
    setup.gw.databaseUrl,
    `SELECT data FROM paygate_sim.sim_objects WHERE provider = 'idr_psp' AND kind = 'transaction'
       AND (data->>'gross_amount')::bigint = $1`,
    [amount],
  );
}

async function providerStatus(orderId: string) {
  const key = simulatorEndpoint('idr_psp', setup.gw.config.masterKey, '').credentials.serverKey;
  const res = await fetch(`${setup.gw.url}/sim/idr_psp/v2/${orderId}/status`, {
    headers: { authorization: basicAuth(key ?? ''), accept: 'application/json' },
  });
  assert.equal(res.status, 200);
  return (await res.json()) as { transaction_status: string; custom_field1?: string };
}

describe('metadata.test_scenario on POST /v1/payments', () => {
  test('an unknown value in test mode: 400 with the valid ones, nothing created', async () => {
    const app = await setup.gw.createApp({ name: 'Typo shop' });
    for (const bad of ['duplicate-webhook', 'DUPLICATE_WEBHOOK', '', 42]) {
      const res = await setup.gw.v1(app, 'POST', '/v1/payments', body(bad));
      assertError(res, 400, UNKNOWN_TEST_SCENARIO);
    }
    assert.equal(
      UNKNOWN_TEST_SCENARIO,
      'metadata.test_scenario must be one of: duplicate_webhook, delayed_webhook, out_of_order, lost_webhook, registration_timeout, registration_5xx, refund_timeout, refund_pending, reconciliation_drift',
    );
    assert.equal(await count(setup.gw.databaseUrl, 'payments WHERE app_id = $1', [app.app_id]), 0);
  });

  test('a provider whose simulator does not play it: 400', async () => {
    const res = await setup.gw.v1(setup.app, 'POST', '/v1/payments', {
      ...body('refund_pending', { currency: 'USD', method: 'card_psp' }),
      metadata: { card_psp_product_id: 'prod_basic', test_scenario: 'refund_pending' },
    });
    assertError(
      res,
      400,
      'metadata.test_scenario refund_pending is simulated for idr_psp, wallet_psp payments only',
    );
  });

  test('a known value is kept as metadata and reaches the provider as custom_field1', async () => {
    const p = await create('duplicate_webhook');
    assert.deepEqual((await payment(p.id)).metadata, {
      order: 'O-7',
      test_scenario: 'duplicate_webhook',
    });
    assert.equal((await providerStatus(p.id)).custom_field1, 'duplicate_webhook');
    // Without a scenario the provider gets no custom_field1.
    const plain = await setup.gw.v1(setup.app, 'POST', '/v1/payments', body(null));
    assertStatus(plain, 201);
    const id = plain.json<{ payment_id: string }>().payment_id;
    assert.equal((await providerStatus(id)).custom_field1, undefined);
    // The admin list names the scenario (the dashboard's badge), null without one.
    for (const [pid, expected] of [
      [p.id, 'duplicate_webhook'],
      [id, null],
    ] as const) {
      const list = await setup.gw.admin('GET', `/admin/payments?q=${pid}`);
      assertStatus(list, 200);
      const rows = list.json<{ payments: { id: string; test_scenario: string | null }[] }>();
      assert.deepEqual(
        rows.payments.map((r) => [r.id, r.test_scenario]),
        [[pid, expected]],
      );
    }
  });

  test('outside test mode it is ordinary metadata: no 400 for an unknown value', async () => {
    const app = await setup.gw.createApp({ name: 'Sandbox shop', mode: 'sandbox' });
    const res = await setup.gw.v1(app, 'POST', '/v1/payments', body('no_such_scenario'));
    // Routing and validation pass; the sandbox provider is simply not configured here.
    assertError(res, 502, 'provider checkout failed: idr_psp is not configured for sandbox mode');
  });
});

describe('notification scenarios', () => {
  test('duplicate_webhook: every notification twice; one succeeded state, one payment.succeeded', async () => {
    const p = await create('duplicate_webhook');
    const r = await act(p.ref, 'pay');
    // The action reports the gateway's answer to the second copy.
    assert.equal(r.gateway_status, 200);
    assert.deepEqual(JSON.parse(r.gateway_body), {
      acknowledged: true,
      action: 'already_finalized',
    });
    assert.deepEqual(await inbound(p.id), ['settlement', 'settlement']);
    assert.equal((await payment(p.id)).status, 'succeeded');
    await expectDelivered(p.id, ['payment.succeeded']);
  });

  test('delayed_webhook: the action answers at once, the notification follows after the delay', async () => {
    const p = await create('delayed_webhook');
    const r = await act(p.ref, 'pay');
    assert.deepEqual(r, {
      gateway_status: 0,
      gateway_body: `notification delayed by ${FAULT_DELAY_MS} ms (test_scenario delayed_webhook)`,
    });
    // Meanwhile the payment is initiated, as an app polling it would see.
    assert.equal((await payment(p.id)).status, 'initiated');
    assert.deepEqual(await inbound(p.id), []);
    assert.equal((await providerStatus(p.id)).transaction_status, 'settlement');
    await eventually(async () => (await payment(p.id)).status === 'succeeded');
    // The archive names the payment once the gateway has recorded the outcome.
    await eventually(async () => (await inbound(p.id)).length > 0);
    assert.deepEqual(await inbound(p.id), ['settlement']);
    await expectDelivered(p.id, ['payment.succeeded']);
  });

  test('out_of_order: pending arrives after settlement; the payment stays succeeded', async () => {
    const p = await create('out_of_order');
    const r = await act(p.ref, 'pay');
    assert.equal(r.gateway_status, 200);
    assert.equal(JSON.parse(r.gateway_body).acknowledged, true);
    assert.deepEqual(await inbound(p.id), ['settlement', 'pending']);
    assert.equal((await payment(p.id)).status, 'succeeded');
    await expectDelivered(p.id, ['payment.succeeded']);
  });

  test('out_of_order on expiry: pending after expire; the payment stays failed', async () => {
    const p = await create('out_of_order');
    await act(p.ref, 'expire');
    assert.deepEqual(await inbound(p.id), ['expire', 'pending']);
    const view = await payment(p.id);
    assert.equal(view.status, 'failed');
    assert.equal(view.last_error, 'Transaction expired: QR not paid within 20 minutes');
    await expectDelivered(p.id, ['payment.failed']);
  });

  test('lost_webhook: nothing arrives; an operator sync finalizes it once', async () => {
    const p = await create('lost_webhook');
    assert.deepEqual(await act(p.ref, 'pay'), {
      gateway_status: 0,
      gateway_body: 'notification not sent (test_scenario lost_webhook)',
    });
    assert.equal((await payment(p.id)).status, 'initiated');
    assert.deepEqual(await inbound(p.id), []);
    // The provider's status API knows better.
    assert.equal((await providerStatus(p.id)).transaction_status, 'settlement');

    const synced = await setup.gw.admin('POST', `/admin/payments/${p.id}/sync`);
    assertStatus(synced, 200);
    assert.equal(synced.json<{ status: string }>().status, 'succeeded');
    const again = await setup.gw.admin('POST', `/admin/payments/${p.id}/sync`);
    assertStatus(again, 200);
    assert.equal((await payment(p.id)).status, 'succeeded');
    await expectDelivered(p.id, ['payment.succeeded']);
  });

  test('lost_webhook: the reconciler finalizes it once its deadline passes', async () => {
    const p = await create('lost_webhook');
    await act(p.ref, 'fail');
    assert.equal((await payment(p.id)).status, 'initiated');
    await reconcileOnceDue(setup.gw.running.gw, p.id);
    const view = await payment(p.id);
    assert.equal(view.status, 'failed');
    assert.equal(view.last_error, 'Transaction denied by the issuer (simulated decline)');
    assert.deepEqual(await inbound(p.id), []);
    await expectDelivered(p.id, ['payment.failed']);
  });
});

describe('registration scenarios: a retry with the same Idempotency-Key makes one payment', () => {
  for (const [scenario, error] of [
    ['registration_timeout', `idr_psp did not answer within ${PROVIDER_TIMEOUT_MS} ms`],
    [
      'registration_5xx',
      'idr_psp answered 500: An unexpected error occurred on the provider side (test_scenario registration_5xx)',
    ],
  ] as const) {
    test(scenario, async () => {
      const app = await setup.gw.createApp({
        name: `${scenario} shop`,
        webhook_url: setup.receiver.url,
      });
      const key = randomUUID();
      const b = body(scenario);
      const first = await setup.gw.v1(app, 'POST', '/v1/payments', b, { 'Idempotency-Key': key });
      // D15: the outcome is unknown, so 504 (not the 502 of a refusal) with the same text.
      assertError(first, 504, `provider checkout failed: ${error}`);
      // The provider holds the registration; the gateway holds an initiated payment without
      // its reference.
      const held = await providerTransactions(b.amount_minor);
      assert.equal(held.length, 1);
      const rows = await sql<{ id: string; status: string; provider_ref: string | null }>(
        setup.gw.databaseUrl,
        `SELECT id, status, provider_ref FROM payments WHERE app_id = $1`,
        [app.app_id],
      );
      assert.deepEqual(rows, [
        { id: held[0]?.data.order_id, status: 'initiated', provider_ref: null },
      ]);

      const retry = await setup.gw.v1(app, 'POST', '/v1/payments', b, { 'Idempotency-Key': key });
      assertStatus(retry, 201);
      const created = retry.json<{ payment_id: string; status: string; checkout_url: string }>();
      assert.equal(created.payment_id, rows[0]?.id, 'the same payment');
      assert.equal(created.status, 'initiated');
      const replay = await setup.gw.v1(app, 'POST', '/v1/payments', b, { 'Idempotency-Key': key });
      assert.equal(replay.text, retry.text);

      assert.equal((await providerTransactions(b.amount_minor)).length, 1, 'one at the provider');
      assert.equal(
        await count(setup.gw.databaseUrl, 'payments WHERE app_id = $1', [app.app_id]),
        1,
      );
      const view = await payment(created.payment_id, app);
      assert.ok(created.checkout_url.endsWith(`/sim/idr_psp/snap/v2/vtweb/${view.provider_ref}`));

      // The buyer pays the one registration; one state, one event.
      await act(view.provider_ref, 'pay');
      assert.equal((await payment(created.payment_id, app)).status, 'succeeded');
      await expectDelivered(created.payment_id, ['payment.succeeded'], app);
    });
  }
});

describe('refund scenarios', () => {
  async function paid(scenario: string): Promise<Created> {
    const p = await create(scenario);
    const r = await act(p.ref, 'pay');
    assert.equal(r.gateway_status, 200, r.gateway_body);
    return p;
  }

  async function providerRefunds(amount: number) {
    const [tx] = await providerTransactions(amount);
    return tx?.data.refunds ?? [];
  }

  test('refund_timeout: the answer is lost; the gateway resends the same refund later, one refund at the provider', async () => {
    const p = await paid('refund_timeout');
    const res = await setup.gw.v1(
      setup.app,
      'POST',
      '/v1/refunds',
      { payment_id: p.id, reason: 'customer asked' },
      { 'Idempotency-Key': randomUUID() },
    );
    assertError(res, 504, `refund failed: idr_psp did not answer within ${PROVIDER_TIMEOUT_MS} ms`);
    // The provider refunded; the gateway does not know yet and keeps the refund initiated.
    assert.deepEqual(
      (await providerRefunds(p.amount)).map((r) => r.status),
      ['succeeded'],
    );
    const [refund] = await sql<{ id: string; status: string; provider_ref: string | null }>(
      setup.gw.databaseUrl,
      `SELECT id, status, provider_ref FROM refunds WHERE payment_id = $1`,
      [p.id],
    );
    assert.equal(refund?.status, 'initiated');
    assert.equal(refund?.provider_ref, null);
    // A second refund request is refused while it is unresolved.
    const second = await setup.gw.v1(setup.app, 'POST', '/v1/refunds', { payment_id: p.id });
    assertError(second, 422, 'payment already has a refund');

    // Five quiet minutes later the refund reconciler sends it again under the same refund id.
    // The row is backdated: the claim is due on the database's clock, which stamped it.
    await sql(
      setup.gw.databaseUrl,
      `UPDATE refunds SET updated_at = now() - interval '6 minutes' WHERE id = $1`,
      [refund?.id],
    );
    // The gateway's own refund worker may claim it first (SKIP LOCKED): either resend counts.
    await retryUnansweredRefunds(serviceDeps(setup.gw.running.gw));
    const settled = await eventually(async () => {
      const [row] = await sql<{ status: string; provider_ref: string }>(
        setup.gw.databaseUrl,
        `SELECT status, provider_ref FROM refunds WHERE payment_id = $1`,
        [p.id],
      );
      return row?.status === 'initiated' ? undefined : row;
    }, 'the resent refund to settle');
    assert.deepEqual(settled, { status: 'succeeded', provider_ref: refund?.id });
    assert.equal((await providerRefunds(p.amount)).length, 1, 'one refund at the provider');
    await expectDelivered(p.id, ['payment.succeeded', 'refund.succeeded']);
  });

  test('refund_timeout: the app retries with the same Idempotency-Key and gets the one refund', async () => {
    const p = await paid('refund_timeout');
    const key = randomUUID();
    const req = { payment_id: p.id, amount_minor: 1000 };
    const first = await setup.gw.v1(setup.app, 'POST', '/v1/refunds', req, {
      'Idempotency-Key': key,
    });
    assertError(
      first,
      504,
      `refund failed: idr_psp did not answer within ${PROVIDER_TIMEOUT_MS} ms`,
    );
    const retry = await setup.gw.v1(setup.app, 'POST', '/v1/refunds', req, {
      'Idempotency-Key': key,
    });
    assertStatus(retry, 201);
    const refund = retry.json<{ refund_id: string; status: string; provider_ref: string }>();
    assert.equal(refund.status, 'succeeded');
    assert.equal(refund.provider_ref, refund.refund_id);
    assert.equal((await providerRefunds(p.amount)).length, 1, 'one refund at the provider');
    await expectDelivered(p.id, ['payment.succeeded', 'refund.succeeded']);
  });

  test('refund_pending: 201 initiated, then the provider notifies and the refund succeeds once', async () => {
    const p = await paid('refund_pending');
    const res = await setup.gw.v1(setup.app, 'POST', '/v1/refunds', { payment_id: p.id });
    assertStatus(res, 201);
    const refund = res.json<{ refund_id: string; status: string; provider_ref: string }>();
    assert.equal(refund.status, 'initiated');
    assert.equal(refund.provider_ref, refund.refund_id);
    assert.deepEqual(
      (await providerRefunds(p.amount)).map((r) => r.status),
      ['pending'],
    );
    await eventually(async () => {
      const [row] = await sql<{ status: string }>(
        setup.gw.databaseUrl,
        `SELECT status FROM refunds WHERE id = $1`,
        [refund.refund_id],
      );
      return row?.status === 'succeeded';
    });
    assert.deepEqual(
      (await providerRefunds(p.amount)).map((r) => r.status),
      ['succeeded'],
    );
    assert.deepEqual(await inbound(p.id), ['settlement', 'refund']);
    await expectDelivered(p.id, ['payment.succeeded', 'refund.succeeded']);
  });
});

describe('registration scenarios on the direct QR charge (IDR_PSP_DIRECT_QR)', () => {
  let direct: GatewayWithReceiver;
  before(async () => {
    direct = await startWithReceiver(
      { PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS), IDR_PSP_DIRECT_QR: 'true' },
      { name: 'Direct QR scenario shop' },
    );
  });
  after(() => direct?.stop());

  for (const [scenario, error] of [
    ['registration_timeout', `idr_psp did not answer within ${PROVIDER_TIMEOUT_MS} ms`],
    [
      'registration_5xx',
      'idr_psp answered 500: An unexpected error occurred on the provider side (test_scenario registration_5xx)',
    ],
  ] as const) {
    test(`${scenario}: the retry gets the one QR charge`, async () => {
      const key = randomUUID();
      const b = body(scenario);
      const first = await direct.gw.v1(direct.app, 'POST', '/v1/payments', b, {
        'Idempotency-Key': key,
      });
      assertError(first, 504, `provider checkout failed: ${error}`);
      const retry = await direct.gw.v1(direct.app, 'POST', '/v1/payments', b, {
        'Idempotency-Key': key,
      });
      assertStatus(retry, 201);
      const created = retry.json<{ payment_id: string; qr_string: string }>();
      const held = await sql<{ data: { order_id: string; qr_string: string } }>(
        direct.gw.databaseUrl,
        `SELECT data FROM paygate_sim.sim_objects WHERE provider = 'idr_psp' AND kind = 'transaction'
           AND (data->>'gross_amount')::bigint = $1`,
        [b.amount_minor],
      );
      assert.equal(held.length, 1, 'one charge at the provider');
      assert.equal(held[0]?.data.order_id, created.payment_id);
      assert.equal(held[0]?.data.qr_string, created.qr_string, 'the same QR');
      assert.equal(
        await count(direct.gw.databaseUrl, 'payments WHERE amount_minor = $1', [b.amount_minor]),
        1,
        'one payment at the gateway',
      );
    });
  }
});
