import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { test } from 'node:test';
import { signWebhook } from '../../src/delivery/signer.js';

// docs/api.md#webhook-signing: X-PAY-Signature is the lowercase hex HMAC-SHA256 of
// `<timestamp>.<raw_body>` keyed with the UTF-8 bytes of the app's webhook secret.

const SECRET = 'whsec_test_vector_secret';
const TIMESTAMP = '1700000000';
const BODY = '{"event":"payment.succeeded","payment_id":"0123456789abcdef0123456789abcdef"}';
// Computed outside this code base:
//   printf '%s' '1700000000.<BODY>' | openssl dgst -sha256 -hmac 'whsec_test_vector_secret'
const VECTOR = '4ffbaa3d2c3f29c6fb0d79f6ea0724fd8d0a0e9c12502874c8cec6b1cc0b9172';

/** The same HMAC through WebCrypto, a second implementation the signer does not use. */
async function webCryptoHmacHex(secret: string, message: string): Promise<string> {
  const enc = new TextEncoder();
  const key = await webcrypto.subtle.importKey(
    'raw',
    enc.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = await webcrypto.subtle.sign('HMAC', key, enc.encode(message));
  return Buffer.from(mac).toString('hex');
}

test('the signer matches the known vector', () => {
  assert.equal(signWebhook(SECRET, TIMESTAMP, BODY), VECTOR);
});

test('the signer matches an independent HMAC-SHA256 of <timestamp>.<raw_body>', async () => {
  const expected = await webCryptoHmacHex(SECRET, `${TIMESTAMP}.${BODY}`);
  assert.equal(expected, VECTOR);
  assert.equal(signWebhook(SECRET, TIMESTAMP, BODY), expected);
});

test('the signature is 64 lowercase hex characters', () => {
  assert.match(signWebhook(SECRET, TIMESTAMP, BODY), /^[0-9a-f]{64}$/);
});

test('the key is the secret as issued (UTF-8 bytes, never decoded) and covers every byte', async () => {
  // A secret that looks like base64 or hex is still used as its characters.
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const body = '{"amount":150000,"currency":"IDR","note":"café ✓"}';
  assert.equal(
    signWebhook(secret, TIMESTAMP, body),
    await webCryptoHmacHex(secret, `${TIMESTAMP}.${body}`),
  );
  const base = signWebhook(SECRET, TIMESTAMP, BODY);
  assert.notEqual(signWebhook(SECRET, '1700000001', BODY), base);
  assert.notEqual(signWebhook(SECRET, TIMESTAMP, BODY + ' '), base);
  assert.notEqual(signWebhook(SECRET + 'x', TIMESTAMP, BODY), base);
});
