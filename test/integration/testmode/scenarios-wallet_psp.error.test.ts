/**
 * The notification and registration test scenarios (docs/testing.md) on wallet_psp, the
 * PayPal-like provider: the scenario travels as the order's purchase unit description. A
 * payment takes two events (the buyer's approval, on which the gateway captures, then the
 * capture's own event), and the scenario shapes both.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { FAULT_DELAY_MS } from '../../helpers/drivers/sim.js';
import { assertError, assertStatus, count, sql } from '../../helpers/core.js';
import { eventually } from '../../helpers/eventually.js';
import { PROVIDER_TIMEOUT_MS, ScenarioProbe, scenarioGateway } from '../../helpers/scenarios.js';

const setup = scenarioGateway('Wallet scenario shop');

const probe = new ScenarioProbe(() => setup);
const act = (ref: string, action: string) => probe.act('wallet_psp', ref, action);

function body(scenario: string) {
  return {
    external_user_id: 'buyer-wallet-scenario',
    email: 'wallet@example.com',
    amount_minor: 2500,
    currency: 'EUR',
    method: 'wallet_psp',
    return_url: 'https://shop.example/back',
    metadata: { order: 'W-1', test_scenario: scenario },
  };
}

const create = (scenario: string) => probe.create(body(scenario));

/** Each archived event as "<event_type>:<resource status>", oldest first. */
async function inbound(paymentId: string): Promise<string[]> {
  const bodies = await probe.inbound<{ event_type: string; resource: { status: string } }>(
    paymentId,
  );
  return bodies.map((b) => `${b.event_type}:${b.resource.status}`);
}

/** Orders the provider holds for the payment (custom_id is our payment id). */
const orders = (paymentId: string) =>
  count(
    setup.gw.databaseUrl,
    `paygate_sim.sim_objects WHERE provider = 'wallet_psp' AND kind = 'order'
       AND data->'order'->'purchase_units'->0->>'custom_id' = $1`,
    [paymentId],
  );

describe('wallet_psp notification scenarios', () => {
  test('duplicate_webhook: approval and capture events twice; one capture, one payment.succeeded', async () => {
    const p = await create('duplicate_webhook');
    await act(p.ref, 'pay');
    await eventually(async () => (await inbound(p.id)).length === 4);
    assert.deepEqual(await inbound(p.id), [
      'CHECKOUT.ORDER.APPROVED:APPROVED',
      'CHECKOUT.ORDER.APPROVED:APPROVED',
      'PAYMENT.CAPTURE.COMPLETED:COMPLETED',
      'PAYMENT.CAPTURE.COMPLETED:COMPLETED',
    ]);
    assert.equal((await probe.payment(p.id)).status, 'succeeded');
    const [order] = await sql<{ n: number }>(
      setup.gw.databaseUrl,
      `SELECT jsonb_array_length(data->'order'->'purchase_units'->0->'payments'->'captures')::int AS n
         FROM paygate_sim.sim_objects WHERE provider = 'wallet_psp' AND kind = 'order' AND id = $1`,
      [p.ref],
    );
    assert.equal(order?.n, 1, 'one capture at the provider');
    await probe.expectDelivered(p.id, ['payment.succeeded']);
  });

  test('delayed_webhook: the action answers at once; approval and capture follow late', async () => {
    const p = await create('delayed_webhook');
    assert.deepEqual(await act(p.ref, 'pay'), {
      gateway_status: 0,
      gateway_body: `notification delayed by ${FAULT_DELAY_MS} ms (test_scenario delayed_webhook)`,
    });
    assert.equal((await probe.payment(p.id)).status, 'initiated');
    await eventually(async () => (await inbound(p.id)).length === 2, 'both notifications', 20_000);
    assert.equal((await probe.payment(p.id)).status, 'succeeded');
    assert.deepEqual(await inbound(p.id), [
      'CHECKOUT.ORDER.APPROVED:APPROVED',
      'PAYMENT.CAPTURE.COMPLETED:COMPLETED',
    ]);
    await probe.expectDelivered(p.id, ['payment.succeeded']);
  });

  test('out_of_order: a stale PENDING capture after the COMPLETED one; stays succeeded', async () => {
    const p = await create('out_of_order');
    const r = await act(p.ref, 'pay');
    assert.equal(r.gateway_status, 200);
    assert.deepEqual(await inbound(p.id), [
      'CHECKOUT.ORDER.APPROVED:APPROVED',
      'PAYMENT.CAPTURE.COMPLETED:COMPLETED',
      'PAYMENT.CAPTURE.PENDING:PENDING',
    ]);
    assert.equal((await probe.payment(p.id)).status, 'succeeded');
    await probe.expectDelivered(p.id, ['payment.succeeded']);
  });

  test('lost_webhook: no event; sync captures the approved order, the next sync settles it', async () => {
    const p = await create('lost_webhook');
    assert.deepEqual(await act(p.ref, 'pay'), {
      gateway_status: 0,
      gateway_body: 'notification not sent (test_scenario lost_webhook)',
    });
    assert.equal((await probe.payment(p.id)).status, 'initiated');
    // First sync: the order is approved, so the gateway captures (its event is lost too).
    const first = await setup.gw.admin('POST', `/admin/payments/${p.id}/sync`);
    assertStatus(first, 200);
    assert.equal(first.json<{ status: string }>().status, 'initiated');
    // Second sync: the provider reports the completed capture.
    const second = await setup.gw.admin('POST', `/admin/payments/${p.id}/sync`);
    assertStatus(second, 200);
    assert.equal(second.json<{ status: string }>().status, 'succeeded');
    assert.deepEqual(await inbound(p.id), []);
    await probe.expectDelivered(p.id, ['payment.succeeded']);
  });

  test('out_of_order on a cancel: no earlier status to reorder; canceled once', async () => {
    const p = await create('out_of_order');
    await act(p.ref, 'cancel');
    assert.deepEqual(await inbound(p.id), ['CHECKOUT.ORDER.VOIDED:VOIDED']);
    assert.equal((await probe.payment(p.id)).status, 'canceled');
    await probe.expectDelivered(p.id, ['payment.canceled']);
  });
});

