import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { EVENT_BODY_DEFLATED_V1, packEventBody, unpackEventBody } from '../../src/db/eventBody.js';
import {
  BODY_DEFLATED_V1,
  packBody,
  readArchivedBody,
  unpackBody,
} from '../../src/db/inboundBody.js';

// The stored forms of event and webhook bodies (src/db/eventBody.ts, inboundBody.ts), around
// the sizes where the output chunk (src/db/zlibChunk.ts) changes: under and over half of
// Buffer's pool, zlib's default chunk of 16 KiB, and bodies whose deflated form is longer than
// the chunk sized from them (incompressible bytes, which then run on in further chunks).

const SIZES = [64, 100, 700, 4_095, 4_096, 4_097, 16_383, 16_384, 16_385, 40_000, 200_000];

/** A payment event of about n bytes: compressible (repeated words) or not (random base64). */
function eventOf(n: number, compressible: boolean): string {
  const head =
    '{"event":"payment.succeeded","payment_id":"0f1e2d3c4b5a69788796a5b4c3d2e1f0","metadata":{"note":"';
  const fill = compressible
    ? 'order-line '.repeat(Math.ceil(n / 11)).slice(0, Math.max(0, n - head.length - 3))
    : randomBytes(n)
        .toString('base64')
        .slice(0, Math.max(0, n - head.length - 3));
  return `${head}${fill}"}}`;
}

test('an event body of every size comes back byte for byte from its stored form', () => {
  for (const n of SIZES) {
    for (const compressible of [true, false]) {
      const body = eventOf(n, compressible);
      const p = packEventBody('payment.succeeded', body);
      assert.equal(p.size, Buffer.byteLength(body), `size of ${n}`);
      if (compressible) assert.equal(p.codec, EVENT_BODY_DEFLATED_V1, `codec of ${n}`);
      const stored = {
        event_type: 'payment.succeeded',
        body: null,
        body_codec: p.codec,
        body_packed: p.bytes,
        body_size: p.size,
      };
      assert.equal(unpackEventBody(stored), body, `${n} bytes, compressible ${compressible}`);
    }
  }
});

test('a small deflated event body is a slice of the shared pool, not a 16 KiB buffer of its own', () => {
  const p = packEventBody('payment.succeeded', eventOf(700, true));
  assert.equal(p.codec, EVENT_BODY_DEFLATED_V1);
  assert.ok(p.bytes.length < 700);
  assert.ok(p.bytes.buffer.byteLength <= Buffer.poolSize, `${p.bytes.buffer.byteLength} bytes`);
  const stored = {
    event_type: 'payment.succeeded',
    body: null,
    body_codec: p.codec,
    body_packed: p.bytes,
    body_size: 700,
  };
  // The recorded size stays the check of a damaged row, whatever the chunk.
  assert.throws(
    () => unpackEventBody({ ...stored, body_size: 699 }),
    /^Error: event body is 700 bytes, 699 were recorded$/,
  );
  assert.throws(
    () => unpackEventBody({ ...stored, body_size: 701 }),
    /^Error: event body is 700 bytes, 701 were recorded$/,
  );
});

test('a webhook body of every size is archived and read back as received', () => {
  for (const n of SIZES) {
    for (const compressible of [true, false]) {
      const body = Buffer.from(eventOf(n, compressible));
      const p = packBody('idr_psp', body);
      if (compressible) assert.equal(p.codec, BODY_DEFLATED_V1, `codec of ${n}`);
      assert.deepEqual(unpackBody('idr_psp', p.bytes, p.codec), body, `${n} bytes`);
      const read = readArchivedBody('idr_psp', p.bytes, p.codec, {
        bytes: body.length,
        sha256: createHash('sha256').update(body).digest('hex'),
      });
      assert.deepEqual(read, { body, error: null });
    }
  }
  const small = packBody('idr_psp', Buffer.from(eventOf(700, true)));
  assert.equal(small.codec, BODY_DEFLATED_V1);
  assert.ok(small.bytes.buffer.byteLength <= Buffer.poolSize, `${small.bytes.buffer.byteLength}`);
});
