import assert from 'node:assert/strict';
import { unpackEventBody, type StoredEventBody } from '../../../src/db/eventBody.js';
import { after, before, describe, test } from 'node:test';
import type { Gateway } from '../../../src/gateway.js';
import {
  walletPsp,
  walletPspSim,
  REFUND_REFUSAL,
  REFUND_WINDOW_MS,
  type SimCaptureRefunds,
} from '../../helpers/drivers/wallet_psp.js';
import {
  ProviderError,
  type ProviderContext,
  type RefundInput,
  SimStore,
} from '../../helpers/drivers/sim.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { createPayment, paidPayment, type CreatedPayment } from '../../helpers/payments.js';
import { assertError } from '../../helpers/assert.js';
import { receivedBody, type ArchivedBodyColumns } from '../../helpers/inboundBody.js';

// wallet_psp capture refunds through POST /v1/refunds and the simulator (docs/api.md#refunds-per-provider, #refunds, #test-mode).

let gw: TestGateway;
let core: Gateway;
let app: AppWithSecrets;
let ctx: ProviderContext;
let captureRefunds: SimStore<SimCaptureRefunds>;

before(async () => {
  gw = await startTestGateway();
  core = gw.running.gw;
  app = await gw.createApp({ name: 'Wallet refunds', webhook_url: 'http://127.0.0.1:9/hook' });
  const endpoint = core.providers.endpoint('wallet_psp', 'test');
  assert.ok(endpoint);
  ctx = { mode: 'test', endpoint, timeoutMs: 5000, now: () => core.now() };
  captureRefunds = new SimStore<SimCaptureRefunds>(core.pool, 'wallet_psp', 'capture_refunds');
});
after(async () => {
  await gw?.stop();
});

interface RefundView {
  refund_id: string;
  payment_id: string;
  status: string;
  amount_minor: number;
  currency: string;
  provider_ref: string;
  reason: string;
  created_at: string;
}

function refund(body: Record<string, unknown>, headers?: Record<string, string>) {
  return gw.v1(app, 'POST', '/v1/refunds', body, headers);
}

/** The 201 body, checked field by field against what was asked. */
function assertCreated(
  res: { status: number; text: string },
  expect: { paymentId: string; status: string; amount: number; reason: string },
): RefundView {
  assert.equal(res.status, 201, res.text);
  const v = JSON.parse(res.text) as RefundView;
  assert.deepEqual(Object.keys(v), [
    'refund_id',
    'payment_id',
    'status',
    'amount_minor',
    'currency',
    'provider_ref',
    'reason',
    'created_at',
  ]);
  assert.match(v.refund_id, /^[0-9a-f]{32}$/);
  assert.equal(v.payment_id, expect.paymentId);
  assert.equal(v.status, expect.status);
  assert.equal(v.amount_minor, expect.amount);
  assert.equal(v.currency, 'EUR');
  assert.match(v.provider_ref, /^[0-9A-Z]{17}$/);
  assert.equal(v.reason, expect.reason);
  assert.ok(!Number.isNaN(Date.parse(v.created_at)));
  return v;
}

async function captureOf(p: CreatedPayment) {
  const found = await walletPspSim(core, gw.simClock).orders.get(p.providerRef);
  const capture = found?.order.purchase_units[0]?.payments?.captures?.[0];
  assert.ok(capture, `order ${p.providerRef} has a capture`);
  return capture;
}

/** The provider's refunds of the payment's capture, as the simulator keeps them. */
async function providerRefunds(p: CreatedPayment) {
  const capture = await captureOf(p);
  return (await captureRefunds.get(capture.id))?.refunds ?? [];
}

async function refundRow(id: string) {
  const r = await core.pool.query<{
    status: string;
    provider_ref: string | null;
    last_error: string;
  }>('SELECT status, provider_ref, last_error FROM refunds WHERE id = $1', [id]);
  return r.rows[0];
}

async function refundRowsOf(paymentId: string) {
  const r = await core.pool.query<{ id: string; status: string; last_error: string }>(
    'SELECT id, status, last_error FROM refunds WHERE payment_id = $1 ORDER BY created_at',
    [paymentId],
  );
  return r.rows;
}

async function outbound(refundId: string) {
  const r = await core.pool.query<StoredEventBody>(
    `SELECT event_type, body, body_codec, body_packed FROM outbound_events
     WHERE refund_id = $1 ORDER BY created_at`,
    [refundId],
  );
  return r.rows.map((row) => ({
    event: row.event_type,
    body: JSON.parse(unpackEventBody(row)) as Record<string, unknown>,
  }));
}

