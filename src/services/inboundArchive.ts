import { listInbound } from '../db/inbound.js';
import type { Pool } from '../db/pool.js';
import { isPaymentId } from '../domain/ids.js';

export interface InboundEventView {
  id: number;
  provider: string;
  received_at: string;
  signature_valid: boolean;
  event_type: string | null;
  payment_id: string | null;
  outcome: string;
  /** As received, or its first bytes when raw_body_truncated (a rejected body). */
  raw_body: string;
  raw_body_bytes: number;
  raw_body_sha256: string;
  raw_body_truncated: boolean;
  /** Only on a row whose stored body cannot be read; raw_body is then "". */
  raw_body_error?: string;
}

interface Log {
  error(obj: object, msg: string): void;
}

/** docs/api.md#inbound-events: archived provider webhooks, rejected ones included; the most recent 100 without a filter. */
export async function listInboundEvents(
  pool: Pool,
  paymentId: string | null,
  log: Log,
): Promise<InboundEventView[]> {
  // Events name payments by their 32-hex id: any other value matches none (and a NUL in it
  // could not even be compared).
  if (paymentId && !isPaymentId(paymentId)) return [];
  const rows = await listInbound(pool, paymentId === '' ? null : paymentId, paymentId ? 1000 : 100);
  return rows.map((r) => {
    const view: InboundEventView = {
      id: r.id,
      provider: r.provider,
      received_at: r.received_at.toISOString(),
      signature_valid: r.signature_valid,
      event_type: r.event_type,
      payment_id: r.payment_id,
      outcome: r.outcome,
      raw_body: r.raw_body.toString('utf8'),
      raw_body_bytes: r.body_size,
      raw_body_sha256: r.body_sha256,
      raw_body_truncated: r.body_truncated,
    };
    if (r.body_error === null) return view;
    // One damaged row is shown as such; the rest of the list is unaffected.
    log.error(
      { inbound_event_id: r.id, provider: r.provider, reason: r.body_error },
      'archived inbound body unreadable',
    );
    return { ...view, raw_body_error: r.body_error };
  });
}
