/**
 * The notification and registration test scenarios (docs/testing.md) on card_psp, the
 * Polar-like provider: the scenario travels in the checkout's metadata, and each pay/fail
 * sends several events (checkout.updated, order.paid), all of which the scenario shapes.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { FAULT_DELAY_MS } from '../../helpers/drivers/sim.js';
import { assertError, assertStatus, count, sql } from '../../helpers/core.js';
import { eventually } from '../../helpers/eventually.js';
import { PROVIDER_TIMEOUT_MS, ScenarioProbe, scenarioGateway } from '../../helpers/scenarios.js';

const setup = scenarioGateway('Card scenario shop');

const probe = new ScenarioProbe(() => setup);
const act = (ref: string, action: string) => probe.act('card_psp', ref, action);

function body(scenario: string) {
  return {
    external_user_id: 'buyer-card-scenario',
    email: 'card@example.com',
    amount_minor: 1900,
    currency: 'USD',
    method: 'card_psp',
    return_url: 'https://shop.example/back',
    metadata: { card_psp_product_id: 'prod_basic', test_scenario: scenario },
  };
}

const create = (scenario: string) => probe.create(body(scenario));

/** Each archived event as "<type>:<checkout or order status>", oldest first. */
async function inbound(paymentId: string): Promise<string[]> {
  const bodies = await probe.inbound<{ type: string; data: { status: string } }>(paymentId);
  return bodies.map((b) => `${b.type}:${b.data.status}`);
}

/** Checkouts the provider holds for the payment. */
const checkouts = (paymentId: string) =>
  count(
    setup.gw.databaseUrl,
    `paygate_sim.sim_objects WHERE provider = 'card_psp' AND kind = 'checkout' AND data->'metadata'->>'payment_id' = $1`,
    [paymentId],
  );

describe('card_psp notification scenarios', () => {
  test('duplicate_webhook: every event twice; one payment.succeeded', async () => {
    const p = await create('duplicate_webhook');
    const r = await act(p.ref, 'pay');
    assert.deepEqual(JSON.parse(r.gateway_body), {
      acknowledged: true,
      action: 'already_finalized',
    });
    assert.deepEqual(await inbound(p.id), [
      'checkout.updated:succeeded',
      'checkout.updated:succeeded',
      'order.paid:paid',
      'order.paid:paid',
    ]);
    assert.equal((await probe.payment(p.id)).status, 'succeeded');
    await probe.expectDelivered(p.id, ['payment.succeeded']);
  });

  test('delayed_webhook: the action answers at once, the events follow', async () => {
    const p = await create('delayed_webhook');
    assert.deepEqual(await act(p.ref, 'pay'), {
      gateway_status: 0,
      gateway_body: `notification delayed by ${FAULT_DELAY_MS} ms (test_scenario delayed_webhook)`,
    });
    assert.equal((await probe.payment(p.id)).status, 'initiated');
    await eventually(async () => (await inbound(p.id)).length === 2);
    assert.deepEqual(await inbound(p.id), ['checkout.updated:succeeded', 'order.paid:paid']);
    assert.equal((await probe.payment(p.id)).status, 'succeeded');
    await probe.expectDelivered(p.id, ['payment.succeeded']);
  });

  test('out_of_order: a stale confirmed checkout after the decline; stays failed', async () => {
    const p = await create('out_of_order');
    const r = await act(p.ref, 'fail');
    assert.equal(r.gateway_status, 200);
    assert.deepEqual(await inbound(p.id), [
      'checkout.updated:failed',
      'checkout.updated:confirmed',
    ]);
    const view = await probe.payment(p.id);
    assert.equal(view.status, 'failed');
    assert.equal(view.last_error, 'Your card was declined.');
    await probe.expectDelivered(p.id, ['payment.failed']);
  });

  test('lost_webhook: no event; an operator sync reads the checkout and finalizes once', async () => {
    const p = await create('lost_webhook');
    assert.deepEqual(await act(p.ref, 'pay'), {
      gateway_status: 0,
      gateway_body: 'notification not sent (test_scenario lost_webhook)',
    });
    assert.deepEqual(await inbound(p.id), []);
    assert.equal((await probe.payment(p.id)).status, 'initiated');
    const synced = await setup.gw.admin('POST', `/admin/payments/${p.id}/sync`);
    assertStatus(synced, 200);
    const view = await probe.payment(p.id);
    assert.equal(view.status, 'succeeded');
    assert.equal(typeof view.metadata.card_psp_subscription_id, 'string', 'enriched by the poll');
    assertStatus(await setup.gw.admin('POST', `/admin/payments/${p.id}/sync`), 200);
    await probe.expectDelivered(p.id, ['payment.succeeded']);
  });
});

describe('card_psp registration scenarios', () => {
  for (const [scenario, error] of [
    ['registration_timeout', `card_psp timed out after ${PROVIDER_TIMEOUT_MS} ms`],
    ['registration_5xx', 'card_psp answered 500'],
  ] as const) {
    test(`${scenario}: the retry with the same Idempotency-Key resumes the one checkout`, async () => {
      const key = randomUUID();
      const b = { ...body(scenario), external_user_id: `buyer-${scenario}` };
      const first = await setup.gw.v1(setup.app, 'POST', '/v1/payments', b, {
        'Idempotency-Key': key,
      });
      assertError(first, 504, `provider checkout failed: ${error}`);
      const [row] = await sql<{ id: string; status: string; provider_ref: string | null }>(
        setup.gw.databaseUrl,
        `SELECT id, status, provider_ref FROM payments WHERE external_user_id = $1`,
        [b.external_user_id],
      );
      assert.equal(row?.status, 'initiated');
      assert.equal(row?.provider_ref, null);
      assert.equal(await checkouts(row.id), 1, 'the provider made the checkout');

      const retry = await setup.gw.v1(setup.app, 'POST', '/v1/payments', b, {
        'Idempotency-Key': key,
      });
      assertStatus(retry, 201);
      assert.equal(retry.json<{ payment_id: string }>().payment_id, row.id);
      assert.equal(await checkouts(row.id), 1, 'still one checkout');
      assert.equal(
        await count(setup.gw.databaseUrl, 'payments WHERE external_user_id = $1', [
          b.external_user_id,
        ]),
        1,
      );
      await act((await probe.payment(row.id)).provider_ref, 'pay');
      assert.equal((await probe.payment(row.id)).status, 'succeeded');
      await probe.expectDelivered(row.id, ['payment.succeeded']);
    });
  }
});
