import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { sql } from '../../helpers/core.js';
import { startWithReceiver, type GatewayWithReceiver } from '../../helpers/gateway.js';
import { idrNotification, idrTestServerKey, postWebhook } from '../../helpers/idrNotify.js';

// Issue 29 (storage per payment, third pass): a whole archived body is stored deflated
// against its provider's dictionary (src/db/inboundBody.ts, migration 0029) and read back
// byte for byte: GET /admin/inbound_events (docs/api.md#inbound-events) shows it as received.

let setup: GatewayWithReceiver;
before(async () => {
  setup = await startWithReceiver({}, {});
});
after(() => setup?.stop());

interface ArchiveView {
  raw_body: string;
  raw_body_bytes: number;
  raw_body_sha256: string;
  raw_body_truncated: boolean;
  signature_valid: boolean;
  outcome: string;
}

test('a signed notification is stored deflated and shown as received', async () => {
  const { gw } = setup;
  const paymentId = randomBytes(16).toString('hex');
  const body = idrNotification(idrTestServerKey(gw.config.masterKey), {
    orderId: paymentId,
    status: 'settlement',
    grossAmount: 53_488,
  });
  const res = await postWebhook(gw.url, 'idr_psp', body);
  assert.deepEqual([res.status, res.text], [404, 'unknown payment']);

  const [row] = await sql<{ body_codec: number | null; stored: number; body_size: number }>(
    gw.databaseUrl,
    `SELECT body_codec, octet_length(raw_body) AS stored, body_size FROM inbound_events
     WHERE body_digest = decode($1, 'hex')`,
    [createHash('sha256').update(body).digest('hex')],
  );
  assert.ok(row, 'archived');
  assert.equal(row.body_codec, 1);
  assert.equal(row.body_size, Buffer.byteLength(body));
  assert.ok(row.stored < row.body_size / 2, `stored ${row.stored} of ${row.body_size} bytes`);

  const archive = await gw.admin('GET', '/admin/inbound_events');
  assert.equal(archive.status, 200);
  const shown = archive
    .json<{ events: ArchiveView[] }>()
    .events.find((e) => e.raw_body.includes(paymentId));
  assert.ok(shown, 'listed');
  assert.deepEqual(
    {
      raw_body: shown.raw_body,
      raw_body_bytes: shown.raw_body_bytes,
      raw_body_sha256: shown.raw_body_sha256,
      raw_body_truncated: shown.raw_body_truncated,
      signature_valid: shown.signature_valid,
      outcome: shown.outcome,
    },
    {
      raw_body: body,
      raw_body_bytes: Buffer.byteLength(body),
      raw_body_sha256: createHash('sha256').update(body).digest('hex'),
      raw_body_truncated: false,
      signature_valid: true,
      outcome: 'unknown_payment',
    },
  );
});

test('a body deflate does not shrink is stored as received', async () => {
  const { gw } = setup;
  const body = randomBytes(48).toString('base64');
  const res = await postWebhook(gw.url, 'idr_psp', body);
  assert.deepEqual([res.status, res.text], [401, 'bad signature']);
  const [row] = await sql<{ body_codec: number | null; raw_body: Buffer }>(
    gw.databaseUrl,
    `SELECT body_codec, raw_body FROM inbound_events WHERE body_digest = decode($1, 'hex')`,
    [createHash('sha256').update(body).digest('hex')],
  );
  assert.equal(row?.body_codec, null);
  assert.equal(row?.raw_body.toString('utf8'), body);
  const archive = await gw.admin('GET', '/admin/inbound_events');
  const shown = archive.json<{ events: ArchiveView[] }>().events.find((e) => e.raw_body === body);
  assert.equal(shown?.raw_body_bytes, Buffer.byteLength(body));
});
