import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { verifyStandardWebhook } from '../../src/providers/card_psp/webhook.js';
import { parseProviderTime } from '../../src/providers/idr_psp/wire.js';
import { verifyNotification } from '../../src/providers/idr_psp/webhook.js';
import { crc32, signedMessage } from '../../src/providers/wallet_psp/webhook.js';
import { signCardPspEvent } from '../../src/simulators/card_psp/signing.js';
import { newTransaction } from '../../src/simulators/idr_psp/transactions.js';
import { buildIdrNotification, providerTime } from '../../src/simulators/idr_psp/wire.js';
import { transmissionMessage } from '../../src/simulators/wallet_psp/signing.js';

// The simulators and the adapters read each provider's protocol apart (no shared code):
// here one's writing is checked against the other's reading, beside the end-to-end tests.

test('idr_psp: the simulator signs notifications the way the adapter verifies them', () => {
  const serverKey = `SB-Mid-server-${randomBytes(12).toString('hex')}`;
  const tx = newTransaction({
    orderId: randomBytes(16).toString('hex'),
    flow: 'charge',
    channel: 'other_qris',
    grossAmount: 12345,
    email: null,
    finishUrl: null,
    merchantId: 'G123456789',
    now: Date.UTC(2026, 0, 10, 3, 0, 0),
  });
  const body = Buffer.from(JSON.stringify(buildIdrNotification(tx, serverKey, 'http://sim')));
  assert.equal(verifyNotification(serverKey, body), true);
  assert.equal(verifyNotification(`${serverKey}x`, body), false);
  const tampered = body.toString('utf8').replace('"12345.00"', '"12346.00"');
  assert.equal(verifyNotification(serverKey, Buffer.from(tampered)), false);
});

test("idr_psp: the simulator's times read back as the same instant (Jakarta time)", () => {
  for (const ms of [0, Date.UTC(2026, 0, 1, 16, 59, 59), Date.UTC(2026, 11, 31, 17, 0, 0)]) {
    assert.equal(parseProviderTime(providerTime(ms))?.getTime(), ms);
  }
  assert.equal(providerTime(Date.UTC(2026, 0, 10, 20, 5, 9)), '2026-01-11 03:05:09');
});

test('card_psp: the simulator signs Standard Webhooks the adapter verifies', () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const body = JSON.stringify({ type: 'order.paid', data: { id: 'x' } });
  const now = Date.now();
  const headers = signCardPspEvent(secret, body, now);
  assert.equal(verifyStandardWebhook(secret, headers, Buffer.from(body), now), true);
  assert.equal(verifyStandardWebhook(secret, headers, Buffer.from(`${body} `), now), false);
});

test("wallet_psp: the simulator's signed message is the adapter's, CRC32 included", () => {
  for (let i = 0; i < 20; i++) {
    const body = randomBytes(i * 37);
    const args = ['tid-' + i, '2026-01-10T03:00:00Z', 'WH-ABC'] as const;
    assert.equal(transmissionMessage(...args, body), signedMessage(...args, body));
  }
  // The reference value of CRC-32 (IEEE) for "123456789".
  assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
  assert.equal(transmissionMessage('a', 'b', 'c', Buffer.from('123456789')), 'a|b|c|3421780262');
});