describe('wallet_psp registration scenarios', () => {
  for (const scenario of ['registration_timeout', 'registration_5xx'] as const) {
    test(`${scenario}: the retry with the same Idempotency-Key resumes the one order`, async () => {
      const key = randomUUID();
      const b = { ...body(scenario), external_user_id: `buyer-${scenario}` };
      const first = await setup.gw.v1(setup.app, 'POST', '/v1/payments', b, {
        'Idempotency-Key': key,
      });
      assertStatus(first, 504);
      assert.match(first.text, /^provider checkout failed: /);
      const [row] = await sql<{ id: string; status: string; provider_ref: string | null }>(
        setup.gw.databaseUrl,
        `SELECT id, status, provider_ref FROM payments WHERE external_user_id = $1`,
        [b.external_user_id],
      );
      assert.equal(row?.status, 'initiated');
      assert.equal(row?.provider_ref, null);
      assert.equal(await orders(row.id), 1, 'the provider made the order');

      const retry = await setup.gw.v1(setup.app, 'POST', '/v1/payments', b, {
        'Idempotency-Key': key,
      });
      assertStatus(retry, 201);
      assert.equal(retry.json<{ payment_id: string }>().payment_id, row.id);
      assert.equal(await orders(row.id), 1, 'still one order');
      await act((await probe.payment(row.id)).provider_ref, 'pay');
      await eventually(async () => (await probe.payment(row.id)).status === 'succeeded');
      await probe.expectDelivered(row.id, ['payment.succeeded']);
    });
  }
  test('the registration errors name the fault', async () => {
    for (const [scenario, text] of [
      ['registration_timeout', `wallet_psp timed out after ${PROVIDER_TIMEOUT_MS} ms`],
      [
        'registration_5xx',
        'An unexpected error occurred on the provider side (test_scenario registration_5xx)',
      ],
    ] as const) {
      const res = await setup.gw.v1(setup.app, 'POST', '/v1/payments', body(scenario));
      assertError(res, 504, `provider checkout failed: ${text}`);
    }
  });
});

describe('wallet_psp refund scenarios', () => {
  async function paid(scenario: string) {
    const p = await create(scenario);
    await act(p.ref, 'pay');
    assert.equal((await probe.payment(p.id)).status, 'succeeded');
    return p;
  }

  /** The capture's refunds at the provider. */
  async function providerRefunds(orderId: string): Promise<string[]> {
    const rows = await sql<{ data: { refunds: { refund: { status: string } }[] } }>(
      setup.gw.databaseUrl,
      `SELECT data FROM paygate_sim.sim_objects WHERE provider = 'wallet_psp' AND kind = 'capture_refunds'
         AND data->>'orderId' = $1`,
      [orderId],
    );
    return (rows[0]?.data.refunds ?? []).map((r) => r.refund.status);
  }

  async function refundRow(paymentId: string) {
    const [row] = await sql<{ id: string; status: string; provider_ref: string | null }>(
      setup.gw.databaseUrl,
      `SELECT id, status, provider_ref FROM refunds WHERE payment_id = $1`,
      [paymentId],
    );
    return row;
  }

  test('refund_timeout: the answer is lost, the provider event settles the one refund; a retry returns it', async () => {
    const p = await paid('refund_timeout');
    const key = randomUUID();
    const req = { payment_id: p.id, reason: 'customer asked' };
    const first = await setup.gw.v1(setup.app, 'POST', '/v1/refunds', req, {
      'Idempotency-Key': key,
    });
    assertError(first, 504, `refund failed: wallet_psp timed out after ${PROVIDER_TIMEOUT_MS} ms`);
    assert.deepEqual(await providerRefunds(p.ref), ['COMPLETED']);
    await eventually(async () => (await refundRow(p.id))?.status === 'succeeded');
    const retry = await setup.gw.v1(setup.app, 'POST', '/v1/refunds', req, {
      'Idempotency-Key': key,
    });
    assertStatus(retry, 201);
    const refund = retry.json<{ refund_id: string; status: string }>();
    assert.equal(refund.refund_id, (await refundRow(p.id))?.id);
    assert.equal(refund.status, 'succeeded');
    assert.deepEqual(await providerRefunds(p.ref), ['COMPLETED'], 'one refund at the provider');
    await probe.expectDelivered(p.id, ['payment.succeeded', 'refund.succeeded']);
  });

  test('refund_pending: 201 initiated, settled later by the provider event', async () => {
    const p = await paid('refund_pending');
    const res = await setup.gw.v1(setup.app, 'POST', '/v1/refunds', { payment_id: p.id });
    assertStatus(res, 201);
    const refund = res.json<{ refund_id: string; status: string }>();
    assert.equal(refund.status, 'initiated');
    assert.deepEqual(await providerRefunds(p.ref), ['PENDING']);
    await eventually(async () => (await refundRow(p.id))?.status === 'succeeded');
    assert.deepEqual(await providerRefunds(p.ref), ['COMPLETED']);
    await probe.expectDelivered(p.id, ['payment.succeeded', 'refund.succeeded']);
  });
});
