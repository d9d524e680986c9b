import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { validateEvent } from '@polar-sh/sdk/webhooks';
import { Webhook } from 'standardwebhooks';
import type { ProviderEndpointConfig } from '../../src/config.js';
import { cardPsp } from '../../src/providers/card_psp/index.js';

// Polar's own documented payloads (test/fixtures/card_psp, each naming its page): Polar's SDK
// accepts each one, the adapter verifies it once signed under either key derivation, and maps
// it to the canonical outcome.

const DIR = fileURLToPath(new URL('../fixtures/card_psp/', import.meta.url));
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const PAYMENT_ID = '0a1b2c3d4e5f60718293a4b5c6d7e9f1';
const REFUND_ID = '7c1e9a52-3f0d-4b8e-9a61-2d5c8f4e1b07';

/** The fixture as Polar sends it: the documentation notes stripped, the rest untouched. */
function fixtureBody(name: string): string {
  const body = JSON.parse(readFileSync(DIR + name, 'utf8')) as Record<string, unknown>;
  assert.match(
    String(body._source),
    /^https:\/\/(docs\.polar\.sh|polar\.mintlify\.app)\//,
    `${name} names its source`,
  );
  delete body._source;
  delete body._adapted;
  return JSON.stringify(body);
}

const webhookFixtures = readdirSync(DIR).filter((f) => f.startsWith('webhook.'));

function headersFor(id: string, signature: string, at: Date): IncomingHttpHeaders {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  };
}

/** A newer Polar endpoint: the Standard Webhooks library given the secret as issued. */
function signNewEndpoint(id: string, at: Date, body: string): IncomingHttpHeaders {
  return headersFor(id, new Webhook(SECRET).sign(id, at, body), at);
}

/** An older Polar endpoint: the UTF-8 bytes of the whole secret, the key Polar's SDK verifies. */
function signOldEndpoint(id: string, at: Date, body: string): IncomingHttpHeaders {
  const key = Buffer.from(SECRET, 'utf8').toString('base64');
  return headersFor(id, new Webhook(key).sign(id, at, body), at);
}

const endpoint: ProviderEndpointConfig = {
  baseUrl: 'http://127.0.0.1:9',
  credentials: {},
  webhookSecret: SECRET,
};

test('the fixtures are there', () => {
  assert.deepEqual(webhookFixtures.sort(), [
    'webhook.refund_created.json',
    'webhook.refund_updated.succeeded.json',
  ]);
});

test("Polar's SDK (validateEvent: signature and payload schema) accepts every documented webhook", () => {
  for (const name of webhookFixtures) {
    const body = fixtureBody(name);
    const headers = signOldEndpoint(`msg_${name}`, new Date(), body);
    const event = validateEvent(body, headers as Record<string, string>, SECRET);
    assert.equal(event.type, (JSON.parse(body) as { type: string }).type, name);
  }
});

test('every documented webhook verifies through the adapter under either key, and not once tampered', async () => {
  for (const name of webhookFixtures) {
    const body = fixtureBody(name);
    const raw = Buffer.from(body, 'utf8');
    const at = new Date();
    for (const headers of [
      signNewEndpoint('msg_a', at, body),
      signOldEndpoint('msg_b', at, body),
    ]) {
      assert.equal(await cardPsp.verifyWebhook(endpoint, headers, raw), true, name);
      const tampered = Buffer.from(body.replace('"amount":1999', '"amount":1998'), 'utf8');
      assert.notDeepEqual(tampered, raw);
      assert.equal(await cardPsp.verifyWebhook(endpoint, headers, tampered), false, name);
    }
  }
});

test('a documented refund.updated that succeeded, naming our payment, records the refund', () => {
  const body = fixtureBody('webhook.refund_updated.succeeded.json');
  assert.deepEqual(cardPsp.parseWebhook({}, Buffer.from(body, 'utf8')), {
    eventType: 'refund.updated',
    paymentId: PAYMENT_ID,
    action: {
      kind: 'refund',
      outcome: 'succeeded',
      providerRefundRef: REFUND_ID,
      amountMinor: 1999,
    },
  });
});

test('the documented refund.created (empty metadata, as from the dashboard) is acknowledged without effect', () => {
  // Before the fix the adapter refused it as a bad reference (400), and Polar would redeliver it.
  const body = fixtureBody('webhook.refund_created.json');
  assert.deepEqual(cardPsp.parseWebhook({}, Buffer.from(body, 'utf8')), {
    eventType: 'refund.created',
    paymentId: undefined,
    action: { kind: 'none' },
  });
});
