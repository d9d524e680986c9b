import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import pg from 'pg';
import {
  idrPsp,
  buildIdrNotification,
  expireDueIdrTransactions,
  applyAction,
  type SimTransaction,
} from '../../helpers/drivers/idr_psp.js';
import { type ProviderContext, type RegisterPaymentInput } from '../../helpers/drivers/sim.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { rejection } from '../../helpers/assert.js';

let gw: TestGateway;
let db: pg.Client;
let ctx: ProviderContext;
before(async () => {
  gw = await startTestGateway();
  db = new pg.Client({ connectionString: gw.databaseUrl });
  await db.connect();
  const endpoint = gw.running.gw.providers.endpoint('idr_psp', 'test');
  assert.ok(endpoint);
  ctx = { mode: 'test', endpoint, timeoutMs: 5000, now: () => gw.running.gw.now() };
});
after(async () => {
  await db?.end();
  await gw?.stop();
});

function input(over: Partial<RegisterPaymentInput> = {}): RegisterPaymentInput {
  return {
    paymentId: randomBytes(16).toString('hex'),
    amountMinor: 50000,
    currency: 'IDR',
    method: 'qris',
    email: 'buyer@example.com',
    externalUserId: 'buyer-1',
    returnUrl: 'https://shop.example/return',
    metadata: {},
    directQr: false,
    ...over,
  };
}

async function simRows(orderId: string): Promise<{ kind: string; id: string }[]> {
  const res = await db.query<{ kind: string; id: string }>(
    `SELECT kind, id FROM paygate_sim.sim_objects
      WHERE provider = 'idr_psp' AND (id = $1 OR data->>'order_id' = $1) ORDER BY kind, id`,
    [orderId],
  );
  return res.rows;
}

async function simTransaction(orderId: string): Promise<SimTransaction> {
  const res = await db.query<{ data: SimTransaction }>(
    `SELECT data FROM paygate_sim.sim_objects WHERE provider = 'idr_psp' AND kind = 'transaction' AND id = $1`,
    [orderId],
  );
  assert.ok(res.rows[0]);
  return res.rows[0].data;
}

test('a retried hosted registration returns the same registration and stores one transaction', async () => {
  const inp = input({ method: 'va_permata' });
  const first = await idrPsp.register(ctx, inp);
  const second = await idrPsp.register(ctx, inp);
  assert.equal(second.providerRef, first.providerRef);
  assert.equal(second.checkoutUrl, first.checkoutUrl);
  const rows = await simRows(inp.paymentId);
  assert.equal(rows.filter((r) => r.kind === 'transaction').length, 1);
  // The transaction plus its two references (Snap token, transaction_id).
  assert.equal(rows.length, 3);
  assert.ok(rows.some((r) => r.kind === 'ref' && r.id === first.providerRef));
  const hours = ((first.expiresAt?.getTime() ?? 0) - Date.now()) / 3_600_000;
  assert.ok(hours > 23.9 && hours <= 24, `VA expiry ${hours} h`);
});

test('a retried direct QR charge returns the same transaction and QR', async () => {
  const inp = input({ directQr: true });
  const first = await idrPsp.register(ctx, inp);
  const second = await idrPsp.register(ctx, inp);
  assert.deepEqual(second, first);
  assert.ok(first.qrString && first.qrImageUrl);
  const rows = await simRows(inp.paymentId);
  assert.deepEqual(
    rows.map((r) => r.kind),
    ['ref', 'transaction'],
  );
  const minutes = ((first.expiresAt?.getTime() ?? 0) - Date.now()) / 60_000;
  assert.ok(minutes > 19 && minutes <= 20.01, `QR expiry ${minutes} min`);
});

test('concurrent registrations of one order_id still make one transaction', async () => {
  const inp = input();
  const regs = await Promise.all([1, 2, 3, 4].map(() => idrPsp.register(ctx, inp)));
  assert.equal(new Set(regs.map((r) => r.providerRef)).size, 1);
  const rows = await simRows(inp.paymentId);
  assert.equal(rows.filter((r) => r.kind === 'transaction').length, 1);
});

