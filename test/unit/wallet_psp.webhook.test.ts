import assert from 'node:assert/strict';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { ProviderEndpointConfig } from '../../src/config.js';
import { BadReference } from '../../src/providers/types.js';
import { walletPsp } from '../../src/providers/wallet_psp/index.js';
import {
  certUrlAllowed,
  clearCertCache,
  crc32,
  signedMessage,
} from '../../src/providers/wallet_psp/webhook.js';
import { selfSignedCertificate } from '../../src/simulators/wallet_psp/x509.js';

// Independent CRC-32 for cross-checks: bitwise, no table.
function crc32Bitwise(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of data) {
    crc ^= b;
    for (let i = 0; i < 8; i++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

describe('crc32', () => {
  test('known vectors', () => {
    assert.equal(crc32(Buffer.alloc(0)), 0);
    assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
    assert.equal(crc32(Buffer.from('The quick brown fox jumps over the lazy dog')), 1095738169);
    assert.equal(crc32(Buffer.from('{}')), 2745614147);
    assert.equal(crc32(Uint8Array.from({ length: 256 }, (_, i) => i)), 688229491);
  });

  test('agrees with an independent implementation (and zlib where present)', async () => {
    const zlib = (await import('node:zlib')) as { crc32?: (d: Uint8Array) => number };
    for (const len of [1, 7, 64, 1000, 4096]) {
      const data = Uint8Array.from({ length: len }, (_, i) => (i * 31 + len) & 0xff);
      assert.equal(crc32(data), crc32Bitwise(data));
      if (zlib.crc32) assert.equal(crc32(data), zlib.crc32(data));
    }
  });

  test('the signed message uses the unsigned decimal CRC of the raw body', () => {
    assert.equal(
      signedMessage('tid-1', '2026-01-01T00:00:00Z', 'WH-ABC', Buffer.from('{}')),
      'tid-1|2026-01-01T00:00:00Z|WH-ABC|2745614147',
    );
  });
});

describe('certUrlAllowed', () => {
  const base = 'https://api.wallet.example/sandbox';
  test('only URLs under the configured base', () => {
    assert.equal(certUrlAllowed(`${base}/v1/notifications/certs/CERT-1`, base), true);
    assert.equal(certUrlAllowed(`${base}/v1/notifications/certs/CERT-1`, `${base}/`), true);
    assert.equal(certUrlAllowed('https://api.wallet.example/other/cert', base), false);
    assert.equal(certUrlAllowed(`${base}x/cert`, base), false);
    assert.equal(certUrlAllowed('https://api.wallet.example.evil.net/sandbox/c', base), false);
    assert.equal(certUrlAllowed('https://api.wallet.example@evil.net/sandbox/c', base), false);
    assert.equal(certUrlAllowed(`https://user@api.wallet.example/sandbox/c`, base), false);
    assert.equal(certUrlAllowed('http://api.wallet.example/sandbox/c', base), false);
    assert.equal(certUrlAllowed('https://api.wallet.example:8443/sandbox/c', base), false);
    assert.equal(certUrlAllowed(`${base}/c?x=1`, base), false);
    assert.equal(certUrlAllowed('not a url', base), false);
  });
});

describe('certUrlAllowed with a PayPal base URL', () => {
  const cert = (host: string) =>
    `https://${host}/v1/notifications/certs/CERT-360caa42-fca2a594-a5cafa77`;

  test('the SDK default host (api-m) accepts the certificate hosts PayPal sends, same environment', () => {
    for (const base of ['https://api-m.sandbox.paypal.com', 'https://api.sandbox.paypal.com']) {
      assert.equal(certUrlAllowed(cert('api.sandbox.paypal.com'), base), true, base);
      assert.equal(certUrlAllowed(cert('api-m.sandbox.paypal.com'), base), true, base);
      assert.equal(certUrlAllowed(cert('api.paypal.com'), base), false, base);
      assert.equal(certUrlAllowed(cert('api-m.paypal.com'), base), false, base);
    }
    for (const base of ['https://api-m.paypal.com', 'https://api.paypal.com/']) {
      assert.equal(certUrlAllowed(cert('api.paypal.com'), base), true, base);
      assert.equal(certUrlAllowed(cert('api-m.paypal.com'), base), true, base);
      assert.equal(certUrlAllowed(cert('api.sandbox.paypal.com'), base), false, base);
      assert.equal(certUrlAllowed(cert('api-m.sandbox.paypal.com'), base), false, base);
    }
  });

  test('nothing else: other hosts, look-alikes, http, ports, other paths, userinfo, queries', () => {
    const base = 'https://api-m.paypal.com';
    const refused = [
      cert('api.paypal.com.evil.net'),
      cert('evil.api.paypal.com'),
      cert('paypal.com'),
      cert('www.paypal.com'),
      'http://api.paypal.com/v1/notifications/certs/CERT-1',
      'https://api.paypal.com:8443/v1/notifications/certs/CERT-1',
      'https://api.paypal.com/v1/oauth2/token',
      'https://api.paypal.com/v1/notifications/certs/../../evil',
      'https://user@api.paypal.com/v1/notifications/certs/CERT-1',
      'https://api.paypal.com@evil.net/v1/notifications/certs/CERT-1',
      `${cert('api.paypal.com')}?x=1`,
      'not a url',
    ];
    for (const url of refused) assert.equal(certUrlAllowed(url, base), false, url);
  });
});

describe('verifyWebhook', () => {
  let server: Server;
  let hits = 0;
  const paths: string[] = [];
  let baseUrl: string;
  let origin: string;
  let publicKey: KeyObject;
  let privateKey: KeyObject;
  let certPem: string;
  let spkiPem: string;
  const webhookId = 'WH-7Y7254563A4550640';

  before(async () => {
    ({ publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 }));
    certPem = selfSignedCertificate({
      publicKey,
      privateKey,
      commonName: 'test',
      organization: 'test',
      notBefore: new Date(Date.now() - 86_400_000),
      notAfter: new Date(Date.now() + 86_400_000),
    });
    spkiPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    server = createServer((req, res) => {
      hits++;
      paths.push(req.url ?? '');
      if (req.url === '/api/v1/notifications/certs/CERT-x509') res.end(certPem);
      else if (req.url === '/api/v1/notifications/certs/CERT-spki') res.end(spkiPem);
      else if (req.url === '/evil/cert') res.end(spkiPem);
      else {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    baseUrl = `${origin}/api`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));
  beforeEach(() => {
    hits = 0;
    paths.length = 0;
    clearCertCache();
  });

  const endpoint = (): ProviderEndpointConfig => ({
    baseUrl,
    credentials: { clientId: 'c', clientSecret: 's', webhookId },
    webhookSecret: webhookId,
  });

  /** Signs as the provider does, computed here independently of the adapter's code. */
  function transmit(
    body: string,
    certPath = '/api/v1/notifications/certs/CERT-x509',
    sentAt = Date.now(),
  ) {
    const transmissionId = '69cd13f0-d67a-11e5-baa3-778b53f4ae55';
    const transmissionTime = new Date(sentAt).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const message = `${transmissionId}|${transmissionTime}|${webhookId}|${crc32Bitwise(Buffer.from(body))}`;
    return {
      'paypal-transmission-id': transmissionId,
      'paypal-transmission-time': transmissionTime,
      'paypal-transmission-sig': sign('sha256', Buffer.from(message), privateKey).toString(
        'base64',
      ),
      'paypal-cert-url': origin + certPath,
      'paypal-auth-algo': 'SHA256withRSA',
    };
  }

  const body = JSON.stringify({ id: 'WH-1', event_type: 'PAYMENT.CAPTURE.COMPLETED' });

  test('a known-good transmission verifies (X.509 certificate), and the certificate is cached', async () => {
    const h = transmit(body);
    assert.equal(await walletPsp.verifyWebhook(endpoint(), h, Buffer.from(body)), true);
    assert.equal(await walletPsp.verifyWebhook(endpoint(), h, Buffer.from(body)), true);
    assert.equal(hits, 1);
  });

  test('a transmission older than four days, or from the future, is not verified', async () => {
    const day = 86_400_000;
    const cert = '/api/v1/notifications/certs/CERT-x509';
    const now = Date.now();
    const at = (sentAt: number) => transmit(body, cert, sentAt);
    const ok = (h: Record<string, string>) =>
      walletPsp.verifyWebhook(endpoint(), h, Buffer.from(body), now);
    assert.equal(await ok(at(now - 3.9 * day)), true);
    assert.equal(await ok(at(now - 4 * day - 60_000)), false);
    assert.equal(await ok(at(now + 4 * 60_000)), true);
    assert.equal(await ok(at(now + 6 * 60_000)), false);
    assert.equal(await ok({ ...at(now), 'paypal-transmission-time': 'yesterday' }), false);
  });

  test('an SPKI public key PEM is accepted too', async () => {
    const h = transmit(body, '/api/v1/notifications/certs/CERT-spki');
    assert.equal(await walletPsp.verifyWebhook(endpoint(), h, Buffer.from(body)), true);
  });

  test('tampering with any signed part fails', async () => {
    const h = transmit(body);
    const ep = endpoint();
    const raw = Buffer.from(body);
    assert.equal(await walletPsp.verifyWebhook(ep, h, Buffer.from(body + ' ')), false);
    assert.equal(
      await walletPsp.verifyWebhook(ep, { ...h, 'paypal-transmission-id': 'other-id' }, raw),
      false,
    );
    assert.equal(
      await walletPsp.verifyWebhook(
        ep,
        { ...h, 'paypal-transmission-time': '2026-02-18T20:01:36Z' },
        raw,
      ),
      false,
    );
    assert.equal(
      await walletPsp.verifyWebhook({ ...ep, webhookSecret: 'WH-OTHER' }, h, raw),
      false,
    );
    const sig = Buffer.from(h['paypal-transmission-sig'], 'base64');
    sig[10] = (sig[10] ?? 0) ^ 1;
    assert.equal(
      await walletPsp.verifyWebhook(
        ep,
        { ...h, 'paypal-transmission-sig': sig.toString('base64') },
        raw,
      ),
      false,
    );
    assert.equal(
      await walletPsp.verifyWebhook(ep, { ...h, 'paypal-auth-algo': 'SHA1withRSA' }, raw),
      false,
    );
    const missing: Record<string, string> = { ...h };
    delete missing['paypal-transmission-sig'];
    assert.equal(await walletPsp.verifyWebhook(ep, missing, raw), false);
    assert.equal(await walletPsp.verifyWebhook(ep, transmit(body), raw), true);
  });

  test('a signature by another key fails', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const h = transmit(body);
    const message = `${h['paypal-transmission-id']}|${h['paypal-transmission-time']}|${webhookId}|${crc32Bitwise(Buffer.from(body))}`;
    h['paypal-transmission-sig'] = sign('sha256', Buffer.from(message), other).toString('base64');
    assert.equal(await walletPsp.verifyWebhook(endpoint(), h, Buffer.from(body)), false);
  });

  test('a certificate URL outside the base URL is never fetched', async () => {
    const h = transmit(body, '/evil/cert');
    assert.equal(await walletPsp.verifyWebhook(endpoint(), h, Buffer.from(body)), false);
    const lookAlike = { ...h, 'paypal-cert-url': `${baseUrl}.evil.example/cert` };
    assert.equal(await walletPsp.verifyWebhook(endpoint(), lookAlike, Buffer.from(body)), false);
    const otherHost = {
      ...h,
      'paypal-cert-url': `http://localhost:${new URL(origin).port}/api/v1/notifications/certs/CERT-x509`,
    };
    assert.equal(await walletPsp.verifyWebhook(endpoint(), otherHost, Buffer.from(body)), false);
    // No certificate was fetched; only the provider's verify API was asked, through its OAuth
    // token endpoint under the base URL (this server refuses it, so nothing verified).
    assert.deepEqual([...new Set(paths)], ['/api/v1/oauth2/token']);
  });

  test('an unreachable or missing certificate fails without throwing', async () => {
    const h = transmit(body, '/api/v1/notifications/certs/CERT-missing');
    assert.equal(await walletPsp.verifyWebhook(endpoint(), h, Buffer.from(body)), false);
    const down = { ...endpoint(), baseUrl: 'http://127.0.0.1:9/api' };
    const h2 = { ...h, 'paypal-cert-url': 'http://127.0.0.1:9/api/cert' };
    assert.equal(await walletPsp.verifyWebhook(down, h2, Buffer.from(body)), false);
  });

  test('an expired certificate fails', async () => {
    const expired = selfSignedCertificate({
      publicKey,
      privateKey,
      commonName: 'old',
      organization: 'old',
      notBefore: new Date(Date.now() - 3 * 86_400_000),
      notAfter: new Date(Date.now() - 86_400_000),
    });
    const saved = certPem;
    certPem = expired;
    try {
      const h = transmit(body);
      assert.equal(await walletPsp.verifyWebhook(endpoint(), h, Buffer.from(body)), false);
    } finally {
      certPem = saved;
    }
  });
});

describe('parseWebhook references', () => {
  const pid = 'a'.repeat(32);
  const parse = (event: object) => walletPsp.parseWebhook({}, Buffer.from(JSON.stringify(event)));

  test('orders: custom_id of the purchase unit and the order id', () => {
    const ev = parse({
      id: 'WH-1',
      event_type: 'CHECKOUT.ORDER.APPROVED',
      resource_type: 'checkout-order',
      summary: '',
      resource: { id: 'ORDER1', status: 'APPROVED', purchase_units: [{ custom_id: pid }] },
    });
    assert.deepEqual(ev, {
      eventType: 'CHECKOUT.ORDER.APPROVED',
      paymentId: pid,
      providerRef: 'ORDER1',
      action: { kind: 'capture_required' },
    });
  });

  test('captures: custom_id and supplementary_data.related_ids.order_id', () => {
    const ev = parse({
      event_type: 'PAYMENT.CAPTURE.COMPLETED',
      resource_type: 'capture',
      summary: '',
      resource: {
        id: 'CAP1',
        status: 'COMPLETED',
        amount: { currency_code: 'USD', value: '5.00' },
        custom_id: pid,
        supplementary_data: { related_ids: { order_id: 'ORDER1' } },
      },
    });
    assert.equal(ev.paymentId, pid);
    assert.equal(ev.providerRef, 'ORDER1');
    const onlyOrder = parse({
      event_type: 'PAYMENT.CAPTURE.COMPLETED',
      resource_type: 'capture',
      resource: {
        id: 'CAP1',
        amount: { currency_code: 'USD', value: '5.00' },
        supplementary_data: { related_ids: { order_id: 'ORDER2' } },
      },
    });
    assert.equal(onlyOrder.paymentId, undefined);
    assert.equal(onlyOrder.providerRef, 'ORDER2');
  });

  test('no reference: BadReference', () => {
    assert.throws(
      () =>
        parse({
          event_type: 'PAYMENT.CAPTURE.COMPLETED',
          resource_type: 'capture',
          resource: { id: 'CAP1' },
        }),
      (err: unknown) =>
        err instanceof BadReference &&
        err.message === 'PAYMENT.CAPTURE.COMPLETED carries no custom_id or order id',
    );
    assert.throws(
      () =>
        parse({
          event_type: 'CHECKOUT.ORDER.VOIDED',
          resource_type: 'checkout-order',
          resource: { status: 'VOIDED', purchase_units: [{}] },
        }),
      BadReference,
    );
    assert.throws(() => walletPsp.parseWebhook({}, Buffer.from('not json')), BadReference);
    assert.throws(() => parse({ nothing: true }), BadReference);
  });

  test('an event type the adapter does not use is acknowledged as none', () => {
    const ev = parse({
      event_type: 'CUSTOMER.DISPUTE.CREATED',
      resource: { dispute_id: 'PP-D-1' },
    });
    assert.deepEqual(ev, { eventType: 'CUSTOMER.DISPUTE.CREATED', action: { kind: 'none' } });
  });
});
