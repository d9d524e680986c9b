import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { Gateway } from '../../../src/gateway.js';
import { ProviderError, type ProviderContext, SimStore } from '../../helpers/drivers/sim.js';
import {
  walletPsp,
  walletPspSim,
  loadSigningKey,
  type SigningKeyRecord,
} from '../../helpers/drivers/wallet_psp.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

let gw: TestGateway;
let core: Gateway;
let db: pg.Client;
let app: AppWithSecrets;
let ctx: ProviderContext;

before(async () => {
  gw = await startTestGateway();
  core = gw.running.gw;
  db = new pg.Client({ connectionString: gw.databaseUrl });
  await db.connect();
  app = await gw.createApp({ webhook_url: 'http://127.0.0.1:9/hook' });
  const endpoint = core.providers.endpoint('wallet_psp', 'test');
  assert.ok(endpoint);
  ctx = { mode: 'test', endpoint, timeoutMs: 5000, now: () => core.now() };
});
after(async () => {
  await db?.end();
  await gw?.stop();
});

async function count(kind: string, where = 'true', values: unknown[] = []): Promise<number> {
  const res = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM paygate_sim.sim_objects WHERE provider = 'wallet_psp' AND kind = $1 AND ${where}`,
    [kind, ...values],
  );
  return res.rows[0]?.n ?? 0;
}

/** The simulator page as a browser would load it (public URL mapped to the bound address). */
function local(url: string): string {
  return url.replace(core.urls.public, gw.url);
}

const paymentBody = (over: Record<string, unknown> = {}) => ({
  external_user_id: 'user-1',
  email: 'buyer@example.com',
  amount_minor: 1234,
  currency: 'EUR',
  method: 'wallet_psp',
  return_url: 'https://shop.example/return',
  ...over,
});

let seq = 0;
function newPaymentId(): string {
  seq++;
  return `${Date.now().toString(16)}${seq.toString(16)}`.padEnd(32, 'a').slice(0, 32);
}

function registerInput(paymentId: string, over: Partial<{ amountMinor: number }> = {}) {
  return {
    paymentId,
    amountMinor: over.amountMinor ?? 500,
    currency: 'USD',
    method: 'wallet_psp',
    email: null,
    externalUserId: 'u',
    returnUrl: 'https://shop.example/r',
    metadata: {},
    directQr: false,
  };
}

async function rawToken(): Promise<string> {
  const creds = ctx.endpoint.credentials;
  const res = await fetch(`${ctx.endpoint.baseUrl}/v1/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${creds.clientId}:${creds.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  assert.equal(res.status, 200);
  return ((await res.json()) as { access_token: string }).access_token;
}

describe('POST /v1/payments with wallet_psp', () => {
  test('201 with a checkout URL on the simulator, whose approval page has the four buttons', async () => {
    const res = await gw.v1(app, 'POST', '/v1/payments', paymentBody());
    assert.equal(res.status, 201, res.text);
    const body = res.json<{ payment_id: string; status: string; checkout_url: string }>();
    assert.equal(body.status, 'initiated');
    assert.ok(
      body.checkout_url.startsWith(`${core.urls.public}/sim/wallet_psp/`),
      body.checkout_url,
    );

    const page = await fetch(local(body.checkout_url));
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const html = await page.text();
    for (const a of ['pay', 'fail', 'cancel', 'expire']) {
      assert.ok(html.includes(`value="${a}"`), `button ${a}`);
    }
    assert.ok(html.includes('<h1>Pay €12.34 with your wallet</h1>'));

    const read = await gw.v1(app, 'GET', `/v1/payments/${body.payment_id}`);
    assert.equal(read.status, 200);
    const view = read.json<{ provider: string; provider_ref: string; status: string }>();
    assert.equal(view.provider, 'wallet_psp');
    assert.match(view.provider_ref, /^[0-9A-Z]{17}$/);
    assert.ok(html.includes(view.provider_ref));
    // The order carries our payment id and the amount as the provider's decimal string.
    const stored = await db.query<{
      data: { order: { purchase_units: { custom_id: string; amount: object }[] } };
    }>(
      `SELECT data FROM paygate_sim.sim_objects WHERE provider = 'wallet_psp' AND kind = 'order' AND id = $1`,
      [view.provider_ref],
    );
    const unit = stored.rows[0]?.data.order.purchase_units[0];
    assert.equal(unit?.custom_id, body.payment_id);
    assert.deepEqual(unit?.amount, { currency_code: 'EUR', value: '12.34' });
  });
});

describe('adapter against the simulator', () => {
  test('registration is idempotent on the payment id: one order', async () => {
    const pid = newPaymentId();
    const a = await walletPsp.register(ctx, registerInput(pid));
    const b = await walletPsp.register(ctx, registerInput(pid));
    assert.equal(a.providerRef, b.providerRef);
    assert.equal(a.checkoutUrl, b.checkoutUrl);
    assert.equal(
      await count('order', `data->'order'->'purchase_units'->0->>'custom_id' = $2`, [pid]),
      1,
    );
  });

  test('the OAuth token is reused across calls and renewed after the provider expires it', async () => {
    const pid = newPaymentId();
    const reg = await walletPsp.register(ctx, registerInput(pid));
    const before = await count('access_token');
    assert.ok(before >= 1);
    await walletPsp.fetchStatus(ctx, { paymentId: pid, providerRef: reg.providerRef });
    await walletPsp.register(ctx, registerInput(newPaymentId()));
    await walletPsp.fetchStatus(ctx, { paymentId: pid, providerRef: reg.providerRef });
    assert.equal(await count('access_token'), before);

    // The provider's clock passes the token lifetime: a 401, one new token, one retry.
    gw.simClock.advance(10 * 3600_000);
    try {
      assert.deepEqual(
        await walletPsp.fetchStatus(ctx, { paymentId: pid, providerRef: reg.providerRef }),
        { kind: 'none' },
      );
      assert.equal(await count('access_token'), before + 1);
    } finally {
      gw.simClock.reset();
    }
  });

  test('capture of an order the buyer has not approved: rejected with the provider text', async () => {
    const pid = newPaymentId();
    const reg = await walletPsp.register(ctx, registerInput(pid));
    await assert.rejects(
      walletPsp.capture!(ctx, { paymentId: pid, providerRef: reg.providerRef }),
      (err: unknown) =>
        err instanceof ProviderError &&
        err.kind === 'rejected' &&
        err.providerText === 'Payer has not yet approved the Order for payment.',
    );
  });

  test('capture of an unknown order: rejected', async () => {
    await assert.rejects(
      walletPsp.capture!(ctx, { paymentId: newPaymentId(), providerRef: 'NOSUCHORDER000000' }),
      (err: unknown) =>
        err instanceof ProviderError &&
        err.kind === 'rejected' &&
        err.providerText ===
          'Specified resource ID does not exist. Please check the resource ID and try again.',
    );
  });

  test('provider rules: a zero amount is refused verbatim', async () => {
    await assert.rejects(
      walletPsp.register(ctx, registerInput(newPaymentId(), { amountMinor: 0 })),
      (err: unknown) =>
        err instanceof ProviderError &&
        err.kind === 'rejected' &&
        err.providerText === 'Must be greater than zero.',
    );
  });

  test('wrong client credentials: rejected with the token endpoint text', async () => {
    const bad: ProviderContext = {
      ...ctx,
      endpoint: {
        ...ctx.endpoint,
        credentials: { ...ctx.endpoint.credentials, clientId: 'Anotaclient' },
      },
    };
    await assert.rejects(
      walletPsp.register(bad, registerInput(newPaymentId())),
      (err: unknown) =>
        err instanceof ProviderError &&
        err.kind === 'rejected' &&
        err.providerText === 'Client Authentication failed',
    );
  });

  test('an unreachable provider is indeterminate', async () => {
    const down: ProviderContext = {
      ...ctx,
      endpoint: { ...ctx.endpoint, baseUrl: 'http://127.0.0.1:9/sim/wallet_psp' },
    };
    await assert.rejects(
      walletPsp.register(down, registerInput(newPaymentId())),
      (err: unknown) => err instanceof ProviderError && err.kind === 'indeterminate',
    );
  });

  test('an event built by the simulator verifies with the adapter and parses', async () => {
    const sim = walletPspSim(core, gw.simClock);
    const pid = newPaymentId();
    const resource = {
      id: 'CAPTURE0000000001',
      status: 'COMPLETED',
      amount: { currency_code: 'USD', value: '5.00' },
      custom_id: pid,
      supplementary_data: { related_ids: { order_id: 'ORDER000000000001' } },
    };
    const ev = await sim.signedEvent('PAYMENT.CAPTURE.COMPLETED', 'capture', resource, 'done');
    const raw = Buffer.from(ev.body);
    assert.equal(await walletPsp.verifyWebhook(ctx.endpoint, ev.headers, raw), true);
    assert.equal(
      await walletPsp.verifyWebhook(
        ctx.endpoint,
        ev.headers,
        Buffer.from(ev.body.replace('5.00', '9.00')),
      ),
      false,
    );
    assert.equal(
      await walletPsp.verifyWebhook(
        { ...ctx.endpoint, webhookSecret: 'WH-OTHER' },
        ev.headers,
        raw,
      ),
      false,
    );
    assert.deepEqual(walletPsp.parseWebhook(ev.headers, raw), {
      eventType: 'PAYMENT.CAPTURE.COMPLETED',
      paymentId: pid,
      providerRef: 'ORDER000000000001',
      action: {
        kind: 'payment',
        outcome: 'succeeded',
        paid: { amountMinor: 500, currency: 'USD' },
      },
    });
    // The certificate the simulator serves is an X.509 certificate.
    const cert = await fetch(ev.headers['paypal-cert-url'] as string);
    assert.equal(cert.status, 200);
    assert.match(await cert.text(), /^-----BEGIN CERTIFICATE-----\n/);
  });

  test('one signing key for every simulator instance on the database', async () => {
    const a = await walletPspSim(core, gw.simClock).signingKey();
    const other = { ...core } as Gateway; // another instance: its own in-memory cache
    const b = await walletPspSim(other, gw.simClock).signingKey();
    assert.equal(a.keyId, b.keyId);
    assert.equal(await count('signing_key'), 1);
  });

  test('two instances creating the signing key at once end up with the stored one', async () => {
    const store = new SimStore<SigningKeyRecord>(core.pool, 'wallet_psp', 'signing_key_race');
    const [a, b] = await Promise.all([
      loadSigningKey(store, Date.now()),
      loadSigningKey(store, Date.now()),
    ]);
    assert.equal(a.keyId, b.keyId);
    assert.equal(a.certificatePem, b.certificatePem);
    assert.equal(await count('signing_key_race'), 1);
  });
});

describe('simulator wire rules', () => {
  async function create(body: unknown, token: string, requestId?: string) {
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
    };
    if (requestId) headers['paypal-request-id'] = requestId;
    const res = await fetch(`${ctx.endpoint.baseUrl}/v2/checkout/orders`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }
  const order = (currency: string, value: string) => ({
    intent: 'CAPTURE',
    purchase_units: [{ custom_id: 'x', amount: { currency_code: currency, value } }],
  });
  const issue = (b: Record<string, unknown>) =>
    (b.details as { issue: string }[] | undefined)?.[0]?.issue;

  test('currency and amount rules', async () => {
    const token = await rawToken();
    const jpy = await create(order('JPY', '100.00'), token);
    assert.equal(jpy.status, 422);
    assert.equal(issue(jpy.body), 'CURRENCY_NOT_SUPPORTED');
    for (const value of ['12.3', '12', '12.345', '-1.00', 'abc']) {
      const r = await create(order('USD', value), token);
      assert.equal(r.status, 422, value);
      assert.equal(issue(r.body), 'DECIMAL_PRECISION', value);
    }
    const ok = await create(order('GBP', '0.01'), token);
    assert.equal(ok.status, 201);
    // No payment_source: PayPal answers CREATED (approve link), not PAYER_ACTION_REQUIRED.
    assert.equal(ok.body.status, 'CREATED');
  });

  test('create replays on the same request id (200, same order)', async () => {
    const token = await rawToken();
    const first = await create(order('USD', '1.00'), token, 'req-replay-1');
    const again = await create(order('USD', '1.00'), token, 'req-replay-1');
    assert.equal(first.status, 201);
    assert.equal(again.status, 200);
    assert.equal(again.body.id, first.body.id);
  });

  test('API calls need a valid bearer token; the token endpoint needs Basic credentials', async () => {
    const res = await fetch(`${ctx.endpoint.baseUrl}/v2/checkout/orders/X`, {
      headers: { authorization: 'Bearer nope' },
    });
    assert.equal(res.status, 401);
    assert.deepEqual(await res.json(), {
      error: 'invalid_token',
      error_description: 'Token signature verification failed',
    });
    const tok = await fetch(`${ctx.endpoint.baseUrl}/v1/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    assert.equal(tok.status, 401);
  });

  test('second capture with another request id: 422 ORDER_ALREADY_CAPTURED; the adapter takes it as done', async () => {
    const pid = newPaymentId();
    const reg = await walletPsp.register(ctx, registerInput(pid));
    // Approve without a gateway payment behind it: the approval event is refused, the
    // order stays APPROVED and uncaptured.
    const pay = await fetch(`${gw.url}/sim/wallet_psp/payments/${reg.providerRef}/pay`, {
      method: 'POST',
    });
    assert.equal(pay.status, 200);
    const token = await rawToken();
    const cap = await fetch(
      `${ctx.endpoint.baseUrl}/v2/checkout/orders/${reg.providerRef}/capture`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{}',
      },
    );
    assert.equal(cap.status, 201);
    const captured = (await cap.json()) as { status: string };
    assert.equal(captured.status, 'COMPLETED');
    const again = await fetch(
      `${ctx.endpoint.baseUrl}/v2/checkout/orders/${reg.providerRef}/capture`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{}',
      },
    );
    assert.equal(again.status, 422);
    assert.equal(issue((await again.json()) as Record<string, unknown>), 'ORDER_ALREADY_CAPTURED');
    await walletPsp.capture!(ctx, { paymentId: pid, providerRef: reg.providerRef });
    assert.deepEqual(
      await walletPsp.fetchStatus(ctx, { paymentId: pid, providerRef: reg.providerRef }),
      {
        kind: 'payment',
        outcome: 'succeeded',
        paid: { amountMinor: 500, currency: 'USD', feeMinor: 66 },
      },
    );
  });
});

describe('simulator actions', () => {
  test('unknown reference and unknown action: 404 with exact bodies', async () => {
    const r1 = await fetch(`${gw.url}/sim/wallet_psp/payments/NOSUCHORDER000000/pay`, {
      method: 'POST',
    });
    assert.equal(r1.status, 404);
    assert.equal(await r1.text(), 'unknown reference');
    const r2 = await fetch(`${gw.url}/sim/wallet_psp/payments/NOSUCHORDER000000/dance`, {
      method: 'POST',
    });
    assert.equal(r2.status, 404);
    assert.equal(await r2.text(), 'unknown action');
    const r3 = await fetch(`${gw.url}/sim/wallet_psp/checkoutnow?token=NOSUCHORDER000000`);
    assert.equal(r3.status, 404);
    assert.equal(await r3.text(), 'unknown reference');
  });

  test('an action the order state does not allow: 409', async () => {
    const reg = await walletPsp.register(ctx, registerInput(newPaymentId()));
    const cancel = await fetch(`${gw.url}/sim/wallet_psp/payments/${reg.providerRef}/cancel`, {
      method: 'POST',
    });
    assert.equal(cancel.status, 200);
    const pay = await fetch(`${gw.url}/sim/wallet_psp/payments/${reg.providerRef}/pay`, {
      method: 'POST',
    });
    assert.equal(pay.status, 409);
    assert.equal(
      await pay.text(),
      `cannot pay: order ${reg.providerRef} is VOIDED, not CREATED or PAYER_ACTION_REQUIRED`,
    );
    const expire = await fetch(`${gw.url}/sim/wallet_psp/payments/${reg.providerRef}/expire`, {
      method: 'POST',
    });
    assert.equal(expire.status, 409);
    assert.equal(await expire.text(), `cannot expire: order ${reg.providerRef} is VOIDED`);
  });
});
