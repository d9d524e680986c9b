import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ProviderEndpointConfig } from '../../src/config.js';
import { walletPsp } from '../../src/providers/wallet_psp/index.js';
import { paypalSchemas } from '../helpers/paypalSdk.js';

// PayPal's own documented samples (test/fixtures/wallet_psp, each naming its page): the
// capture-completed webhook read by the adapter and accepted by PayPal's SDK schema, and the
// verify-webhook-signature exchange the adapter's fallback must speak.

const DIR = fileURLToPath(new URL('../fixtures/wallet_psp/', import.meta.url));

function fixture(name: string): Record<string, unknown> {
  const body = JSON.parse(readFileSync(DIR + name, 'utf8')) as Record<string, unknown>;
  assert.match(
    String(body._source),
    /^https:\/\/developer\.paypal\.com\//,
    `${name} names its source`,
  );
  delete body._source;
  delete body._adapted;
  return body;
}

test('the documented PAYMENT.CAPTURE.COMPLETED: the SDK schema accepts it, the adapter maps it to succeeded', async () => {
  const event = fixture('webhook.payment_capture_completed.json');
  const errors = (await paypalSchemas())('capture', event.resource);
  assert.deepEqual(errors, []);
  const parsed = walletPsp.parseWebhook({}, Buffer.from(JSON.stringify(event)));
  assert.deepEqual(parsed, {
    eventType: 'PAYMENT.CAPTURE.COMPLETED',
    paymentId: '0a1b2c3d4e5f60718293a4b5c6d7e901',
    providerRef: '5O190127TN364715T',
    action: {
      kind: 'payment',
      outcome: 'succeeded',
      // The capture's seller_receivable_breakdown.paypal_fee (0.37 USD) goes to the ledger.
      paid: { amountMinor: 251, currency: 'USD', feeMinor: 37 },
    },
  });
});

let server: Server;
let base: string;
let verifyRequests: Record<string, unknown>[] = [];
let answer: Record<string, unknown> = {};

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/v1/oauth2/token') {
        res.end(
          JSON.stringify({ access_token: 'A21AA-test', token_type: 'Bearer', expires_in: 32400 }),
        );
      } else if (req.url === '/v1/notifications/verify-webhook-signature') {
        verifyRequests.push(JSON.parse(body) as Record<string, unknown>);
        res.end(JSON.stringify(answer));
      } else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

test('the fallback sends the documented verify request and trusts only the documented SUCCESS', async () => {
  const documentedRequest = fixture('verify_webhook_signature.request.json');
  const endpoint: ProviderEndpointConfig = {
    baseUrl: base,
    credentials: { clientId: 'c', clientSecret: 's', webhookId: '1JE4291016473214C' },
    webhookSecret: '1JE4291016473214C',
  };
  const event = fixture('webhook.payment_capture_completed.json');
  const headers = {
    'paypal-transmission-id': String(documentedRequest.transmission_id),
    'paypal-transmission-time': String(documentedRequest.transmission_time),
    'paypal-transmission-sig': String(documentedRequest.transmission_sig),
    // PayPal's live certificate host: never fetched with a base URL elsewhere.
    'paypal-cert-url':
      'https://api.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-a5cafa77',
    'paypal-auth-algo': 'SHA256withRSA',
  };
  answer = fixture('verify_webhook_signature.response.json');
  verifyRequests = [];
  // The documented transmission is from 2016: verified as of when it was sent.
  const sentAt = Date.parse(String(documentedRequest.transmission_time));
  assert.equal(
    await walletPsp.verifyWebhook(endpoint, headers, Buffer.from(JSON.stringify(event)), sentAt),
    true,
  );
  assert.equal(verifyRequests.length, 1);
  const sent = verifyRequests[0] ?? {};
  assert.deepEqual(Object.keys(sent).sort(), Object.keys(documentedRequest).sort());
  assert.deepEqual(sent.webhook_event, event);
  assert.equal(sent.webhook_id, '1JE4291016473214C');
  assert.equal(sent.cert_url, headers['paypal-cert-url']);

  answer = { verification_status: 'FAILURE' };
  assert.equal(
    await walletPsp.verifyWebhook(endpoint, headers, Buffer.from(JSON.stringify(event))),
    false,
  );
  answer = { verification_status: 'success' };
  assert.equal(
    await walletPsp.verifyWebhook(endpoint, headers, Buffer.from(JSON.stringify(event))),
    false,
  );
});