async function inboundRefundEvents(paymentId: string, eventType: string) {
  const r = await core.pool.query<{ outcome: string } & ArchivedBodyColumns>(
    `SELECT outcome, provider, raw_body, body_codec FROM inbound_events WHERE payment_id = $1 AND event_type = $2
     ORDER BY id`,
    [paymentId, eventType],
  );
  return r.rows.map((row) => ({
    outcome: row.outcome,
    body: JSON.parse(receivedBody(row).toString('utf8')) as {
      resource_type: string;
      resource: Record<string, unknown>;
    },
  }));
}

async function sim(ref: string, action: string) {
  const res = await fetch(`${gw.url}/sim/wallet_psp/payments/${ref}/${action}`, {
    method: 'POST',
  });
  return { status: res.status, text: await res.text() };
}

describe('synchronous refunds', () => {
  test('full refund: 201 succeeded with the provider refund id; the capture is REFUNDED', async () => {
    const p = await paidPayment(gw, app, 'wallet', 2599);
    const res = await refund({ payment_id: p.id, reason: 'damaged on arrival' });
    const v = assertCreated(res, {
      paymentId: p.id,
      status: 'succeeded',
      amount: 2599,
      reason: 'damaged on arrival',
    });
    const [provider, ...more] = await providerRefunds(p);
    assert.equal(more.length, 0);
    assert.equal(provider?.refund.id, v.provider_ref);
    assert.equal(provider?.refund.status, 'COMPLETED');
    assert.deepEqual(provider?.refund.amount, { currency_code: 'EUR', value: '25.99' });
    assert.equal(provider?.refund.custom_id, p.id);
    assert.equal(provider?.refund.invoice_id, v.refund_id);
    assert.equal(provider?.refund.note_to_payer, 'damaged on arrival');
    assert.equal((await captureOf(p)).status, 'REFUNDED');

    const row = await refundRow(v.refund_id);
    assert.deepEqual(row, { status: 'succeeded', provider_ref: v.provider_ref, last_error: '' });
    const events = await outbound(v.refund_id);
    assert.deepEqual(
      events.map((e) => [e.event, e.body.status, e.body.provider_ref, e.body.amount]),
      [['refund.succeeded', 'succeeded', v.provider_ref, 2599]],
    );

    // As PayPal does, the provider also sends PAYMENT.CAPTURE.REFUNDED for it, shortly after
    // its answer. It carries the refund id; whichever of answer and event the gateway handles
    // first settles the refund, the other changes nothing: one refund.succeeded in all.
    const inbound = await eventually(async () => {
      const rows = await inboundRefundEvents(p.id, 'PAYMENT.CAPTURE.REFUNDED');
      return rows.length > 0 ? rows : undefined;
    }, 'PAYMENT.CAPTURE.REFUNDED');
    assert.equal(inbound.length, 1);
    assert.ok(['already_finalized', 'refund_succeeded'].includes(inbound[0]?.outcome ?? ''));
    assert.equal(inbound[0]?.body.resource_type, 'refund');
    assert.equal(inbound[0]?.body.resource.id, v.provider_ref);
    assert.equal(inbound[0]?.body.resource.status, 'COMPLETED');
    assert.equal(inbound[0]?.body.resource.custom_id, p.id);
    assert.equal((await outbound(v.refund_id)).length, 1);

    // The event again, now that the refund is settled: matched by the refund id, a no-op.
    const again = await walletPspSim(core, gw.simClock).signedEvent(
      'PAYMENT.CAPTURE.REFUNDED',
      'refund',
      inbound[0]?.body.resource,
      'A 25.99 EUR capture payment was refunded',
    );
    const redelivered = await fetch(`${gw.url}/webhooks/wallet_psp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...again.headers },
      body: again.body,
    });
    assert.equal(redelivered.status, 200);
    assert.equal(await redelivered.text(), '{"acknowledged":true,"action":"already_finalized"}');
    assert.equal((await outbound(v.refund_id)).length, 1);
    assert.equal((await refundRowsOf(p.id)).length, 1);

    // The payment stays succeeded (docs/api.md#refunds); the status check still reads it as paid.
    const read = await gw.v1(app, 'GET', `/v1/payments/${p.id}`);
    assert.equal(read.json<{ status: string }>().status, 'succeeded');
    assert.deepEqual(
      await walletPsp.fetchStatus(ctx, { paymentId: p.id, providerRef: p.providerRef }),
      {
        kind: 'payment',
        outcome: 'succeeded',
        // PayPal's fee from the capture's seller_receivable_breakdown (the ledger's fee_minor).
        paid: { amountMinor: 2599, currency: 'EUR', feeMinor: 140 },
      },
    );
  });

  test('partial refund: 201 for the amount asked, capture PARTIALLY_REFUNDED; a second refund 422', async () => {
    const p = await paidPayment(gw, app, 'wallet', 2599);
    const res = await refund({ payment_id: p.id, amount_minor: 1000 });
    const v = assertCreated(res, {
      paymentId: p.id,
      status: 'succeeded',
      amount: 1000,
      reason: '',
    });
    const refunds = await providerRefunds(p);
    assert.equal(refunds.length, 1);
    assert.deepEqual(refunds[0]?.refund.amount, { currency_code: 'EUR', value: '10.00' });
    assert.equal(refunds[0]?.refund.note_to_payer, undefined);
    assert.equal((await captureOf(p)).status, 'PARTIALLY_REFUNDED');
    assert.equal((await refundRow(v.refund_id))?.status, 'succeeded');

    assertError(
      await refund({ payment_id: p.id, amount_minor: 500 }),
      422,
      'payment already has a refund',
    );
    assertError(await refund({ payment_id: p.id }), 422, 'payment already has a refund');
    assert.equal((await providerRefunds(p)).length, 1);
  });

  test('idempotent replay: the same Idempotency-Key answers the same body, one provider refund', async () => {
    const p = await paidPayment(gw, app, 'wallet', 1500);
    const key = `refund-${p.id}`;
    const body = { payment_id: p.id, amount_minor: 700, reason: 'replay me' };
    const first = await refund(body, { 'Idempotency-Key': key });
    assertCreated(first, {
      paymentId: p.id,
      status: 'succeeded',
      amount: 700,
      reason: 'replay me',
    });
    const second = await refund(body, { 'Idempotency-Key': key });
    assert.equal(second.status, 201);
    assert.equal(second.text, first.text);
    assert.equal((await providerRefunds(p)).length, 1);
    assert.equal((await refundRowsOf(p.id)).length, 1);
  });
});

describe('the 180-day window, on the simulator clock from the capture', () => {
  /** Moves the simulator clock so that it reads capture time + offset. */
  async function clockAtCapturePlus(p: CreatedPayment, offsetMs: number) {
    const capturedAt = Date.parse((await captureOf(p)).create_time);
    gw.simClock.advance(capturedAt + offsetMs - gw.simClock.now());
  }

  test('one second inside 180 days: refunded', async () => {
    const p = await paidPayment(gw, app, 'wallet', 2000);
    try {
      await clockAtCapturePlus(p, REFUND_WINDOW_MS - 1000);
      const res = await refund({ payment_id: p.id });
      assertCreated(res, { paymentId: p.id, status: 'succeeded', amount: 2000, reason: '' });
    } finally {
      gw.simClock.reset();
    }
  });

  test('one second outside 180 days: 502 with the provider text; stored failed, refund.failed sent', async () => {
    const p = await paidPayment(gw, app, 'wallet', 2000);
    try {
      await clockAtCapturePlus(p, REFUND_WINDOW_MS + 1000);
      assertError(
        await refund({ payment_id: p.id, reason: 'too late' }),
        502,
        'refund failed: You are over the time limit to perform a refund on this capture.',
      );
    } finally {
      gw.simClock.reset();
    }
    assert.equal(
      REFUND_REFUSAL.timeLimit,
      'You are over the time limit to perform a refund on this capture.',
    );
    const rows = await refundRowsOf(p.id);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.status, 'failed');
    assert.equal(rows[0]?.last_error, REFUND_REFUSAL.timeLimit);
    const events = await outbound(rows[0]?.id ?? '');
    assert.deepEqual(
      events.map((e) => [e.event, e.body.status]),
      [['refund.failed', 'failed']],
    );
    assert.equal((await providerRefunds(p)).length, 0);
    assert.equal((await captureOf(p)).status, 'COMPLETED');
  });
});

describe('asynchronous refunds (note containing "pending")', () => {
  test('pending -> 201 initiated; refund_succeed settles it: succeeded and refund.succeeded', async () => {
    const p = await paidPayment(gw, app, 'wallet', 3100);
    const res = await refund({ payment_id: p.id, reason: 'keep it pending please' });
    const v = assertCreated(res, {
      paymentId: p.id,
      status: 'initiated',
      amount: 3100,
      reason: 'keep it pending please',
    });
    assert.deepEqual(await refundRow(v.refund_id), {
      status: 'initiated',
      provider_ref: v.provider_ref,
      last_error: '',
    });
    assert.deepEqual(await outbound(v.refund_id), []);
    assert.equal((await captureOf(p)).status, 'COMPLETED');
    // While it is pending it blocks a second refund.
    assertError(await refund({ payment_id: p.id }), 422, 'payment already has a refund');

    const r = await sim(p.providerRef, 'refund_succeed');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(JSON.parse(r.text), {
      gateway_status: 200,
      gateway_body: '{"acknowledged":true}',
    });
    assert.deepEqual(await refundRow(v.refund_id), {
      status: 'succeeded',
      provider_ref: v.provider_ref,
      last_error: '',
    });
    const events = await outbound(v.refund_id);
    assert.deepEqual(
      events.map((e) => [e.event, e.body.status, e.body.provider_ref, e.body.reason]),
      [['refund.succeeded', 'succeeded', v.provider_ref, 'keep it pending please']],
    );
    assert.equal((await captureOf(p)).status, 'REFUNDED');
    const inbound = await inboundRefundEvents(p.id, 'PAYMENT.CAPTURE.REFUNDED');
    assert.deepEqual(
      inbound.map((e) => [e.outcome, e.body.resource.id, e.body.resource.status]),
      [['refund_succeeded', v.provider_ref, 'COMPLETED']],
    );

    // Nothing left to settle.
    const again = await sim(p.providerRef, 'refund_succeed');
    assert.equal(again.status, 409);
    assert.equal(again.text, `cannot refund_succeed: order ${p.providerRef} has no pending refund`);
  });

  test('refund_fail: failed with the provider reason and refund.failed; a new refund then succeeds', async () => {
    const p = await paidPayment(gw, app, 'wallet', 4200);
    const res = await refund({ payment_id: p.id, amount_minor: 4200, reason: 'Pending check' });
    const v = assertCreated(res, {
      paymentId: p.id,
      status: 'initiated',
      amount: 4200,
      reason: 'Pending check',
    });
    const r = await sim(p.providerRef, 'refund_fail');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(JSON.parse(r.text), {
      gateway_status: 200,
      gateway_body: '{"acknowledged":true}',
    });
    assert.deepEqual(await refundRow(v.refund_id), {
      status: 'failed',
      provider_ref: v.provider_ref,
      last_error: 'INSUFFICIENT_FUNDS',
    });
    const events = await outbound(v.refund_id);
    assert.deepEqual(
      events.map((e) => [e.event, e.body.status, e.body.provider_ref]),
      [['refund.failed', 'failed', v.provider_ref]],
    );
    const inbound = await inboundRefundEvents(p.id, 'PAYMENT.REFUND.FAILED');
    assert.deepEqual(
      inbound.map((e) => [e.outcome, e.body.resource.id, e.body.resource.status]),
      [['refund_failed', v.provider_ref, 'FAILED']],
    );
    assert.equal((await captureOf(p)).status, 'COMPLETED');

    // A failed refund blocks nothing, at the gateway (docs/api.md#create-a-refund) or at the provider (no money left it).
    const next = await refund({ payment_id: p.id, reason: 'second try' });
    const w = assertCreated(next, {
      paymentId: p.id,
      status: 'succeeded',
      amount: 4200,
      reason: 'second try',
    });
    assert.notEqual(w.provider_ref, v.provider_ref);
    assert.deepEqual(
      (await refundRowsOf(p.id)).map((row) => row.status),
      ['failed', 'succeeded'],
    );
    assert.deepEqual(
      (await providerRefunds(p)).map((e) => e.refund.status),
      ['FAILED', 'COMPLETED'],
    );
  });

  test('actions: unknown order 404, an order without refunds 409', async () => {
    const unknown = await sim('NOSUCHORDER000000', 'refund_fail');
    assert.deepEqual(unknown, { status: 404, text: 'unknown reference' });
    const unpaid = await createPayment(gw, app, 'wallet', 1000);
    const r = await sim(unpaid.providerRef, 'refund_succeed');
    assert.deepEqual(r, {
      status: 409,
      text: `cannot refund_succeed: order ${unpaid.providerRef} has no pending refund`,
    });
  });
});

describe('the adapter against the provider rules', () => {
  function input(
    p: CreatedPayment,
    refundId: string,
    amountMinor: number,
    reason = '',
  ): RefundInput {
    return {
      paymentId: p.id,
      providerRef: p.providerRef,
      refundId,
      amountMinor,
      paymentAmountMinor: 2500,
      currency: 'EUR',
      reason,
    };
  }

  async function rejection(promise: Promise<unknown>): Promise<{ kind: string; text: string }> {
    try {
      await promise;
    } catch (err) {
      assert.ok(err instanceof ProviderError, String(err));
      return { kind: err.kind, text: err.providerText };
    }
    throw new Error('expected a ProviderError');
  }

  test('same refund id: the provider replays the refund (one refund, same id)', async () => {
    const p = await paidPayment(gw, app, 'wallet', 2500);
    const a = await walletPsp.refund!(ctx, input(p, 'a'.repeat(32), 1000));
    const b = await walletPsp.refund!(ctx, input(p, 'a'.repeat(32), 1000));
    assert.equal(a.status, 'succeeded');
    assert.deepEqual(b, a);
    assert.equal((await providerRefunds(p)).length, 1);
  });

  test('more than is left: REFUND_AMOUNT_EXCEEDED; all refunded: CAPTURE_FULLY_REFUNDED', async () => {
    const p = await paidPayment(gw, app, 'wallet', 2500);
    assert.equal(
      (await walletPsp.refund!(ctx, input(p, 'b'.repeat(32), 2000))).status,
      'succeeded',
    );
    assert.deepEqual(await rejection(walletPsp.refund!(ctx, input(p, 'c'.repeat(32), 501))), {
      kind: 'rejected',
      text: 'The refund amount must be less than or equal to the capture amount that has not yet been refunded.',
    });
    const pending = await walletPsp.refund!(ctx, input(p, 'd'.repeat(32), 500, 'pending'));
    assert.equal(pending.status, 'pending');
    // Pending money counts as refunded.
    assert.deepEqual(await rejection(walletPsp.refund!(ctx, input(p, 'e'.repeat(32), 1))), {
      kind: 'rejected',
      text: 'The capture has already been fully refunded.',
    });
  });

  test('an order never captured: rejected without a refund call', async () => {
    const p = await createPayment(gw, app, 'wallet', 2500);
    assert.deepEqual(await rejection(walletPsp.refund!(ctx, input(p, 'f'.repeat(32), 100))), {
      kind: 'rejected',
      text: `wallet_psp order ${p.providerRef} has no capture`,
    });
  });

  test('an unreachable provider is indeterminate', async () => {
    const p = await paidPayment(gw, app, 'wallet', 2500);
    const down = {
      ...ctx,
      endpoint: { ...ctx.endpoint, baseUrl: 'http://127.0.0.1:9/sim/wallet_psp' },
    };
    const r = await rejection(walletPsp.refund!(down, input(p, '1'.repeat(32), 100)));
    assert.equal(r.kind, 'indeterminate');
  });
});

describe('admin (docs/api.md#admin-cancel): no provider cancel; cancel of a paid payment is a refund', () => {
  test('cancel of an initiated payment is local: 200 canceled, no provider call needed', async () => {
    const p = await createPayment(gw, app, 'wallet', 1200);
    const res = await gw.admin('POST', `/admin/payments/${p.id}/cancel`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json<{ status: string }>().status, 'canceled');
    // The order is untouched at the provider; a later approval finds the payment final.
    const found = await walletPspSim(core, gw.simClock).orders.get(p.providerRef);
    assert.equal(found?.order.status, 'PAYER_ACTION_REQUIRED');
    const r = await sim(p.providerRef, 'pay');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(JSON.parse(r.text), {
      gateway_status: 200,
      gateway_body: '{"acknowledged":true,"action":"already_finalized"}',
    });
    const after = await walletPspSim(core, gw.simClock).orders.get(p.providerRef);
    assert.equal(after?.order.status, 'APPROVED');
  });

  test('cancel of a succeeded payment: 201 full refund through the capture refund', async () => {
    const p = await paidPayment(gw, app, 'wallet', 1300);
    const res = await gw.admin('POST', `/admin/payments/${p.id}/cancel`);
    const v = assertCreated(res, {
      paymentId: p.id,
      status: 'succeeded',
      amount: 1300,
      reason: 'canceled by operator',
    });
    const refunds = await providerRefunds(p);
    assert.deepEqual(
      refunds.map((e) => [e.refund.id, e.refund.status, e.refund.amount.value]),
      [[v.provider_ref, 'COMPLETED', '13.00']],
    );
    assert.equal(refunds[0]?.refund.note_to_payer, 'canceled by operator');
  });
});
