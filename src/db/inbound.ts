import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { PAYMENT_COLUMNS, type PaymentRow } from './payments.js';
import type { Queryable } from './pool.js';
import { storableText } from '../domain/storableText.js';
import { packBody, readArchivedBody } from './inboundBody.js';

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

/**
 * Archives a webhook before it is verified: its first keepBytes bytes (all of it when it
 * fits), its full size and SHA-256. restoreFullBody completes a truncated row once verified.
 * With `paymentId` (the payment the body names, unverified) the same statement reads that
 * payment too, so the event's payment costs no round trip of its own; the read changes
 * nothing and is used only once the signature holds.
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
  const values: unknown[] = [
    provider,
    JSON.stringify(keptHeaders(headers)),
    stored.bytes,
    stored.codec,
    rawBody.length,
    bodySha256,
    truncated,
  ];
  const archiveOnly = async () => {
    const res = await db.query<{ id: string }>({
      name: 'inbound_archive',
      text: ARCHIVE_SQL,
      values,
    });
    return { id: Number(res.rows[0]?.id), truncated, bodySha256, payment: null };
  };
  if (paymentId === null) return archiveOnly();
  let row: (PaymentRow & { archive_id: string; id: string | null }) | undefined;
  try {
    const res = await db.query<PaymentRow & { archive_id: string; id: string | null }>({
      name: 'inbound_archive_payment',
      text: ARCHIVE_WITH_PAYMENT_SQL,
      values: [...values, paymentId],
    });
    row = res.rows[0];
  } catch {
    // Whatever made the read of payments fail (a lock wait cancelled, a timeout) must not cost
    // the archive, which comes before anything else can fail (the statement changed nothing):
    // the archive alone, and the payment is looked up later as without a hint.
    return archiveOnly();
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

// body_digest: the body's SHA-256 as 32 bytes (migration 0038); rows before it have body_sha256 in hex.
const ARCHIVE_SQL = `INSERT INTO inbound_events (provider, headers, raw_body, body_codec, body_size, body_digest,
    body_truncated)
  VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`;

const ARCHIVE_WITH_PAYMENT_SQL = `WITH a AS (${ARCHIVE_SQL})
SELECT a.id AS archive_id, p.* FROM a
LEFT JOIN LATERAL (SELECT ${PAYMENT_COLUMNS} FROM payments WHERE id = $8) p ON true`;

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

export async function recordInboundOutcome(
  db: Queryable,
  id: number,
  o: InboundOutcome,
): Promise<void> {
  await db.query({
    name: 'inbound_outcome',
    text: `UPDATE inbound_events SET signature_valid = $2, outcome = $3, mode = $4, event_type = $5,
         payment_id = $6 WHERE id = $1 AND ${JUST_ARCHIVED}`,
    values: [
      id,
      o.signatureValid,
      o.outcome,
      o.mode ?? null,
      o.eventType == null ? null : storableText(o.eventType),
      o.paymentId ?? null,
    ],
  });
}

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
