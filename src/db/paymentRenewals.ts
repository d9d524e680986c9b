/** A card_psp subscription's payments: its first charge and the renewals the provider reports. */
import { newId } from '../domain/ids.js';
import { PAYMENT_COLUMNS, type PaymentRow } from './payments.js';
import type { Queryable } from './pool.js';

/**
 * The first charge of a card_psp subscription (renewals are its children): what a
 * subscription-scoped provider event is about.
 */
export async function findFirstSubscriptionPayment(
  db: Queryable,
  provider: string,
  subscriptionId: string,
): Promise<PaymentRow | null> {
  const res = await db.query<PaymentRow>({
    name: 'payments_first_of_subscription',
    text: `SELECT ${PAYMENT_COLUMNS} FROM payments
    WHERE provider = $1 AND subscription_id = $2 AND parent_payment_id IS NULL ORDER BY created_at LIMIT 1`,
    values: [provider, subscriptionId],
  });
  return res.rows[0] ?? null;
}

/** A subscription renewal: a new succeeded payment, once per provider reference (null: a repeat). */
export async function insertRenewalPayment(
  tx: Queryable,
  r: {
    id: string;
    first: PaymentRow;
    amountMinor: number;
    currency: string;
    provider: string;
    providerRef: string;
    metadata: Record<string, unknown>;
    subscriptionId: string;
  },
): Promise<PaymentRow | null> {
  // The renewal's charge is booked in the statement that creates it (docs/api.md#ledger).
  const res = await tx.query<PaymentRow>(
    `WITH p AS (
       INSERT INTO payments (id, app_id, mode, status, amount_minor, currency, method, provider,
         provider_ref, external_user_id, email, return_url, metadata, subscription_id,
         parent_payment_id, finalized_at)
       VALUES ($1, $2, $3, 'succeeded', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, now())
       ON CONFLICT (provider, provider_ref) WHERE provider_ref IS NOT NULL DO NOTHING
       RETURNING ${PAYMENT_COLUMNS}),
     charge AS (
       INSERT INTO ledger_entries (id, type, payment_id, app_id, provider, mode, currency,
         amount_minor, occurred_at)
       SELECT $15::text, 'charge', id, app_id, provider, mode, currency, amount_minor, finalized_at
       FROM p
       ON CONFLICT DO NOTHING)
     SELECT * FROM p`,
    [
      r.id,
      r.first.app_id,
      r.first.mode,
      r.amountMinor,
      r.currency,
      r.first.method,
      r.provider,
      r.providerRef,
      r.first.external_user_id,
      r.first.email,
      r.first.return_url,
      JSON.stringify(r.metadata),
      r.subscriptionId,
      r.first.id,
      newId(),
    ],
  );
  return res.rows[0] ?? null;
}
