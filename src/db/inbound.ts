import type { IncomingHttpHeaders } from 'node:http';
import type { Queryable } from './pool.js';

/** Headers worth keeping with an archived event: no cookies or auth, nothing of ours. */
function keptHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || k === 'cookie' || k === 'authorization') continue;
    out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

export async function archiveInbound(
  db: Queryable,
  provider: string,
  headers: IncomingHttpHeaders,
  rawBody: Buffer,
): Promise<number> {
  const res = await db.query<{ id: string }>({
    name: 'inbound_archive',
    text: `INSERT INTO inbound_events (provider, headers, raw_body) VALUES ($1, $2, $3) RETURNING id`,
    values: [provider, JSON.stringify(keptHeaders(headers)), rawBody],
  });
  return Number(res.rows[0]?.id);
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
         payment_id = $6 WHERE id = $1`,
    values: [
      id,
      o.signatureValid,
      o.outcome,
      o.mode ?? null,
      o.eventType ?? null,
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
  raw_body: Buffer;
}

export async function listInbound(
  db: Queryable,
  paymentId: string | null,
  limit: number,
): Promise<InboundEventRow[]> {
  const res = await db.query<InboundEventRow>(
    `SELECT id::int AS id, provider, received_at, signature_valid, event_type, payment_id, outcome, raw_body
     FROM inbound_events WHERE ($1::text IS NULL OR payment_id = $1)
     ORDER BY received_at DESC, id DESC LIMIT $2`,
    [paymentId, limit],
  );
  return res.rows;
}
