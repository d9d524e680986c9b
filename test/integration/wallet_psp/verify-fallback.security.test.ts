/**
 * wallet_psp webhook verification when the certificate cannot be used: a certificate URL on
 * another host is never fetched, and one that cannot be fetched is not trusted; then the
 * provider's own verify-webhook-signature API (at the configured base URL, with OAuth)
 * decides, and only its SUCCESS verifies. The simulator answers that API as PayPal does.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, test } from 'node:test';
import type { ProviderEndpointConfig } from '../../../src/config.js';
import {
  walletPsp,
  clearTokenCache,
  clearCertCache,
  resetFallbackAllowance,
  walletPspSim,
  type WalletPspSim,
} from '../../helpers/drivers/wallet_psp.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

let gw: TestGateway;
let sim: WalletPspSim;
let endpoint: ProviderEndpointConfig;
let otherHost: Server;
let otherHits = 0;
let otherOrigin: string;

before(async () => {
  gw = await startTestGateway();
  sim = walletPspSim(gw.running.gw, gw.simClock);
  const e = gw.running.gw.providers.endpoint('wallet_psp', 'test');
  assert.ok(e);
  endpoint = e;
  otherHost = createServer((_req, res) => {
    otherHits++;
    res.end('not a certificate');
  });
  await new Promise<void>((r) => otherHost.listen(0, '127.0.0.1', r));
  otherOrigin = `http://127.0.0.1:${(otherHost.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise<void>((r) => otherHost?.close(() => r()));
  await gw?.stop();
});
beforeEach(() => {
  otherHits = 0;
  clearCertCache();
  clearTokenCache();
  resetFallbackAllowance();
});

/** A delivery signed by the simulator, of an event type the gateway acknowledges as none. */
async function delivery() {
  const { headers, body } = await sim.signedEvent(
    'CUSTOMER.DISPUTE.CREATED',
    'capture',
    { dispute_id: 'PP-D-1', status: 'OPEN' },
    'A new dispute opened',
  );
  return { headers: { ...headers }, body };
}

/** The same certificate path, on a host the adapter must not fetch from. */
function onOtherHost(certUrl: string): string {
  return otherOrigin + new URL(certUrl).pathname;
}

const verify = (headers: Record<string, string>, body: string, e = endpoint) =>
  walletPsp.verifyWebhook(e, headers, Buffer.from(body));

test('a certificate on the configured host verifies locally, without asking the provider', async () => {
  const d = await delivery();
  assert.equal(await verify(d.headers, d.body), true);
});

test('a certificate URL on another host is never fetched: the provider says SUCCESS, verified', async () => {
  const d = await delivery();
  d.headers['paypal-cert-url'] = onOtherHost(d.headers['paypal-cert-url'] ?? '');
  assert.equal(await verify(d.headers, d.body), true);
  assert.equal(otherHits, 0);
});

test('the provider says FAILURE (tampered body, a certificate not its own): refused', async () => {
  const d = await delivery();
  const certUrl = onOtherHost(d.headers['paypal-cert-url'] ?? '');
  const tampered = d.body.replace('OPEN', 'WON');
  assert.notEqual(tampered, d.body);
  assert.equal(await verify({ ...d.headers, 'paypal-cert-url': certUrl }, tampered), false);
  const foreign = `${otherOrigin}/v1/notifications/certs/CERT-attacker`;
  assert.equal(await verify({ ...d.headers, 'paypal-cert-url': foreign }, d.body), false);
  assert.equal(otherHits, 0);
});

test('a certificate that cannot be fetched from the configured host: the provider decides', async () => {
  const d = await delivery();
  // Same origin and base path, but nothing served there.
  const missing = `${endpoint.baseUrl}/v1/notifications/certs/CERT-gone`;
  assert.equal(await verify({ ...d.headers, 'paypal-cert-url': missing }, d.body), false);
});

test('no trustworthy answer from the provider (wrong credentials, unreachable): refused', async () => {
  const d = await delivery();
  const headers = {
    ...d.headers,
    'paypal-cert-url': onOtherHost(d.headers['paypal-cert-url'] ?? ''),
  };
  const wrongKey = { ...endpoint, credentials: { ...endpoint.credentials, clientSecret: 'wrong' } };
  assert.equal(await verify(headers, d.body, wrongKey), false);
  const down = { ...endpoint, baseUrl: 'http://127.0.0.1:9/sim/wallet_psp' };
  assert.equal(await verify(headers, d.body, down), false);
});

test('over HTTP: the gateway acknowledges a delivery the provider verified, and refuses one it did not', async () => {
  const d = await delivery();
  const certUrl = onOtherHost(d.headers['paypal-cert-url'] ?? '');
  const post = (body: string) =>
    fetch(`${gw.url}/webhooks/wallet_psp`, {
      method: 'POST',
      headers: { ...d.headers, 'paypal-cert-url': certUrl, 'content-type': 'application/json' },
      body,
    });
  const ok = await post(d.body);
  assert.equal(ok.status, 200, await ok.clone().text());
  const bad = await post(d.body.replace('OPEN', 'WON'));
  assert.equal(bad.status, 401);
  assert.equal(await bad.text(), 'bad signature');
  assert.equal(otherHits, 0);
});

test('fallback calls are bounded: past a burst of 20, deliveries are refused without asking', async () => {
  const d = await delivery();
  const headers = {
    ...d.headers,
    'paypal-cert-url': onOtherHost(d.headers['paypal-cert-url'] ?? ''),
  };
  const results: boolean[] = [];
  for (let i = 0; i < 21; i++) results.push(await verify(headers, d.body));
  assert.deepEqual(results, [...Array(20).fill(true), false]);
  assert.equal(otherHits, 0);
});

test('the verify API refuses a request without its required fields (400, PayPal error shape)', async () => {
  const creds = endpoint.credentials;
  const token = await fetch(`${endpoint.baseUrl}/v1/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${creds.clientId}:${creds.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  const { access_token } = (await token.json()) as { access_token: string };
  const res = await fetch(`${endpoint.baseUrl}/v1/notifications/verify-webhook-signature`, {
    method: 'POST',
    headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ auth_algo: 'SHA256withRSA' }),
  });
  assert.equal(res.status, 400);
  const err = (await res.json()) as { name: string; details: { field: string; issue: string }[] };
  assert.equal(err.name, 'INVALID_REQUEST');
  assert.deepEqual(
    err.details.map((x) => [x.field, x.issue]),
    [['cert_url', 'MISSING_REQUIRED_PARAMETER']],
  );
  const anon = await fetch(`${endpoint.baseUrl}/v1/notifications/verify-webhook-signature`, {
    method: 'POST',
    body: '{}',
  });
  assert.equal(anon.status, 401);
});
