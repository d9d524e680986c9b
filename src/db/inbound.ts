import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { PAYMENT_COLUMNS, type PaymentRow } from './payments.js';
import type { Queryable } from './pool.js';
import { storableText } from '../domain/storableText.js';
import { packBody, readArchivedBody } from './inboundBody.js';
import { batchedPerPool } from './statementBatcher.js';

/**
 * Headers of the connection and of content negotiation, not of the provider's message: they
 * say nothing about the event (its size is body_size) and were about a fifth of an archived
 * row (issue 29: storage per payment).
 */
const TRANSPORT_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'te',
  'upgrade',
  'accept',
  'accept-encoding',
  'accept-language',
  'sec-fetch-mode',
  'sec-fetch-site',
  'sec-fetch-dest',
]);

/** Headers worth keeping with an archived event: no cookies or auth, nothing of transport. */
export function keptHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || k === 'cookie' || k === 'authorization' || TRANSPORT_HEADERS.has(k)) {
      continue;
    }
    out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/** One webhook to archive, as stored (db/inboundBody.ts), and the payment its body names. */
interface ArchiveItem {
  provider: string;
  headers: string;
  bytes: Buffer;
  codec: number | null;
  size: number;
  digest: Buffer;
  truncated: boolean;
  paymentId: string | null;
}

type ArchivedRow = PaymentRow & { archive_id: string; id: string | null };

/**
 * Archives a webhook before it is verified: its first keepBytes bytes (all of it when it
 * fits), its full size and SHA-256. restoreFullBody completes a truncated row once verified.
 * With `paymentId` (the payment the body names, unverified) the same statement reads that
 * payment too, so the event's payment costs no round trip of its own; the read changes
 * nothing and is used only once the signature holds. On a pool, the webhooks archived
 * together share one statement (archiveBatch).
 */
export async function archiveInbound(
  db: Queryable,
  provider: string,
  headers: IncomingHttpHeaders,
  rawBody: Buffer,
  keepBytes: number,
  paymentId: string | null = null,
): Promise<{ id: number; truncated: boolean; bodySha256: Buffer; payment: PaymentRow | null }> {
  const truncated = rawBody.length > keepBytes;
  const bodySha256 = createHash('sha256').update(rawBody).digest();
  // A whole body is kept deflated (db/inboundBody.ts); the first bytes of a truncated one as
  // received, until restoreFullBody replaces them with the whole body.
  const stored = truncated
    ? { bytes: rawBody.subarray(0, keepBytes), codec: null }
    : packBody(provider, rawBody);
  const item: ArchiveItem = {
    provider,
    headers: JSON.stringify(keptHeaders(headers)),
    bytes: stored.bytes,
    codec: stored.codec,
    size: rawBody.length,
    digest: bodySha256,
    truncated,
    paymentId,
  };
  let row: ArchivedRow | undefined;
  try {
    row = await archive(db, item);
  } catch (err) {
    // Whatever made the read of payments fail (a lock wait cancelled, a timeout) must not cost
    // the archive, which comes before anything else can fail (the statement changed nothing):
    // the archive alone, and the payment is looked up later as without a hint.
    if (paymentId === null) throw err;
    row = await archive(db, { ...item, paymentId: null });
  }
  if (!row) throw new Error('inbound archive returned no row');
  const { archive_id: archiveId, ...payment } = row;
  return {
    id: Number(archiveId),
    truncated,
    bodySha256,
    payment: payment.id === null ? null : (payment as PaymentRow),
  };
}

// Each webhook's row takes its id from the table's own sequence first (the MATERIALIZED input
// is computed once), so each answer is paired with its request by that id, whatever order the
// insert returns rows in. body_digest: the body's SHA-256 as 32 bytes (migration 0038); rows
// before it have body_sha256 in hex. The payments are found by primary key whatever the
// statistics (`id = ANY`): on a young installation's table a batch was joined to them by hash
// over a sequential scan.
const ARCHIVE_BATCH_SQL = `WITH input AS MATERIALIZED (
  SELECT nextval((SELECT pg_get_serial_sequence('inbound_events', 'id'))) AS archive_id, i.*
  FROM unnest($1::text[], $2::jsonb[], $3::bytea[], $4::smallint[], $5::int[], $6::bytea[],
    $7::bool[], $8::text[]) WITH ORDINALITY
    AS i(provider, headers, raw_body, body_codec, body_size, body_digest, body_truncated,
      payment_id, ord)),
a AS (
  INSERT INTO inbound_events (id, provider, headers, raw_body, body_codec, body_size,
    body_digest, body_truncated)
  SELECT archive_id, provider, headers, raw_body, body_codec, body_size, body_digest,
    body_truncated
  FROM input ORDER BY ord)
SELECT input.archive_id, p.* FROM input
LEFT JOIN LATERAL (SELECT ${PAYMENT_COLUMNS} FROM payments
  WHERE id = ANY($8::text[]) AND id = input.payment_id) p ON true
ORDER BY input.ord`;

/** Archives webhooks in one statement: per item, in order, its row id and its payment's row. */
async function archiveBatch(db: Queryable, items: ArchiveItem[]): Promise<ArchivedRow[]> {
  const col = <T>(f: (x: ArchiveItem) => T): T[] => items.map(f);
  const res = await db.query<ArchivedRow>({
    name: 'inbound_archive_batch',
    text: ARCHIVE_BATCH_SQL,
    values: [
      col((i) => i.provider),
      col((i) => i.headers),
      col((i) => i.bytes),
      col((i) => i.codec),
      col((i) => i.size),
      col((i) => i.digest),
      col((i) => i.truncated),
      col((i) => i.paymentId),
    ],
  });
  if (res.rows.length !== items.length) throw new Error('inbound archive returned no row');
  return res.rows;
}

