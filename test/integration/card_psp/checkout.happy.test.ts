import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { cardPsp, signCardPspEvent } from '../../helpers/drivers/card_psp.js';
import {
  ProviderError,
  type ProviderContext,
  type RegisterPaymentInput,
} from '../../helpers/drivers/sim.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertError, count, paymentBody } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

// card_psp registration against the running simulator over real HTTP (test mode, docs/api.md#test-mode).

let gw: TestGateway;
let app: AppWithSecrets;
const PRODUCT_MISSING = 'provider checkout failed: products: at least one product id is required';

before(async () => {
  gw = await startTestGateway({}, { workers: false });
  app = await gw.createApp({ webhook_url: 'http://127.0.0.1:9/hook' });
});
after(async () => {
  await gw?.stop();
});

function cardBody(overrides: Record<string, unknown> = {}) {
  return paymentBody({
    currency: 'USD',
    method: 'card_psp',
    amount_minor: 1999,
    metadata: { card_psp_product_id: 'prod_pro_monthly' },
    ...overrides,
  });
}

function testCtx(): ProviderContext {
  const endpoint = gw.running.gw.providers.endpoint('card_psp', 'test');
  assert.ok(endpoint);
  return { mode: 'test', endpoint, timeoutMs: 5000, now: () => gw.running.gw.now() };
}

function pathOf(url: string): string {
  const u = new URL(url);
  return u.pathname + u.search;
}

test('POST /v1/payments with card_psp answers 201 with a simulator checkout page', async () => {
  const res = await gw.v1(app, 'POST', '/v1/payments', cardBody());
  assert.equal(res.status, 201, res.text);
  const body = res.json<{ payment_id: string; status: string; checkout_url: string }>();
  assert.equal(body.status, 'initiated');
  assert.deepEqual(Object.keys(body).sort(), ['checkout_url', 'payment_id', 'status']);
  const url = new URL(body.checkout_url);
  assert.equal(url.origin, gw.running.gw.urls.public);
  assert.match(url.pathname, /^\/sim\/card_psp\/checkout\/[0-9a-f-]{36}$/);

  const page = await fetch(gw.url + pathOf(body.checkout_url));
  assert.equal(page.status, 200);
  assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
  const html = await page.text();
  for (const action of ['pay', 'fail', 'cancel', 'expire']) {
    assert.ok(
      html.includes(`/sim/card_psp/payments/${url.pathname.split('/').pop()}/${action}"`),
      action,
    );
  }
  assert.ok(html.includes('<h1>Pay $19.99</h1>'));
  assert.ok(html.includes('prod_pro_monthly'));

  const read = await gw.v1(app, 'GET', `/v1/payments/${body.payment_id}`);
  assert.equal(read.status, 200);
  const p = read.json<{ provider: string; provider_ref: string; metadata: object }>();
  assert.equal(p.provider, 'card_psp');
  assert.equal(p.provider_ref, url.pathname.split('/').pop());
  assert.deepEqual(p.metadata, { card_psp_product_id: 'prod_pro_monthly' });
});

test('without metadata.card_psp_product_id the provider refuses: 502 with its text', async () => {
  const res = await gw.v1(app, 'POST', '/v1/payments', cardBody({ metadata: { order: 'A-1' } }));
  assertError(res, 502, PRODUCT_MISSING);
  const none = await gw.v1(app, 'POST', '/v1/payments', cardBody({ metadata: undefined }));
  assertError(none, 502, PRODUCT_MISSING);
  const empty = await gw.v1(
    app,
    'POST',
    '/v1/payments',
    cardBody({ metadata: { card_psp_product_id: '' } }),
  );
  assertError(empty, 502, PRODUCT_MISSING);
});

test('registration is idempotent on the payment id against the simulator', async () => {
  const input: RegisterPaymentInput = {
    paymentId: 'e'.repeat(32),
    amountMinor: 500,
    currency: 'EUR',
    method: 'card_psp',
    email: null,
    externalUserId: 'user-idem',
    returnUrl: 'https://shop.example.com/r',
    metadata: { card_psp_product_id: 'prod_x' },
    directQr: false,
  };
  const first = await cardPsp.register(testCtx(), input);
  const again = await cardPsp.register(testCtx(), input);
  const concurrent = await Promise.all([1, 2, 3].map(() => cardPsp.register(testCtx(), input)));
  for (const r of [again, ...concurrent]) {
    assert.equal(r.providerRef, first.providerRef);
    assert.equal(r.checkoutUrl, first.checkoutUrl);
  }
  const rows = await count(
    gw.databaseUrl,
    `paygate_sim.sim_objects WHERE provider = 'card_psp' AND kind = 'checkout' AND data->'metadata'->>'payment_id' = $1`,
    [input.paymentId],
  );
  assert.equal(rows, 1);
  // A different payment gets its own checkout.
  const other = await cardPsp.register(testCtx(), { ...input, paymentId: 'f'.repeat(32) });
  assert.notEqual(other.providerRef, first.providerRef);
});

