import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { test } from 'node:test';
import type { ProviderEndpointConfig } from '../../src/config.js';
import { cardPsp } from '../../src/providers/card_psp/index.js';

// Standard Webhooks as card_psp (Polar) signs them; every vector is computed here with
// node:crypto, independently of the adapter (card_psp.signing.test.ts uses the providers' own
// libraries). The key is the secret string's UTF-8 bytes, or the decoded Standard Webhooks key.

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OTHER_SECRET = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const BODY = JSON.stringify({
  type: 'order.paid',
  timestamp: '2025-01-01T00:00:00Z',
  data: { id: 'ord_1', metadata: { payment_id: 'a'.repeat(32) } },
});

function endpoint(secret = SECRET): ProviderEndpointConfig {
  return { baseUrl: 'http://127.0.0.1:9', credentials: {}, webhookSecret: secret };
}

function sig(secret: string, id: string, ts: string, body: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${id}.${ts}.${body}`)
    .digest('base64');
}

function nowTs(offsetSeconds = 0): string {
  return String(Math.floor(Date.now() / 1000) + offsetSeconds);
}

function headers(
  o: { id?: string; ts?: string; secret?: string; body?: string; signature?: string } = {},
): IncomingHttpHeaders {
  const id = o.id ?? 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
  const ts = o.ts ?? nowTs();
  return {
    'webhook-id': id,
    'webhook-timestamp': ts,
    'webhook-signature': o.signature ?? `v1,${sig(o.secret ?? SECRET, id, ts, o.body ?? BODY)}`,
  };
}

const verify = (h: IncomingHttpHeaders, body = BODY, secret = SECRET) =>
  cardPsp.verifyWebhook(endpoint(secret), h, Buffer.from(body, 'utf8'));

test('a known-good signature verifies', async () => {
  assert.equal(await verify(headers()), true);
});

test('a tampered body does not verify', async () => {
  assert.equal(await verify(headers(), BODY.replace('ord_1', 'ord_2')), false);
});

test('a tampered timestamp does not verify', async () => {
  const h = headers();
  h['webhook-timestamp'] = String(Number(h['webhook-timestamp']) + 1);
  assert.equal(await verify(h), false);
});

test('a tampered webhook-id does not verify', async () => {
  const h = headers();
  h['webhook-id'] = 'msg_other';
  assert.equal(await verify(h), false);
});

test('a signature made with another secret does not verify', async () => {
  assert.equal(await verify(headers({ secret: OTHER_SECRET })), false);
  assert.equal(await verify(headers(), BODY, OTHER_SECRET), false);
});

test('the Standard Webhooks key (base64 after whsec_, decoded) verifies as well', async () => {
  const id = 'msg_1';
  const ts = nowTs();
  const decodedKey = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
  const standardLib = createHmac('sha256', decodedKey)
    .update(`${id}.${ts}.${BODY}`)
    .digest('base64');
  assert.equal(await verify(headers({ id, ts, signature: `v1,${standardLib}` })), true);
});

test('a timestamp older or newer than 5 minutes is refused, within 5 minutes accepted', async () => {
  assert.equal(await verify(headers({ ts: nowTs(-301) })), false);
  assert.equal(await verify(headers({ ts: nowTs(301) })), false);
  assert.equal(await verify(headers({ ts: nowTs(-290) })), true);
  assert.equal(await verify(headers({ ts: nowTs(290) })), true);
});

test('several signatures in the header: one valid is enough', async () => {
  const id = 'msg_multi';
  const ts = nowTs();
  const good = sig(SECRET, id, ts, BODY);
  const bad = sig(OTHER_SECRET, id, ts, BODY);
  const list = `v1,${bad} v1a,${good.slice(0, 10)} v1,${good}`;
  assert.equal(await verify(headers({ id, ts, signature: list })), true);
  assert.equal(await verify(headers({ id, ts, signature: `v1,${bad} v2,${good}` })), false);
});

test('malformed headers are false, never a throw', async () => {
  const cases: IncomingHttpHeaders[] = [
    {},
    { ...headers(), 'webhook-id': undefined },
    { ...headers(), 'webhook-timestamp': undefined },
    { ...headers(), 'webhook-signature': undefined },
    { ...headers(), 'webhook-timestamp': 'yesterday' },
    { ...headers(), 'webhook-timestamp': '1e9' },
    headers({ signature: 'v1' }),
    headers({ signature: 'v1,' }),
    headers({ signature: 'v1,@@@not-base64@@@' }),
    headers({ signature: ',,, ' }),
  ];
  for (const h of cases) assert.equal(await verify(h), false, JSON.stringify(h));
  assert.equal(await verify(headers(), BODY, ''), false);
});