test('the same order_id with a different amount is refused by the provider', async () => {
  const inp = input();
  await idrPsp.register(ctx, inp);
  const err = await rejection(idrPsp.register(ctx, { ...inp, amountMinor: 99 }));
  assert.equal(err.kind, 'rejected');
  assert.equal(err.providerText, 'transaction_details.order_id has already been taken');
});

test('a wrong server key is refused (401) and reported verbatim', async () => {
  const bad = {
    ...ctx,
    endpoint: { ...ctx.endpoint, credentials: { serverKey: 'SB-Mid-server-wrong' } },
  };
  const err = await rejection(idrPsp.register(bad, input()));
  assert.equal(err.kind, 'rejected');
  assert.equal(
    err.providerText,
    'Access denied due to unauthorized transaction, please check client or server key',
  );
  const status = await rejection(
    idrPsp.fetchStatus(bad, { paymentId: input().paymentId, providerRef: null }),
  );
  assert.equal(status.kind, 'rejected');
});

test('gross_amount must be a positive integer at the provider', async () => {
  const res = await fetch(`${gw.url}/sim/idr_psp/snap/v1/transactions`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${ctx.endpoint.credentials.serverKey}:`).toString('base64')}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      transaction_details: { order_id: 'x1', gross_amount: 10.5 },
      customer_details: { email: 'a@b.c' },
      enabled_payments: ['bca_va'],
    }),
  });
  assert.equal(res.status, 400);
  assert.deepEqual(await res.json(), {
    error_messages: ['transaction_details.gross_amount must be a positive integer'],
  });
});

async function withServer(
  handler: Parameters<typeof createServer>[1],
  fn: (url: string) => Promise<void>,
): Promise<void> {
  const server: Server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    await fn(url);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

test('timeouts, 5xx and unreachable providers are indeterminate, never rejections', async () => {
  const at = (baseUrl: string, timeoutMs = 5000) => ({
    ...ctx,
    timeoutMs,
    endpoint: { ...ctx.endpoint, baseUrl },
  });
  await withServer(
    () => undefined, // never answers
    async (url) => {
      const err = await rejection(idrPsp.register(at(url, 150), input()));
      assert.equal(err.kind, 'indeterminate');
      assert.equal(err.providerText, 'idr_psp did not answer within 150 ms');
    },
  );
  await withServer(
    (_req, res) => res.writeHead(503, { 'content-type': 'text/html' }).end('<h1>busy</h1>'),
    async (url) => {
      const err = await rejection(idrPsp.register(at(url), input({ directQr: true })));
      assert.equal(err.kind, 'indeterminate');
      const st = await rejection(
        idrPsp.fetchStatus(at(url), { paymentId: 'a', providerRef: null }),
      );
      assert.equal(st.kind, 'indeterminate');
    },
  );
  await withServer(
    (_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end('{"status_code":"500","status_message":"Sorry. Our system is recovering."}'),
    async (url) => {
      const err = await rejection(idrPsp.register(at(url), input({ directQr: true })));
      assert.equal(err.kind, 'indeterminate');
    },
  );
  let closedUrl = '';
  await withServer(
    () => undefined,
    async (url) => {
      closedUrl = url;
    },
  );
  const err = await rejection(idrPsp.register(at(closedUrl), input()));
  assert.equal(err.kind, 'indeterminate');
  assert.equal(err.providerText, 'idr_psp unreachable');
});

test('fetchStatus: pending, paid, and an order the provider never saw', async () => {
  const inp = input({ method: 'va_bca' });
  const reg = await idrPsp.register(ctx, inp);
  const ref = { paymentId: inp.paymentId, providerRef: reg.providerRef };
  assert.deepEqual(await idrPsp.fetchStatus(ctx, ref), { kind: 'none' });
  // A notification claiming a settlement is confirmed by the status API: still pending.
  const claimed = {
    eventType: 'settlement',
    paymentId: inp.paymentId,
    action: {
      kind: 'payment' as const,
      outcome: 'succeeded' as const,
      paid: { amountMinor: 50000, currency: 'IDR' },
    },
  };
  assert.deepEqual(await idrPsp.confirmEvent?.(ctx, ref, claimed), [{ kind: 'none' }]);

  const act = await fetch(`${gw.url}/sim/idr_psp/payments/${reg.providerRef}/pay`, {
    method: 'POST',
  });
  assert.equal(act.status, 200);
  const paid = {
    kind: 'payment',
    outcome: 'succeeded',
    paid: { amountMinor: 50000, currency: 'IDR' },
  };
  assert.deepEqual(await idrPsp.fetchStatus(ctx, ref), paid);
  // Whatever a notification claims, what the provider answers is confirmed.
  assert.deepEqual(
    await idrPsp.confirmEvent?.(ctx, ref, {
      ...claimed,
      eventType: 'deny',
      action: { kind: 'payment', outcome: 'failed', errorText: 'denied' },
    }),
    [paid],
  );

  assert.deepEqual(
    await idrPsp.fetchStatus(ctx, { paymentId: input().paymentId, providerRef: null }),
    { kind: 'payment', outcome: 'failed', errorText: "Transaction doesn't exist." },
  );
});

test('the notification the simulator sends verifies and parses with the adapter', async () => {
  for (const method of ['qris', 'va_bca', 'va_mandiri', 'va_permata']) {
    const inp = input({ method });
    await idrPsp.register(ctx, inp);
    const tx = await simTransaction(inp.paymentId);
    const paid = applyAction(tx, 'pay', Date.now());
    const raw = Buffer.from(
      JSON.stringify(buildIdrNotification(paid, ctx.endpoint.webhookSecret, 'http://x')),
    );
    assert.equal(await idrPsp.verifyWebhook(ctx.endpoint, {}, raw), true, method);
    const parsed = JSON.parse(raw.toString()) as Record<string, unknown>;
    assert.equal(parsed.gross_amount, '50000.00');
    assert.equal(parsed.status_code, '200');
    assert.equal(parsed.transaction_status, 'settlement');
    for (const field of [
      'transaction_time',
      'transaction_status',
      'transaction_id',
      'status_message',
      'status_code',
      'signature_key',
      'payment_type',
      'order_id',
      'merchant_id',
      'gross_amount',
      'fraud_status',
      'currency',
    ]) {
      assert.ok(field in parsed, `${method}: ${field}`);
    }
    if (method === 'va_bca')
      assert.deepEqual(parsed.va_numbers, [{ bank: 'bca', va_number: tx.va_number }]);
    if (method === 'va_permata') assert.equal(parsed.permata_va_number, tx.va_number);
    if (method === 'va_mandiri') assert.equal(parsed.payment_type, 'echannel');
    assert.deepEqual(idrPsp.parseWebhook({}, raw), {
      eventType: 'settlement',
      paymentId: inp.paymentId,
      providerRef: tx.transaction_id,
      action: {
        kind: 'payment',
        outcome: 'succeeded',
        paid: { amountMinor: 50000, currency: 'IDR' },
      },
    });
    // Signed with another mode's key it does not verify.
    const other = { ...ctx.endpoint, webhookSecret: 'SB-Mid-server-other' };
    assert.equal(await idrPsp.verifyWebhook(other, {}, raw), false);
  }
});

test('an unpaid QR expires at 20 minutes of the simulator clock', async () => {
  const clock = gw.simClock;
  const inp = input();
  const reg = await idrPsp.register(ctx, inp);
  const ref = { paymentId: inp.paymentId, providerRef: reg.providerRef };
  clock.advance(19 * 60_000);
  try {
    assert.deepEqual(await idrPsp.fetchStatus(ctx, ref), { kind: 'none' });
    clock.advance(60_000);
    // Reported lazily by the status API before any sweep ran.
    assert.deepEqual(await idrPsp.fetchStatus(ctx, ref), {
      kind: 'payment',
      outcome: 'failed',
      errorText: 'Transaction expired: QR not paid within 20 minutes',
    });
    const swept = await expireDueIdrTransactions(gw.running.gw, clock);
    assert.ok(swept >= 0);
    // Whether this sweep or the background one moved it, it is expired once, and only once.
    assert.equal((await simTransaction(inp.paymentId)).transaction_status, 'expire');
    assert.equal(await expireDueIdrTransactions(gw.running.gw, clock), 0);
    const act = await fetch(`${gw.url}/sim/idr_psp/payments/${reg.providerRef}/pay`, {
      method: 'POST',
    });
    assert.equal(act.status, 409);
    assert.equal(await act.text(), 'transaction already expired');
  } finally {
    clock.reset();
  }
});