/**
 * Per pool, the webhooks that reach it together are archived by one statement (a provider
 * sends many at a time under load; db/statementBatcher.ts). Every webhook is a row of its
 * own: no two items conflict, so each has a key of its own.
 */
let archiveSeq = 0;
const archive = batchedPerPool(archiveBatch, () => String(archiveSeq++));

/**
 * The updates of an archived row come within the request that archived it. inbound_events is
 * partitioned by month (migration 0023) and its key is (id, received_at): the bound on
 * received_at lets PostgreSQL look in the last month or two instead of every month kept.
 */
export const JUST_ARCHIVED = `received_at > now() - interval '1 day'`;

export async function restoreFullBody(db: Queryable, id: number, rawBody: Buffer): Promise<void> {
  // As received: only bodies over WEBHOOK_REJECTED_BODY_BYTES come here, rarely.
  await db.query({
    name: 'inbound_restore_body',
    text: `UPDATE inbound_events SET raw_body = $2, body_codec = NULL, body_truncated = false
       WHERE id = $1 AND ${JUST_ARCHIVED}`,
    values: [id, rawBody],
  });
}

/**
 * Deletes up to batch bad-signature rows older than the retention; SKIP LOCKED lets
 * several instances purge at once without waiting on each other.
 */
export async function purgeRejectedInbound(
  db: Queryable,
  retentionDays: number,
  batch = 1000,
): Promise<number> {
  const res = await db.query({
    name: 'inbound_purge_rejected',
    text: `DELETE FROM inbound_events WHERE (id, received_at) IN (
         SELECT id, received_at FROM inbound_events
         WHERE outcome = 'bad_signature' AND received_at < now() - $1 * interval '1 day'
         ORDER BY received_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    values: [retentionDays, batch],
  });
  return res.rowCount ?? 0;
}

export interface InboundOutcome {
  signatureValid: boolean;
  outcome: string;
  mode?: string | null;
  eventType?: string | null;
  paymentId?: string | null;
}

/**
 * Records what became of an archived webhook. On a pool, the outcomes recorded together share
 * one statement and its commit (on the durable pool, one WAL flush for all of them): a
 * provider's notifications that change nothing (a pending status, a redelivery of a settled
 * payment, an unknown payment) come as often as those that do, and each ended with a
 * synchronous commit of its own.
 */
export async function recordInboundOutcome(
  db: Queryable,
  id: number,
  o: InboundOutcome,
): Promise<void> {
  await recordOutcome(db, { id, ...o });
}

type OutcomeItem = InboundOutcome & { id: number };

async function recordInboundOutcomes(db: Queryable, items: OutcomeItem[]): Promise<void> {
  const col = <T>(f: (x: OutcomeItem) => T): T[] => items.map(f);
  await db.query({
    name: 'inbound_outcome_batch',
    text: `UPDATE inbound_events ie SET signature_valid = o.signature_valid, outcome = o.outcome,
         mode = o.mode, event_type = o.event_type, payment_id = o.payment_id
       FROM unnest($1::bigint[], $2::bool[], $3::text[], $4::text[], $5::text[], $6::text[])
         AS o(id, signature_valid, outcome, mode, event_type, payment_id)
       WHERE ie.id = ANY($1::bigint[]) AND ie.id = o.id AND ie.${JUST_ARCHIVED}`,
    values: [
      col((o) => o.id),
      col((o) => o.signatureValid),
      col((o) => o.outcome),
      col((o) => o.mode ?? null),
      col((o) => (o.eventType == null ? null : storableText(o.eventType))),
      col((o) => o.paymentId ?? null),
    ],
  });
}

// Each archived row's outcome is recorded by its own request (a second time only after the
// first failed): its id is the key.
const recordOutcome = batchedPerPool(
  async (db: Queryable, items: OutcomeItem[]) => {
    await recordInboundOutcomes(db, items);
    return items.map(() => undefined);
  },
  (o) => String(o.id),
);

export interface InboundEventRow {
  id: number;
  provider: string;
  received_at: Date;
  signature_valid: boolean;
  event_type: string | null;
  payment_id: string | null;
  outcome: string;
  /** As received (inflated here when it was stored deflated); empty when body_error says why it cannot be read. */
  raw_body: Buffer;
  /** Null, or why the stored body cannot be read (db/inboundBody.ts readArchivedBody). */
  body_error: string | null;
  body_size: number;
  body_sha256: string;
  body_truncated: boolean;
}

export async function listInbound(
  db: Queryable,
  paymentId: string | null,
  limit: number,
): Promise<InboundEventRow[]> {
  const res = await db.query<Omit<InboundEventRow, 'body_error'> & { body_codec: number | null }>(
    `SELECT id::int AS id, provider, received_at, signature_valid, event_type, payment_id, outcome, raw_body,
       body_codec, COALESCE(body_size, octet_length(raw_body)) AS body_size,
       COALESCE(encode(body_digest, 'hex'), body_sha256, encode(sha256(raw_body), 'hex')) AS body_sha256, body_truncated
     FROM inbound_events WHERE ($1::text IS NULL OR payment_id = $1)
     ORDER BY received_at DESC, id DESC LIMIT $2`,
    [paymentId, limit],
  );
  return res.rows.map(({ body_codec, ...r }) => {
    const read = readArchivedBody(r.provider, r.raw_body, body_codec, {
      bytes: r.body_size,
      sha256: r.body_sha256,
    });
    return { ...r, raw_body: read.body ?? Buffer.alloc(0), body_error: read.error };
  });
}