test('the simulator refuses a wrong access token with a Polar-like 401', async () => {
  const ctx = testCtx();
  const bad: ProviderContext = {
    ...ctx,
    endpoint: {
      ...ctx.endpoint,
      credentials: { ...ctx.endpoint.credentials, accessToken: 'polar_oat_wrong' },
    },
  };
  await assert.rejects(
    cardPsp.register(bad, {
      paymentId: '1'.repeat(32),
      amountMinor: 100,
      currency: 'USD',
      method: 'card_psp',
      email: null,
      externalUserId: 'u',
      returnUrl: 'https://shop.example.com/r',
      metadata: { card_psp_product_id: 'prod_x' },
      directQr: false,
    }),
    (err: unknown) =>
      err instanceof ProviderError &&
      err.kind === 'rejected' &&
      err.providerText ===
        'The access token provided is expired, revoked, malformed, or invalid for other reasons.',
  );
  const raw = await fetch(`${gw.url}/sim/card_psp/v1/checkouts/whatever`);
  assert.equal(raw.status, 401);
  assert.equal((await raw.json()).error, 'invalid_token');
});

test('GET /v1/checkouts/:id and fetchStatus: open, then expired by the simulator clock', async () => {
  const res = await gw.v1(app, 'POST', '/v1/payments', cardBody());
  const { payment_id } = res.json<{ payment_id: string; checkout_url: string }>();
  const ref =
    new URL(res.json<{ checkout_url: string }>().checkout_url).pathname.split('/').pop() ?? '';
  const ctx = testCtx();
  assert.deepEqual(await cardPsp.fetchStatus(ctx, { paymentId: payment_id, providerRef: ref }), {
    kind: 'none',
  });
  gw.simClock.advance(61 * 60_000);
  try {
    assert.deepEqual(await cardPsp.fetchStatus(ctx, { paymentId: payment_id, providerRef: ref }), {
      kind: 'payment',
      outcome: 'canceled',
    });
    const pay = await fetch(`${gw.url}/sim/card_psp/payments/${ref}/pay`, { method: 'POST' });
    assert.equal(pay.status, 409);
    assert.equal(await pay.text(), 'checkout is expired, cannot pay');
  } finally {
    gw.simClock.reset();
  }
  const missing = await cardPsp
    .fetchStatus(ctx, {
      paymentId: payment_id,
      providerRef: '00000000-0000-4000-8000-000000000000',
    })
    .catch((e: unknown) => e);
  assert.ok(missing instanceof ProviderError);
  assert.deepEqual([missing.kind, missing.providerText], ['rejected', 'Not found']);
});

test('unknown reference, unknown action and actions not allowed in the state', async () => {
  const unknown = await fetch(`${gw.url}/sim/card_psp/payments/nope/pay`, { method: 'POST' });
  assert.equal(unknown.status, 404);
  assert.equal(await unknown.text(), 'unknown reference');
  const page = await fetch(`${gw.url}/sim/card_psp/checkout/nope`);
  assert.equal(page.status, 404);
  assert.equal(await page.text(), 'unknown reference');

  const res = await gw.v1(app, 'POST', '/v1/payments', cardBody());
  const ref =
    new URL(res.json<{ checkout_url: string }>().checkout_url).pathname.split('/').pop() ?? '';
  const act = async (action: string) => {
    const r = await fetch(`${gw.url}/sim/card_psp/payments/${ref}/${action}`, { method: 'POST' });
    return { status: r.status, text: await r.text(), type: r.headers.get('content-type') };
  };
  assert.deepEqual(await act('dance'), {
    status: 404,
    text: 'unknown action',
    type: 'text/plain; charset=utf-8',
  });
  for (const action of ['renew', 'refund', 'subscription_cancel', 'subscription_revoke']) {
    assert.deepEqual(await act(action), {
      status: 409,
      text: `checkout is open, ${action} needs a paid checkout`,
      type: 'text/plain; charset=utf-8',
    });
  }
});

test("an event signed by the simulator's signer verifies with the adapter, only under its secret", async () => {
  const endpoint = testCtx().endpoint;
  assert.match(endpoint.webhookSecret, /^whsec_/);
  const body = JSON.stringify({
    type: 'checkout.updated',
    timestamp: new Date().toISOString(),
    data: { id: 'x' },
  });
  const headers = signCardPspEvent(endpoint.webhookSecret, body);
  assert.match(headers['webhook-signature'] ?? '', /^v1,[A-Za-z0-9+/]+=*$/);
  assert.equal(await cardPsp.verifyWebhook(endpoint, headers, Buffer.from(body)), true);
  assert.equal(
    await cardPsp.verifyWebhook(
      { ...endpoint, webhookSecret: 'whsec_other' },
      headers,
      Buffer.from(body),
    ),
    false,
  );
  assert.equal(await cardPsp.verifyWebhook(endpoint, headers, Buffer.from(body + ' ')), false);
});
