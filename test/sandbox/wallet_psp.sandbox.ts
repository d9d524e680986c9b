import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { Client, Environment, OrdersController } from '@paypal/paypal-server-sdk';
import type { ProviderContext } from '../../src/providers/types.js';
import { ProviderError } from '../../src/providers/types.js';
import { walletPsp } from '../../src/providers/wallet_psp/index.js';
import { certUrlAllowed } from '../../src/providers/wallet_psp/webhook.js';

// The wallet_psp adapter against PayPal's sandbox (npm run test:sandbox). Creates orders
// that wait for a payer: nothing is approved or captured, PayPal drops them by itself.

const env = (name: string) => process.env[name] ?? '';
const ctx: ProviderContext = {
  mode: 'sandbox',
  endpoint: {
    baseUrl: env('WALLET_PSP_SANDBOX_BASE_URL'),
    credentials: {
      clientId: env('WALLET_PSP_SANDBOX_CLIENT_ID'),
      clientSecret: env('WALLET_PSP_SANDBOX_CLIENT_SECRET'),
      webhookId: env('WALLET_PSP_SANDBOX_WEBHOOK_ID'),
    },
    webhookSecret: env('WALLET_PSP_SANDBOX_WEBHOOK_ID'),
  },
  timeoutMs: 20_000,
  now: () => Date.now(),
};
const orders = new OrdersController(
  new Client({
    environment: Environment.Sandbox,
    clientCredentialsAuthCredentials: {
      oAuthClientId: ctx.endpoint.credentials.clientId ?? '',
      oAuthClientSecret: ctx.endpoint.credentials.clientSecret ?? '',
    },
  }),
);

test('the base URL is a sandbox host whose webhook certificates the adapter accepts', () => {
  const cert =
    'https://api.sandbox.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-a5cafa77';
  assert.equal(certUrlAllowed(cert, ctx.endpoint.baseUrl), true, ctx.endpoint.baseUrl);
});

test('register creates an order waiting for the payer; status, capture and refund answer as PayPal does', async () => {
  const paymentId = randomBytes(16).toString('hex');
  const reg = await walletPsp.register(ctx, {
    paymentId,
    amountMinor: 1234,
    currency: 'USD',
    method: 'wallet_psp',
    email: null,
    externalUserId: 'paygate-sandbox-check',
    returnUrl: 'https://example.com/return',
    metadata: {},
    directQr: false,
  });
  assert.ok(reg.providerRef);
  assert.match(reg.checkoutUrl, /^https:\/\/www\.sandbox\.paypal\.com\//);

  const order = (await orders.getOrder({ id: reg.providerRef })).result;
  assert.equal(order.status, 'PAYER_ACTION_REQUIRED');
  assert.equal(order.purchaseUnits?.[0]?.customId, paymentId);
  assert.equal(order.purchaseUnits?.[0]?.amount?.value, '12.34');

  const ref = { paymentId, providerRef: reg.providerRef };
  assert.deepEqual(await walletPsp.fetchStatus(ctx, ref), { kind: 'none' });
  // Not approved: PayPal refuses the capture, and there is nothing to refund.
  await assert.rejects(
    walletPsp.capture?.(ctx, ref) ?? Promise.reject(new Error('no capture')),
    (err: unknown) => err instanceof ProviderError && err.kind === 'rejected',
  );
  await assert.rejects(
    walletPsp.refund?.(ctx, {
      ...ref,
      refundId: randomBytes(16).toString('hex'),
      amountMinor: 100,
      paymentAmountMinor: 1234,
      currency: 'USD',
      reason: '',
    }) ?? Promise.reject(new Error('no refund')),
    (err: unknown) => err instanceof ProviderError && err.kind === 'rejected',
  );
});

test('a retried registration (same payment id) returns the same order', async () => {
  const paymentId = randomBytes(16).toString('hex');
  const input = {
    paymentId,
    amountMinor: 500,
    currency: 'EUR',
    method: 'wallet_psp',
    email: 'sandbox-buyer@example.com',
    externalUserId: 'paygate-sandbox-check',
    returnUrl: 'https://example.com/return',
    metadata: {},
    directQr: false,
  };
  const first = await walletPsp.register(ctx, input);
  const again = await walletPsp.register(ctx, input);
  assert.equal(again.providerRef, first.providerRef);
});

test('wrong client credentials are a rejection', async () => {
  const bad = {
    ...ctx,
    endpoint: { ...ctx.endpoint, credentials: { clientId: 'wrong', clientSecret: 'wrong' } },
  };
  await assert.rejects(
    walletPsp.fetchStatus(bad, { paymentId: 'x', providerRef: 'NOSUCHORDER00000' }),
    (err: unknown) => err instanceof ProviderError && err.kind === 'rejected',
  );
});
