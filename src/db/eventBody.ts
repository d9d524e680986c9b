/**
 * The outbound event body, deflated (issue 29: storage per payment, fourth pass). An event body
 * is about 330 bytes of JSON, below PostgreSQL's 2 KB compression threshold, so PostgreSQL keeps
 * it whole; its keys and constant values repeat from event to event, so it is deflated here
 * against a dictionary of its kind's own bodies (docs/api.md#event-bodies): a payment.succeeded
 * of 329 bytes is kept in about 100.
 *
 * What is stored (outbound_events, migration 0034) is named by `body_codec`:
 * - NULL: the body as text in `body` (every row before 0034, and rows written in SQL by hand);
 * - 0 (EVENT_BODY_RAW): the body's UTF-8 bytes in `body_packed`;
 * - 1 (EVENT_BODY_DEFLATED_V1): raw deflate of them with the dictionary of its kind below.
 * `body_size` is the body's length in bytes (the events feed's page budget reads it in SQL).
 * Unpacking gives back the exact string that was packed, so what is signed and sent, on every
 * attempt, is byte for byte the body that was written. A dictionary is never changed once rows
 * use it: other samples would be a new codec number beside this one.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { outputChunkFor } from './zlibChunk.js';

export const EVENT_BODY_RAW = 0;
export const EVENT_BODY_DEFLATED_V1 = 1;

// Samples of each kind's body, minified as JSON.stringify writes them (domain/events.ts), the
// commonest last: deflate reaches the end of a dictionary with the shortest distances.
const PAYMENT =
  '{"event":"payment.canceled","payment_id":"0f1e2d3c4b5a69788796a5b4c3d2e1f0","status":"canceled","amount":4999,"currency":"USD","method":"card_psp","provider":"card_psp","provider_ref":"","timestamp":"2026-11-20T09:14:02.000Z","metadata":{}}' +
  '{"event":"payment.failed","payment_id":"a1b2c3d4e5f60718293a4b5c6d7e8f90","status":"failed","amount":2500,"currency":"EUR","method":"wallet_psp","provider":"wallet_psp","provider_ref":"5O190127TN364715T","timestamp":"2026-11-21T17:40:19.512Z","metadata":{"order_id":"A-1001"}}' +
  '{"event":"payment.succeeded","payment_id":"f8a7e0cf5c9ce0692007979dc4238364","status":"succeeded","amount":74817,"currency":"IDR","method":"va_bca","provider":"idr_psp","provider_ref":"86d48e42-7c9c-4f3d-ad75-3778a0ffada2","timestamp":"2026-11-26T07:15:13.319Z","metadata":{"order_id":"order-d683f467-6cce-4688-9ad5-d2b7b9e4b155"}}' +
  '{"event":"payment.succeeded","payment_id":"e51a3acca347c169a565167a4bf03756","status":"succeeded","amount":150000,"currency":"IDR","method":"qris","provider":"idr_psp","provider_ref":"74389ea2-f535-42fb-86d7-d087220dc7bb","timestamp":"2026-11-26T07:15:13.314Z","metadata":{"order_id":"order-8a47a712-1a72-4cc2-b6d6-38f95df1b9a7"}}';
const REFUND =
  '{"event":"refund.failed","refund_id":"0a1b2c3d4e5f60718293a4b5c6d7e8f9","payment_id":"f5b97f23d5a786a79cd96cc0ee329421","status":"failed","amount":1999,"currency":"USD","provider":"card_psp","provider_ref":"7c1e9a52-3f0d-4b8e-9a61-2d5c8f4e1b07","reason":"duplicate","timestamp":"2026-11-20T09:16:41.000Z","metadata":{}}' +
  '{"event":"refund.succeeded","refund_id":"9f8e7d6c5b4a39281706f5e4d3c2b1a0","payment_id":"e51a3acca347c169a565167a4bf03756","status":"succeeded","amount":74817,"currency":"IDR","provider":"idr_psp","provider_ref":"refund-74389ea2-f535-42fb-86d7-d087220dc7bb","reason":"requested_by_customer","timestamp":"2026-11-26T07:15:13.314Z","metadata":{"order_id":"order-8a47a712-1a72-4cc2-b6d6-38f95df1b9a7"}}';
const SUBSCRIPTION =
  '{"event":"subscription.revoked","payment_id":"a1b2c3d4e5f60718293a4b5c6d7e8f90","subscription_id":"e5a0c7d3-9b18-4f26-a3c4-7d1e8b2f6a95","status":"revoked","provider":"card_psp","timestamp":"2026-11-20T09:16:41.000Z","metadata":{}}' +
  '{"event":"subscription.canceled","payment_id":"f8a7e0cf5c9ce0692007979dc4238364","subscription_id":"992fae2a-2a17-4b7a-8d9e-e287cf90131b","status":"canceled","provider":"card_psp","timestamp":"2026-11-26T07:15:13.319Z","metadata":{"order_id":"order-d683f467-6cce-4688-9ad5-d2b7b9e4b155"}}';
const DISPUTE =
  '{"event":"dispute.closed","dispute_id":"0a1b2c3d4e5f60718293a4b5c6d7e8f9","payment_id":"f5b97f23d5a786a79cd96cc0ee329421","status":"lost","amount":1999,"currency":"USD","provider":"card_psp","provider_ref":"dp_7c1e9a523f0d4b8e","reason":"fraudulent","timestamp":"2026-11-20T09:16:41.000Z","metadata":{}}' +
  '{"event":"dispute.opened","dispute_id":"9f8e7d6c5b4a39281706f5e4d3c2b1a0","payment_id":"e51a3acca347c169a565167a4bf03756","status":"open","amount":74817,"currency":"IDR","provider":"idr_psp","provider_ref":"dp_74389ea2f53542fb","reason":"product_not_received","timestamp":"2026-11-26T07:15:13.314Z","metadata":{"order_id":"order-8a47a712-1a72-4cc2-b6d6-38f95df1b9a7"}}';

/** By the kind's first part (`payment` of `payment.succeeded`). */
const DICTIONARIES_V1: Record<string, Buffer> = {
  payment: Buffer.from(PAYMENT),
  refund: Buffer.from(REFUND),
  subscription: Buffer.from(SUBSCRIPTION),
  dispute: Buffer.from(DISPUTE),
};

