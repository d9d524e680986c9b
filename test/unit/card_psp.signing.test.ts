import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { test } from 'node:test';
import { WebhookVerificationError, validateEvent } from '@polar-sh/sdk/webhooks';
import { Webhook } from 'standardwebhooks';
import type { ProviderEndpointConfig } from '../../src/config.js';
import { cardPsp } from '../../src/providers/card_psp/index.js';

// Inbound card_psp signatures made by the providers' own libraries. Polar signs webhooks of
// endpoints created before 2026-09-08 with the UTF-8 bytes of the whole secret, and newer
// ones with the Standard Webhooks key (the base64 after `whsec_`, decoded): the adapter
// accepts both, as Polar's own SDK does.

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OTHER_SECRET = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const BODY = JSON.stringify({
  type: 'order.paid',
  timestamp: '2026-09-10T00:00:00Z',
  data: { id: 'ord_1', metadata: { payment_id: 'a'.repeat(32) } },
});

/** Signs as a newer Polar endpoint: the Standard Webhooks library given the secret as issued. */
function signNewEndpoint(secret: string, id: string, at: Date, body: string): IncomingHttpHeaders {
  const signature = new Webhook(secret).sign(id, at, body);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  };
}

/**
 * Signs as an older Polar endpoint: the key Polar's SDK verifies with, the secret's UTF-8
 * bytes (the SDK hands the library the base64 of the string, which the library decodes).
 */
function signOldEndpoint(secret: string, id: string, at: Date, body: string): IncomingHttpHeaders {
  const signature = new Webhook(Buffer.from(secret, 'utf8').toString('base64')).sign(id, at, body);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  };
}

function endpoint(secret = SECRET): ProviderEndpointConfig {
  return { baseUrl: 'http://127.0.0.1:9', credentials: {}, webhookSecret: secret };
}

const verify = (h: IncomingHttpHeaders, body = BODY, secret = SECRET) =>
  cardPsp.verifyWebhook(endpoint(secret), h, Buffer.from(body, 'utf8'));

test('a webhook of an endpoint created since 2026-09-08 (Standard Webhooks key) verifies', async () => {
  const h = signNewEndpoint(SECRET, 'msg_new_1', new Date(), BODY);
  // The standard library itself accepts it with the secret as issued...
  assert.deepEqual(new Webhook(SECRET).verify(BODY, h as Record<string, string>), JSON.parse(BODY));
  // ...and so must the adapter.
  assert.equal(await verify(h), true);
});

test('a webhook of an older endpoint (UTF-8 key, as the Polar SDK verifies) verifies', async () => {
  const h = signOldEndpoint(SECRET, 'msg_old_1', new Date(), BODY);
  // Polar's SDK verifies the signature, then refuses this short body as a schema mismatch:
  // anything but a verification error means the signature passed.
  assert.throws(
    () => validateEvent(BODY, h as Record<string, string>, SECRET),
    (err: unknown) => !(err instanceof WebhookVerificationError),
  );
  assert.equal(await verify(h), true);
});

test('either derivation with another secret, or a tampered body, does not verify', async () => {
  const at = new Date();
  assert.equal(await verify(signNewEndpoint(OTHER_SECRET, 'msg_x', at, BODY)), false);
  assert.equal(await verify(signOldEndpoint(OTHER_SECRET, 'msg_y', at, BODY)), false);
  const tampered = BODY.replace('ord_1', 'ord_2');
  assert.equal(await verify(signNewEndpoint(SECRET, 'msg_z', at, BODY), tampered), false);
  assert.equal(await verify(signOldEndpoint(SECRET, 'msg_w', at, BODY), tampered), false);
});

test('both derivations honour the 5 minute tolerance', async () => {
  const old = new Date(Date.now() - 301_000);
  assert.equal(await verify(signNewEndpoint(SECRET, 'msg_t1', old, BODY)), false);
  assert.equal(await verify(signOldEndpoint(SECRET, 'msg_t2', old, BODY)), false);
});

test('a secret issued without the whsec_ prefix is used both ways too', async () => {
  const bare = SECRET.slice('whsec_'.length);
  const at = new Date();
  assert.equal(await verify(signNewEndpoint(bare, 'msg_b1', at, BODY), BODY, bare), true);
  assert.equal(await verify(signOldEndpoint(bare, 'msg_b2', at, BODY), BODY, bare), true);
});
