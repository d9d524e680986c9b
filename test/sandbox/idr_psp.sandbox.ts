import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { idrPsp } from '../../src/providers/idr_psp/index.js';
import { snapBaseUrl } from '../../src/providers/idr_psp/client.js';
import type { ProviderContext, RegisterPaymentInput } from '../../src/providers/types.js';
import { ProviderError } from '../../src/providers/types.js';
import { midtransClients, midtransError } from '../helpers/midtrans.js';

// The idr_psp adapter against Midtrans's sandbox (npm run test:sandbox), with midtrans-client
// as a second client of the same account. Every transaction it makes is left unpaid and is
// canceled or expired here (the sandbox pays nothing by itself).

const env = (name: string) => process.env[name] ?? '';
const serverKey = env('IDR_PSP_SANDBOX_SERVER_KEY');
const ctx: ProviderContext = {
  mode: 'sandbox',
  endpoint: {
    baseUrl: env('IDR_PSP_SANDBOX_BASE_URL'),
    credentials: { serverKey },
    webhookSecret: serverKey,
  },
  timeoutMs: 20_000,
  now: () => Date.now(),
};
const { core } = midtransClients(ctx.endpoint.baseUrl, serverKey);
// midtrans-client's Snap base is <snap host>/snap/v1; the adapter derives the Snap host too.
const snapHost = snapBaseUrl(ctx.endpoint.baseUrl);

function input(over: Partial<RegisterPaymentInput> = {}): RegisterPaymentInput {
  return {
    paymentId: randomBytes(16).toString('hex'),
    amountMinor: 10000,
    currency: 'IDR',
    method: 'va_bca',
    email: 'sandbox-check@example.com',
    externalUserId: 'paygate-sandbox-check',
    returnUrl: 'https://example.com/return',
    metadata: {},
    directQr: false,
    ...over,
  };
}

test('the base URL is the Core API host; the Snap host is derived from it', () => {
  assert.match(ctx.endpoint.baseUrl, /^https:\/\/api\.sandbox\.midtrans\.com\/?$/);
  assert.match(snapHost, /^https:\/\/app\.sandbox\.midtrans\.com\/?$/);
});

test('a Snap registration: no transaction until the buyer chooses, and the payment stays open', async () => {
  const inp = input();
  const reg = await idrPsp.register(ctx, inp);
  assert.match(reg.checkoutUrl, /^https:\/\/app\.sandbox\.midtrans\.com\/snap\//);
  // Midtrans answers 404 by order_id: the adapter reads that as still waiting for the buyer.
  assert.equal((await midtransError(core.transaction.status(inp.paymentId))).httpStatusCode, 404);
  const ref = {
    paymentId: inp.paymentId,
    providerRef: reg.providerRef,
    createdAt: new Date(),
    method: inp.method,
  };
  assert.deepEqual(await idrPsp.fetchStatus(ctx, ref), { kind: 'none' });
  // Admin cancel has nothing to void at the provider yet.
  await idrPsp.cancel?.(ctx, ref);
});

test('a direct QR charge is pending, its status answer verifies as a notification, and cancel voids it', async () => {
  const inp = input({ method: 'qris', directQr: true });
  const reg = await idrPsp.register(ctx, inp);
  assert.ok(reg.qrString);
  const ref = { paymentId: inp.paymentId, providerRef: reg.providerRef };
  assert.deepEqual(await idrPsp.fetchStatus(ctx, ref), { kind: 'none' });
  // Midtrans signs its status answers as it signs notifications: the adapter's check agrees.
  const status = await core.transaction.status(reg.providerRef);
  assert.equal(status.order_id, inp.paymentId);
  assert.equal(
    await idrPsp.verifyWebhook(ctx.endpoint, {}, Buffer.from(JSON.stringify(status))),
    true,
  );
  await idrPsp.cancel?.(ctx, ref);
  assert.deepEqual(await idrPsp.fetchStatus(ctx, ref), { kind: 'payment', outcome: 'canceled' });
});

test('an unpaid bank transfer cannot be refunded; expire makes it failed', async () => {
  const paymentId = randomBytes(16).toString('hex');
  const charged = await core.charge({
    payment_type: 'bank_transfer',
    bank_transfer: { bank: 'bca' },
    transaction_details: { order_id: paymentId, gross_amount: 10000 },
    customer_details: { email: 'sandbox-check@example.com' },
  });
  assert.equal(charged.transaction_status, 'pending');
  const refused = await idrPsp
    .refund?.(ctx, {
      paymentId,
      providerRef: String(charged.transaction_id),
      refundId: randomBytes(16).toString('hex'),
      amountMinor: 10000,
      paymentAmountMinor: 10000,
      currency: 'IDR',
      reason: 'sandbox check',
    })
    .then(
      () => null,
      (err: unknown) => err,
    );
  assert.ok(refused instanceof ProviderError && refused.kind === 'rejected', String(refused));
  const expired = await core.transaction.expire(paymentId);
  assert.equal(expired.transaction_status, 'expire');
  const action = await idrPsp.fetchStatus(ctx, {
    paymentId,
    providerRef: String(charged.transaction_id),
  });
  assert.equal(action.kind, 'payment');
  assert.equal(action.kind === 'payment' && action.outcome, 'failed');
});
