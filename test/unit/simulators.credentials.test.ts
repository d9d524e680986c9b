import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { simulatorEndpoint } from '../../src/providers/testMode.js';
import {
  cardPspCredentials,
  idrPspServerKey,
  walletPspCredentials,
} from '../../src/simulators/credentials.js';

// The simulators issue test-mode credentials and the gateway configures them, each deriving
// them from the master key on its own (they share no code): the two must agree, for any key.

test('the credentials the simulators issue are the ones the gateway uses in test mode', () => {
  for (let i = 0; i < 5; i++) {
    const key = randomBytes(32);
    const idr = simulatorEndpoint('idr_psp', key, 'http://x');
    assert.deepEqual(idr.credentials, { serverKey: idrPspServerKey(key) });
    assert.equal(idr.webhookSecret, idrPspServerKey(key));
    const card = simulatorEndpoint('card_psp', key, 'http://x');
    assert.deepEqual(card.credentials, cardPspCredentials(key));
    assert.equal(card.webhookSecret, cardPspCredentials(key).webhookSecret);
    const wallet = simulatorEndpoint('wallet_psp', key, 'http://x');
    assert.deepEqual(wallet.credentials, walletPspCredentials(key));
    assert.equal(wallet.webhookSecret, walletPspCredentials(key).webhookId);
  }
});

test('each master key issues other credentials', () => {
  const a = randomBytes(32);
  const b = randomBytes(32);
  assert.notEqual(idrPspServerKey(a), idrPspServerKey(b));
  assert.notEqual(cardPspCredentials(a).webhookSecret, cardPspCredentials(b).webhookSecret);
  assert.notEqual(walletPspCredentials(a).clientSecret, walletPspCredentials(b).clientSecret);
  assert.match(idrPspServerKey(a), /^SB-Mid-server-[0-9a-f]{24}$/);
});
