import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { Polar } from '@polar-sh/sdk';
import type { ProviderContext } from '../../src/providers/types.js';
import { ProviderError } from '../../src/providers/types.js';
import { cardPsp } from '../../src/providers/card_psp/index.js';

// The card_psp adapter against Polar's sandbox (npm run test:sandbox). Creates open checkout
// sessions only: nothing is paid, they expire by themselves.

const env = (name: string) => process.env[name] ?? '';
const ctx: ProviderContext = {
  mode: 'sandbox',
  endpoint: {
    baseUrl: env('CARD_PSP_SANDBOX_BASE_URL'),
    credentials: {
      accessToken: env('CARD_PSP_SANDBOX_ACCESS_TOKEN'),
      webhookSecret: env('CARD_PSP_SANDBOX_WEBHOOK_SECRET'),
    },
    webhookSecret: env('CARD_PSP_SANDBOX_WEBHOOK_SECRET'),
  },
  timeoutMs: 20_000,
  now: () => Date.now(),
};
const productId = env('CARD_PSP_SANDBOX_PRODUCT_ID');
const polar = new Polar({
  accessToken: ctx.endpoint.credentials.accessToken ?? '',
  serverURL: ctx.endpoint.baseUrl,
});

function input(metadata: Record<string, unknown>) {
  return {
    paymentId: randomBytes(16).toString('hex'),
    amountMinor: 1999,
    currency: 'USD',
    method: 'card_psp',
    email: 'sandbox-buyer@example.com',
    externalUserId: 'paygate-sandbox-check',
    returnUrl: 'https://example.com/return',
    metadata,
    directQr: false,
  };
}

test('register opens a checkout that Polar reports as the adapter registered it', async () => {
  const reg = await cardPsp.register(ctx, input({ card_psp_product_id: productId }));
  assert.ok(reg.providerRef);
  assert.match(reg.checkoutUrl, /^https:\/\//);
  assert.ok(reg.expiresAt && reg.expiresAt.getTime() > Date.now());
  const checkout = await polar.checkouts.get({ id: reg.providerRef });
  assert.equal(checkout.status, 'open');
  assert.equal(checkout.totalAmount, 1999);
  assert.equal(checkout.currency.toLowerCase(), 'usd');
  assert.equal(checkout.metadata.payment_id !== undefined, true);
  assert.deepEqual(
    await cardPsp.fetchStatus(ctx, { paymentId: 'x', providerRef: reg.providerRef }),
    {
      kind: 'none',
    },
  );
});

test('a checkout without a product is Polar refusing it, in its own words', async () => {
  await assert.rejects(cardPsp.register(ctx, input({})), (err: unknown) => {
    assert.ok(err instanceof ProviderError);
    assert.equal(err.kind, 'rejected');
    assert.ok(err.providerText.length > 0);
    return true;
  });
});

test('a wrong access token is a rejection, not an unknown outcome', async () => {
  const bad = {
    ...ctx,
    endpoint: { ...ctx.endpoint, credentials: { accessToken: 'polar_oat_invalid' } },
  };
  await assert.rejects(
    cardPsp.fetchStatus(bad, {
      paymentId: 'x',
      providerRef: '00000000-0000-4000-8000-000000000000',
    }),
    (err: unknown) => err instanceof ProviderError && err.kind === 'rejected',
  );
});
