/** SQL of the CSV exports: rows read through a cursor (db/cursor.ts), a batch at a time. */
import { cursorRows } from './cursor.js';
import type { Pool } from './pool.js';

export interface LedgerCsvRow {
  occurred_at: string;
  id: string;
  type: string;
  payment_id: string;
  refund_id: string | null;
  dispute_id: string | null;
  exception_id: string | null;
  app_id: string;
  provider: string;
  mode: string;
  currency: string;
  amount_minor: string;
  fee_minor: string | null;
}

/** Ledger entries in [since, until), oldest first, amounts as their exact digits. */
export function ledgerExportRows(
  pool: Pool,
  since: Date,
  until: Date,
  provider: string | null,
  mode: string,
): AsyncGenerator<LedgerCsvRow[]> {
  return cursorRows<LedgerCsvRow>(
    pool,
    `SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS occurred_at,
       id, type, payment_id, refund_id, dispute_id, exception_id, app_id, provider, mode,
       currency, amount_minor::text AS amount_minor, fee_minor::text AS fee_minor
     FROM ledger_entries
     WHERE occurred_at >= $1 AND occurred_at < $2
       AND ($3::text IS NULL OR provider = $3) AND ($4::text = '' OR mode = $4)
     ORDER BY occurred_at, id`,
    [since, until, provider, mode],
  );
}

/** The items of a day's newest run, in their order. */
export function reconciliationExportRows(
  pool: Pool,
  provider: string,
  mode: string,
  day: string,
): AsyncGenerator<Record<string, string | null>[]> {
  return cursorRows<Record<string, string | null>>(
    pool,
    `SELECT i.kind, i.movement, i.provider_ref, i.payment_id, i.currency,
       i.gateway_amount_minor::text AS gateway, i.provider_amount_minor::text AS provider,
       i.provider_status, i.exception_id
     FROM reconciliation_items i
     WHERE i.run_id = (SELECT id FROM reconciliation_runs
                       WHERE provider = $1 AND mode = $2 AND day = $3
                       ORDER BY finished_at DESC, id DESC LIMIT 1)
     ORDER BY i.position`,
    [provider, mode, day],
  );
}
