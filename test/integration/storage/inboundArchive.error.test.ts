import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { packBody } from '../../../src/db/inboundBody.js';
import { createLogger } from '../../../src/logger.js';
import { sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { idrNotification, idrTestServerKey, postWebhook } from '../../helpers/idrNotify.js';
import { paidPayment } from '../../helpers/payments.js';

// An archived body whose stored form cannot be read back (a damaged row, a codec this version
// does not know) costs only its own row: GET /admin/inbound_events answers 200, the row says
// why in raw_body_error with raw_body "", and the gateway logs it (docs/api.md#inbound-events).

interface ArchiveView {
  id: number;
  payment_id: string | null;
  raw_body: string;
  raw_body_bytes: number;
  raw_body_sha256: string;
  raw_body_truncated: boolean;
  outcome: string;
  raw_body_error?: string;
}

interface LogLine {
  level: number;
  msg: string;
  inbound_event_id?: number;
  provider?: string;
  reason?: string;
}

const written: string[] = [];
let gw: TestGateway;
before(async () => {
  gw = await startTestGateway(
    {},
    { log: createLogger('info', { write: (s: string) => void written.push(s) }) },
  );
});
after(() => gw?.stop());

const sha256 = (b: string) => createHash('sha256').update(b).digest('hex');

function notification(orderId: string): string {
  return idrNotification(idrTestServerKey(gw.config.masterKey), {
    orderId,
    status: 'settlement',
    grossAmount: 53_488,
  });
}

async function archived(body: string): Promise<number> {
  const res = await postWebhook(gw.url, 'idr_psp', body);
  assert.deepEqual([res.status, res.text], [404, 'unknown payment']);
  const [row] = await sql<{ id: number; body_codec: number | null }>(
    gw.databaseUrl,
    `SELECT id::int AS id, body_codec FROM inbound_events WHERE body_digest = decode($1, 'hex')`,
    [sha256(body)],
  );
  assert.equal(row?.body_codec, 1, 'stored deflated');
  return row.id;
}

const NOT_DEFLATE = 'stored body could not be read: inflate failed: invalid block type';
const UNKNOWN_CODEC = 'stored body could not be read: codec 7 is not known for idr_psp';
const MISMATCH =
  'stored body could not be read: inflated body does not match raw_body_bytes and raw_body_sha256';

test('damaged stored bodies: 200 for the whole list, each damaged row says why, the others are shown as received; one log line per damaged row', async () => {
  const bodies = Array.from({ length: 4 }, () => notification(randomBytes(16).toString('hex')));
  const ids: number[] = [];
  for (const b of bodies) ids.push(await archived(b));
  const [intact, garbage, unknownCodec, otherBody] = ids as [number, number, number, number];

  // Bytes that are no deflate stream; a codec number no version wrote; a valid deflate stream
  // of another body (raw deflate has no checksum: only the recorded SHA-256 tells).
  await sql(gw.databaseUrl, `UPDATE inbound_events SET raw_body = '\\xffffffff' WHERE id = $1`, [
    garbage,
  ]);
  await sql(gw.databaseUrl, 'UPDATE inbound_events SET body_codec = 7 WHERE id = $1', [
    unknownCodec,
  ]);
  const substitute = packBody('idr_psp', Buffer.from(notification('f'.repeat(32))));
  assert.equal(substitute.codec, 1);
  await sql(gw.databaseUrl, 'UPDATE inbound_events SET raw_body = $2 WHERE id = $1', [
    otherBody,
    substitute.bytes,
  ]);

  const from = written.length;
  const res = await gw.admin('GET', '/admin/inbound_events');
  assert.equal(res.status, 200, res.text);
  const byId = new Map(res.json<{ events: ArchiveView[] }>().events.map((e) => [e.id, e]));
  const shown = (id: number, body: string) => {
    const e = byId.get(id);
    assert.ok(e, `event ${id} listed`);
    // Size and SHA-256 are those recorded when the body was received, kept in their own
    // columns: an operator can still compare them with the provider's copy.
    assert.equal(e.raw_body_bytes, Buffer.byteLength(body));
    assert.equal(e.raw_body_sha256, sha256(body));
    assert.equal(e.raw_body_truncated, false);
    assert.equal(e.outcome, 'unknown_payment');
    return { raw_body: e.raw_body, raw_body_error: e.raw_body_error };
  };
  assert.deepEqual(shown(intact, bodies[0]!), { raw_body: bodies[0], raw_body_error: undefined });
  assert.equal('raw_body_error' in byId.get(intact)!, false);
  assert.deepEqual(shown(garbage, bodies[1]!), { raw_body: '', raw_body_error: NOT_DEFLATE });
  assert.deepEqual(shown(unknownCodec, bodies[2]!), {
    raw_body: '',
    raw_body_error: UNKNOWN_CODEC,
  });
  assert.deepEqual(shown(otherBody, bodies[3]!), { raw_body: '', raw_body_error: MISMATCH });

  const lines = written
    .slice(from)
    .join('')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LogLine)
    .filter((l) => l.msg === 'archived inbound body unreadable')
    .map((l) => [l.level, l.inbound_event_id, l.provider, l.reason]);
  assert.deepEqual(
    lines.sort((a, b) => (a[1] as number) - (b[1] as number)),
    [
      [50, garbage, 'idr_psp', NOT_DEFLATE],
      [50, unknownCodec, 'idr_psp', UNKNOWN_CODEC],
      [50, otherBody, 'idr_psp', MISMATCH],
    ].sort((a, b) => (a[1] as number) - (b[1] as number)),
  );
});

test("a payment's list with one damaged body: 200, the damaged row says why, its other events are shown", async () => {
  const app = await gw.createApp({ name: 'Archive' });
  const p = await paidPayment(gw, app, 'idr', 25_000);
  const rows = await sql<{ id: number; body_codec: number | null }>(
    gw.databaseUrl,
    'SELECT id::int AS id, body_codec FROM inbound_events WHERE payment_id = $1 ORDER BY id',
    [p.id],
  );
  assert.ok(rows.length >= 1, 'the settlement notification is archived');
  const damaged = rows[rows.length - 1]!.id;
  await sql(
    gw.databaseUrl,
    `UPDATE inbound_events SET raw_body = '\\xffffffff', body_codec = 1 WHERE id = $1`,
    [damaged],
  );
  const res = await gw.admin('GET', `/admin/inbound_events?payment_id=${p.id}`);
  assert.equal(res.status, 200, res.text);
  const events = res.json<{ events: ArchiveView[] }>().events;
  assert.equal(events.length, rows.length);
  for (const e of events) {
    assert.equal(e.payment_id, p.id);
    if (e.id === damaged) {
      assert.deepEqual([e.raw_body, e.raw_body_error], ['', NOT_DEFLATE]);
    } else {
      assert.equal('raw_body_error' in e, false);
      assert.notEqual(e.raw_body, '');
    }
  }
});
