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
import { assertDistinct, batchedPerPool } from './statementBatcher.js';

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

// One statement for any number of payments: the conditional status change, its ledger entry
// (the charge of a success, the late charge of an amount mismatch), the outbox event and its
// first delivery commit together or not at all (transactional outbox,
// docs/api.md#delivery-and-retries); the event and its delivery are the one outbox writer's
// (db/outbox.ts outboxWrite); the NOTIFY that wakes the delivery workers is sent with that
// commit. Each payment's values are a row of `input`; the payments are found by primary key
// whatever the statistics (`id = ANY` for the index, STILL_INITIATED).
const FINALIZE_SQL = `
WITH input AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[],
    $6::timestamptz[], $7::text[], $8::text[], $9::bytea[], $10::text[], $11::timestamptz[],
    $12::text[], $13::text[], $14::bigint[], $15::text[], $16::text[], $17::bigint[],
    $18::text[], $19::smallint[], $20::int[], $21::bigint[], $22::text[])
    AS i(payment_id, outcome, error_text, metadata, subscription_id, at, event_id, event_type,
      body_packed, delivery_id, only_if_unregistered_until, exception_id, mismatch_ref,
      mismatch_amount, mismatch_currency, charge_id, fee_minor, late_id, body_codec, body_size,
      archive_id, archive_event_type)),
locked AS MATERIALIZED (
  -- In id order before any is updated: two batches sharing payments wait for one another,
  -- never deadlock (an UPDATE's own scan takes its rows in plan order).
  SELECT id FROM payments WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE),
upd AS (
  UPDATE payments p SET status = i.outcome,
    last_error = CASE WHEN i.outcome = 'failed' THEN i.error_text ELSE p.last_error END,
    metadata = i.metadata::jsonb,
    subscription_id = COALESCE(i.subscription_id, p.subscription_id),
    finalized_at = i.at, updated_at = i.at
  FROM input i JOIN locked l ON l.id = i.payment_id
  WHERE p.id = ANY($1::text[]) AND p.id = i.payment_id AND p.${STILL_INITIATED}
    AND (i.only_if_unregistered_until IS NULL
         OR (p.provider_ref IS NULL AND p.provider_deadline = i.only_if_unregistered_until))
  RETURNING p.id, p.app_id, p.provider, p.mode, p.currency, p.amount_minor, i.outcome, i.at,
    i.event_id, i.event_type, i.body_packed, i.body_codec, i.body_size, i.delivery_id,
    i.exception_id, i.mismatch_ref, i.mismatch_amount, i.mismatch_currency, i.charge_id,
    i.fee_minor, i.late_id, i.archive_id, i.archive_event_type),
ex AS (
  INSERT INTO payment_exceptions (id, payment_id, app_id, kind, provider, provider_ref,
    amount_minor, currency, resolution)
  SELECT exception_id, id, app_id, 'amount_mismatch', provider, mismatch_ref, mismatch_amount,
    mismatch_currency, 'manual'
  FROM upd
  WHERE exception_id IS NOT NULL
  ON CONFLICT (payment_id, kind, provider_ref) WHERE kind <> 'reconciliation' DO NOTHING
  RETURNING id, payment_id, app_id, provider, currency, amount_minor, detected_at),
charge AS (
  INSERT INTO ledger_entries (id, type, payment_id, app_id, provider, mode, currency,
    amount_minor, fee_minor, occurred_at)
  SELECT charge_id, 'charge', id, app_id, provider, mode, currency, amount_minor, fee_minor, at
  FROM upd
  WHERE outcome = 'succeeded'
  ON CONFLICT DO NOTHING),
late AS (
  INSERT INTO ledger_entries (id, type, payment_id, exception_id, app_id, provider, mode,
    currency, amount_minor, fee_minor, occurred_at)
  SELECT upd.late_id, 'late_charge', ex.payment_id, ex.id, ex.app_id, ex.provider, upd.mode,
    ex.currency, ex.amount_minor, upd.fee_minor, ex.detected_at
  FROM ex JOIN upd ON upd.id = ex.payment_id
  WHERE ex.amount_minor > 0
  ON CONFLICT DO NOTHING),
inb AS (
  UPDATE inbound_events ie SET signature_valid = true, outcome = 'finalized_' || upd.outcome,
    mode = upd.mode, event_type = upd.archive_event_type, payment_id = upd.id
  FROM upd
  WHERE ie.id = ANY($21::bigint[]) AND ie.id = upd.archive_id AND ie.${JUST_ARCHIVED}),
${outboxWrite({
  from: 'upd',
  eventId: 'event_id',
  appId: 'app_id',
  paymentId: 'id',
  refundId: 'NULL',
  eventType: 'event_type',
  bodyCodec: 'body_codec',
  bodySize: 'body_size',
  bodyPacked: 'body_packed',
  dedupeKey: 'NULL',
  createdAt: 'now()',
  deliveryId: '(SELECT u.delivery_id FROM upd u WHERE u.event_id = ev.id)',
  delivered: 'true',
})},
notified AS (SELECT pg_notify('${DELIVERY_CHANNEL}', '') FROM dl LIMIT 1)
SELECT upd.id FROM upd LEFT JOIN notified ON true`;

/**
 * Moves initiated payments to their outcomes with their events, in one statement: per
 * finalization, in order, false when its payment was not initiated (nothing written for it).
 * Two finalizations of one payment must not share a statement (finalizeInitiated keeps them
 * apart).
 */
export async function finalizeInitiatedBatch(
  db: Queryable,
  items: Finalization[],
): Promise<boolean[]> {
  const col = <T>(f: (x: Finalization) => T): T[] => items.map(f);
  assertDistinct(col((f) => f.paymentId));
  const res = await db.query<{ id: string }>({
    name: 'payments_finalize_batch',
    text: FINALIZE_SQL,
    values: [
      col((f) => f.paymentId),
      col((f) => f.outcome),
      col((f) => storableText(f.errorText)),
      col((f) => JSON.stringify(f.metadata)),
      col((f) => f.subscriptionId),
      col((f) => f.at),
      col((f) => f.eventId),
      col((f) => f.eventType),
      col((f) => f.eventBody.bytes),
      col((f) => f.deliveryId),
      col((f) => f.onlyIfUnregisteredUntil),
      col((f) => f.mismatch?.exceptionId ?? null),
      col((f) => f.mismatch?.providerRef ?? null),
      col((f) => f.mismatch?.amountMinor ?? null),
      col((f) => f.mismatch?.currency ?? null),
      col(() => newId()),
      col((f) => f.feeMinor),
      col(() => newId()),
      col((f) => f.eventBody.codec),
      col((f) => f.eventBody.size),
      col((f) => f.archive?.id ?? null),
      col((f) => (f.archive ? storableText(f.archive.eventType) : null)),
    ],
  });
  const done = new Set(res.rows.map((r) => r.id));
  return items.map((f) => done.has(f.paymentId));
}

/**
 * Per pool, the finalizations that reach it together share one statement (and, on the
 * durable pool, one WAL flush): a provider's webhooks arrive many at a time under load
 * (db/statementBatcher.ts). On a client (a transaction of the caller's) a finalization is a
 * statement of its own.
 */
const finalize = batchedPerPool(finalizeInitiatedBatch, (f) => f.paymentId);

/** Moves an initiated payment to its outcome with its event; false when it was not initiated. */
export async function finalizeInitiated(db: Queryable, f: Finalization): Promise<boolean> {
  return (await finalize(db, f)) === true;
}
