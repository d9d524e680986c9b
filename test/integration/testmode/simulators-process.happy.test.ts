import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { freePort } from '../../../scripts/net.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { TEXT_PLAIN } from '../../helpers/core.js';
import { createTestDatabase } from '../../helpers/db.js';
import { eventually } from '../../helpers/eventually.js';
import { signedFetch } from '../../helpers/http.js';
import { kill, spawnGateway, spawnSimulators, type GatewayProcess } from '../../helpers/process.js';
import { Receiver } from '../../helpers/receiver.js';

// The simulators as their own OS process (`npm run simulators`) and a gateway with
// SIMULATORS=off pointed at them by SIMULATORS_URL: one full test-mode flow per provider,
// create -> pay at the simulator -> payment.succeeded delivered -> refund.

const ADMIN_TOKEN = 'sim-process-admin-token-0123456789';
const masterKeyHex = randomBytes(32).toString('hex');

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let receiver: Receiver;
let gateway: GatewayProcess | undefined;
let simulators: GatewayProcess | undefined;
let simUrl: string;
let app: AppWithSecrets;

before(async () => {
  db = await createTestDatabase();
  receiver = new Receiver();
  await receiver.start();
  // Each side needs the other's URL: the simulators' port is chosen first.
  const simPort = await freePort();
  simUrl = `http://127.0.0.1:${simPort}`;
  gateway = await spawnGateway({
    DATABASE_URL: db.url,
    ADMIN_TOKEN,
    MASTER_KEY: masterKeyHex,
    SIMULATORS: 'off',
    SIMULATORS_URL: simUrl,
    DELIVERY_BASE_DELAY_MS: '100',
  });
  simulators = await spawnSimulators(
    {
      DATABASE_URL: db.url,
      MASTER_KEY: masterKeyHex,
      GATEWAY_URL: gateway.url,
      SIMULATORS_URL: simUrl,
      SIMULATORS_PUBLIC_URL: simUrl,
    },
    simPort,
  );
  const res = await fetch(`${gateway.url}/admin/apps`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'external simulators', webhook_url: receiver.url }),
  });
  assert.equal(res.status, 201);
  app = (await res.json()) as AppWithSecrets;
  receiver.secret = app.webhook_secret;
});

after(async () => {
  if (gateway) await kill(gateway, 'SIGTERM');
  if (simulators) await kill(simulators, 'SIGTERM');
  await receiver?.stop();
  await db?.drop();
});

/** The app's webhook for a payment and event, once it has arrived with a valid signature. */
function webhook(paymentId: string, event: string) {
  return eventually(async (): Promise<Record<string, unknown> | undefined> => {
    const found = receiver.received.find((r) => {
      const b = JSON.parse(r.body) as { event?: string; payment_id?: string };
      return b.event === event && b.payment_id === paymentId;
    });
    if (found) assert.ok(found.signatureValid, `${event} signature`);
    return found && (JSON.parse(found.body) as Record<string, unknown>);
  }, `${event} for ${paymentId}`);
}

async function createAndPay(slug: string, body: Record<string, unknown>) {
  const res = await signedFetch(gateway!.url, app, 'POST', '/v1/payments', body);
  assert.equal(res.status, 201, res.text);
  const created = res.json<{ payment_id: string; checkout_url: string }>();
  // The buyer is sent to the simulators' process, which serves the page.
  assert.ok(created.checkout_url.startsWith(`${simUrl}/sim/${slug}/`), created.checkout_url);
  const page = await fetch(created.checkout_url, { headers: { accept: 'text/html' } });
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  const read = await signedFetch(gateway!.url, app, 'GET', `/v1/payments/${created.payment_id}`);
  const { provider, provider_ref: ref } = read.json<{ provider: string; provider_ref: string }>();
  assert.equal(provider, slug);
  const pay = await fetch(`${simUrl}/sim/${slug}/payments/${ref}/pay`, { method: 'POST' });
  const paid = (await pay.json()) as { gateway_status: number; gateway_body: string };
  assert.equal(pay.status, 200);
  assert.equal(paid.gateway_status, 200, paid.gateway_body);
  const event = await webhook(created.payment_id, 'payment.succeeded');
  assert.equal(event.status, 'succeeded');
  assert.equal(event.provider, slug);
  return { id: created.payment_id, ref };
}

async function refundThroughGateway(paymentId: string, amount: number) {
  const res = await signedFetch(gateway!.url, app, 'POST', '/v1/refunds', {
    payment_id: paymentId,
  });
  assert.equal(res.status, 201, res.text);
  const refund = res.json<{ status: string; amount_minor: number; payment_id: string }>();
  assert.equal(refund.status, 'succeeded');
  assert.equal(refund.amount_minor, amount);
  assert.equal(refund.payment_id, paymentId);
  const event = await webhook(paymentId, 'refund.succeeded');
  assert.equal(event.amount, amount);
  assert.equal(event.status, 'succeeded');
}

test('the gateway mounts no simulators of its own', async () => {
  const res = await fetch(`${gateway!.url}/sim/idr_psp/payments/x`);
  assert.equal(res.status, 404);
  assert.equal(res.headers.get('content-type'), TEXT_PLAIN);
  assert.equal(await res.text(), 'not found');
});

test('idr_psp: virtual account paid at the simulators process, refunded through the gateway', async () => {
  const p = await createAndPay('idr_psp', {
    external_user_id: 'buyer-1',
    email: 'buyer@example.com',
    amount_minor: 150000,
    currency: 'IDR',
    method: 'va_bca',
    return_url: 'https://shop.example/back',
  });
  await refundThroughGateway(p.id, 150000);
});

test('wallet_psp: approved and captured across the two processes, refunded through the gateway', async () => {
  const p = await createAndPay('wallet_psp', {
    external_user_id: 'buyer-3',
    email: 'wallet@example.com',
    amount_minor: 2500,
    currency: 'EUR',
    method: 'wallet_psp',
    return_url: 'https://shop.example/back',
  });
  await refundThroughGateway(p.id, 2500);
});

test('card_psp: paid at the simulators process, refunded at the provider (its refund event)', async () => {
  const p = await createAndPay('card_psp', {
    external_user_id: 'buyer-2',
    email: 'card@example.com',
    amount_minor: 1999,
    currency: 'USD',
    method: 'card_psp',
    return_url: 'https://shop.example/back',
    metadata: { card_psp_product_id: 'prod_basic' },
  });
  const res = await fetch(`${simUrl}/sim/card_psp/payments/${p.ref}/refund`, { method: 'POST' });
  const result = (await res.json()) as { gateway_status: number; gateway_body: string };
  assert.equal(res.status, 200);
  assert.equal(result.gateway_status, 200, result.gateway_body);
  const event = await webhook(p.id, 'refund.succeeded');
  assert.equal(event.amount, 1999);
});
