/** The one statement that moves a payment out of initiated (services/payments/finalize.ts). */
import { newId } from '../domain/ids.js';
import { storableText } from '../domain/storableText.js';
import type { TerminalStatus } from '../domain/types.js';
import { DELIVERY_CHANNEL } from './deliveries.js';
import { JUST_ARCHIVED } from './inbound.js';
import { outboxWrite } from './outbox.js';
import type { Queryable } from './pool.js';
import type { PackedEventBody } from './eventBody.js';
import { STILL_INITIATED } from './payments.js';

export interface Finalization {
  paymentId: string;
  outcome: TerminalStatus;
  errorText: string;
  metadata: Record<string, unknown>;
  subscriptionId: string | null;
  at: Date;
  eventId: string;
  eventType: string;
  /** The event's body as stored (db/eventBody.ts packEventBody). */
  eventBody: PackedEventBody;
  deliveryId: string;
  /** Only while still unregistered and under the reconciler's claim (deadline = this). */
  onlyIfUnregisteredUntil: Date | null;
  /** What the provider took when it differs from the payment: an amount_mismatch exception. */
  mismatch: {
    exceptionId: string;
    providerRef: string;
    amountMinor: number;
    currency: string;
  } | null;
  /** The provider's fee on the money it took, where it reports one (ledger fee_minor). */
  feeMinor: number | null;
  /**
   * The inbound archive row of the provider event being applied (services/inbound.ts): when
   * the payment moves, the same statement records the event's outcome on it
   * (`finalized_<status>`, its mode, type and payment), so the finalization and the
   * archived outcome commit together.
   */
  archive?: { id: number; eventType: string } | null;
}

// One statement: the conditional status change, its ledger entry (the charge of a success,
// the late charge of an amount mismatch), the outbox event and its first delivery
// commit together or not at all (transactional outbox, docs/api.md#delivery-and-retries); the
// event and its delivery are the one outbox writer's (db/outbox.ts outboxWrite); the
// NOTIFY that wakes the delivery workers is sent with that commit.
const finalizeSql = (withArchive: boolean) => `
WITH upd AS (
  UPDATE payments SET status = $2,
    last_error = CASE WHEN $2 = 'failed' THEN $3 ELSE last_error END,
    metadata = $4::jsonb,
    subscription_id = COALESCE($5, subscription_id),
    finalized_at = $6, updated_at = $6
  WHERE id = $1 AND ${STILL_INITIATED}
    AND ($11::timestamptz IS NULL OR (provider_ref IS NULL AND provider_deadline = $11))
  RETURNING id, app_id, provider, mode, currency, amount_minor),
ex AS (
  INSERT INTO payment_exceptions (id, payment_id, app_id, kind, provider, provider_ref,
    amount_minor, currency, resolution)
  SELECT $12, id, app_id, 'amount_mismatch', provider, $13, $14, $15, 'manual' FROM upd
  WHERE $12::text IS NOT NULL
  ON CONFLICT (payment_id, kind, provider_ref) WHERE kind <> 'reconciliation' DO NOTHING
  RETURNING id, payment_id, app_id, provider, currency, amount_minor, detected_at),
charge AS (
  INSERT INTO ledger_entries (id, type, payment_id, app_id, provider, mode, currency,
    amount_minor, fee_minor, occurred_at)
  SELECT $16::text, 'charge', id, app_id, provider, mode, currency, amount_minor, $17::bigint, $6
  FROM upd
  WHERE $2 = 'succeeded'
  ON CONFLICT DO NOTHING),
late AS (
  INSERT INTO ledger_entries (id, type, payment_id, exception_id, app_id, provider, mode,
    currency, amount_minor, fee_minor, occurred_at)
  SELECT $18::text, 'late_charge', ex.payment_id, ex.id, ex.app_id, ex.provider, upd.mode,
    ex.currency, ex.amount_minor, $17::bigint, ex.detected_at
  FROM ex JOIN upd ON upd.id = ex.payment_id
  WHERE ex.amount_minor > 0
  ON CONFLICT DO NOTHING),${
    withArchive
      ? `
inb AS (
  UPDATE inbound_events ie SET signature_valid = true, outcome = 'finalized_' || $2::text,
    mode = upd.mode, event_type = $22, payment_id = upd.id
  FROM upd
  WHERE ie.id = $21 AND ie.${JUST_ARCHIVED}),`
      : ''
  }
${outboxWrite({
  from: 'upd',
  eventId: '$7',
  appId: 'app_id',
  paymentId: 'id',
  refundId: 'NULL',
  eventType: '$8',
  bodyCodec: '$19',
  bodySize: '$20',
  bodyPacked: '$9',
  dedupeKey: 'NULL',
  createdAt: 'now()',
  deliveryId: '$10',
  delivered: 'true',
})}
SELECT pg_notify('${DELIVERY_CHANNEL}', '') FROM dl`;

const FINALIZE_SQL = finalizeSql(false);
const FINALIZE_ARCHIVED_SQL = finalizeSql(true);

/** Moves an initiated payment to its outcome with its event; false when it was not initiated. */
export async function finalizeInitiated(db: Queryable, f: Finalization): Promise<boolean> {
  const archive = f.archive ?? null;
  const res = await db.query({
    name: archive ? 'payments_finalize_archived' : 'payments_finalize',
    text: archive ? FINALIZE_ARCHIVED_SQL : FINALIZE_SQL,
    values: [
      f.paymentId,
      f.outcome,
      storableText(f.errorText),
      JSON.stringify(f.metadata),
      f.subscriptionId,
      f.at,
      f.eventId,
      f.eventType,
      f.eventBody.bytes,
      f.deliveryId,
      f.onlyIfUnregisteredUntil,
      f.mismatch?.exceptionId ?? null,
      f.mismatch?.providerRef ?? null,
      f.mismatch?.amountMinor ?? null,
      f.mismatch?.currency ?? null,
      newId(),
      f.feeMinor,
      newId(),
      f.eventBody.codec,
      f.eventBody.size,
      ...(archive ? [archive.id, storableText(archive.eventType)] : []),
    ],
  });
  return res.rowCount === 1;
}
