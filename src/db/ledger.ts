import type { Mode } from '../domain/types.js';
import { newId } from '../domain/ids.js';
import type { Queryable } from './pool.js';

/** docs/api.md#ledger: each kind of movement of money. */
export type LedgerType =
  'charge' | 'refund' | 'dispute' | 'dispute_reversal' | 'late_charge' | 'late_charge_refund';

export interface LedgerEntry {
  id: string;
  type: LedgerType;
  payment_id: string;
  refund_id: string | null;
  dispute_id: string | null;
  exception_id: string | null;
  app_id: string;
  provider: string;
  mode: Mode;
  currency: string;
  /** Signed: money in positive, money out negative. */
  amount_minor: number;
  fee_minor: number | null;
  occurred_at: Date;
}

export type NewLedgerEntry = Omit<
  LedgerEntry,
  'id' | 'occurred_at' | 'refund_id' | 'dispute_id' | 'exception_id' | 'fee_minor'
> &
  Partial<
    Pick<LedgerEntry, 'refund_id' | 'dispute_id' | 'exception_id' | 'fee_minor' | 'occurred_at'>
  >;

export const LEDGER_COLUMNS = `id, type, payment_id, refund_id, dispute_id, exception_id, app_id,
  provider, mode, currency, amount_minor, fee_minor, occurred_at`;

/**
 * Books one movement of money, in the caller's transaction (the change it records). A
 * movement already on record (the same charge, refund, late charge or dispute step) is not
 * booked again: null then.
 */
export async function recordLedgerEntry(
  tx: Queryable,
  e: NewLedgerEntry,
): Promise<LedgerEntry | null> {
  const res = await tx.query<LedgerEntry>({
    name: 'ledger_insert',
    text: `INSERT INTO ledger_entries (id, type, payment_id, refund_id, dispute_id, exception_id,
       app_id, provider, mode, currency, amount_minor, fee_minor, occurred_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, COALESCE($13, now()))
     ON CONFLICT DO NOTHING RETURNING ${LEDGER_COLUMNS}`,
    values: [
      newId(),
      e.type,
      e.payment_id,
      e.refund_id ?? null,
      e.dispute_id ?? null,
      e.exception_id ?? null,
      e.app_id,
      e.provider,
      e.mode,
      e.currency,
      e.amount_minor,
      e.fee_minor ?? null,
      e.occurred_at ?? null,
    ],
  });
  return res.rows[0] ?? null;
}