/** A 4 KB window holds the dictionary and a body; the small state keeps it cheap. */
const DEFLATE = { windowBits: 12, memLevel: 4 };

function dictionaryOf(eventType: string): Buffer | undefined {
  return DICTIONARIES_V1[eventType.slice(0, eventType.indexOf('.'))];
}

export interface PackedEventBody {
  codec: number;
  /** The body's length in bytes (UTF-8). */
  size: number;
  bytes: Buffer;
}

/** What to store for a body: deflated when that is smaller, else its bytes as they are. */
export function packEventBody(eventType: string, body: string): PackedEventBody {
  const raw = Buffer.from(body, 'utf8');
  const dictionary = dictionaryOf(eventType);
  if (dictionary && raw.length >= 64) {
    const packed = deflateRawSync(raw, {
      ...DEFLATE,
      dictionary,
      chunkSize: outputChunkFor(raw.length),
    });
    if (packed.length < raw.length) {
      return { codec: EVENT_BODY_DEFLATED_V1, size: raw.length, bytes: packed };
    }
  }
  return { codec: EVENT_BODY_RAW, size: raw.length, bytes: raw };
}

/** The stored columns of an event body, as a query returns them. */
export interface StoredEventBody {
  event_type: string;
  body: string | null;
  body_codec: number | null;
  body_packed: Buffer | null;
  /** The length recorded when it was packed; the unpacked bytes must have it. */
  body_size?: number | null;
}

/**
 * The body exactly as it was written, from its stored form. Throws when it cannot be: an
 * unknown codec, bytes that do not inflate, or bytes of another length than was recorded (raw
 * deflate carries no checksum, so the length is the check that a damaged row is not signed
 * and sent as if it were the event).
 */
export function unpackEventBody(s: StoredEventBody): string {
  if (s.body_codec === null) return s.body ?? '';
  const bytes = s.body_packed ?? Buffer.alloc(0);
  const size = s.body_size ?? null;
  let raw: Buffer;
  if (s.body_codec === EVENT_BODY_RAW) raw = bytes;
  else {
    const dictionary = dictionaryOf(s.event_type);
    if (s.body_codec !== EVENT_BODY_DEFLATED_V1 || !dictionary) {
      throw new Error(`event body codec ${s.body_codec} of ${s.event_type} is not known`);
    }
    // One byte past the recorded size is enough to tell a longer body, never a huge buffer.
    const maxOutputLength = size === null ? undefined : size + 1;
    raw = inflateRawSync(bytes, {
      windowBits: 15,
      dictionary,
      maxOutputLength,
      ...(maxOutputLength === undefined ? {} : { chunkSize: outputChunkFor(maxOutputLength) }),
    });
  }
  if (size !== null && raw.length !== size) {
    throw new Error(`event body is ${raw.length} bytes, ${size} were recorded`);
  }
  return raw.toString('utf8');
}

/** unpackEventBody, or why not: for the readers that go on with the other rows. */
export function readEventBody(s: StoredEventBody): { body: string } | { unreadable: string } {
  try {
    return { body: unpackEventBody(s) };
  } catch (err) {
    return { unreadable: (err as Error).message };
  }
}
