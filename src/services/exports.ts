/**
 * CSV exports for finance (docs/api.md#csv-exports): the ledger over a window and the items
 * of a reconciliation, streamed from a database cursor so a month of a million entries
 * leaves in bounded memory. RFC 4180 CSV with a header line; a text cell that a spreadsheet
 * would run as a formula (= + - @ at its start) is written with a leading apostrophe.
 */
import { Readable } from 'node:stream';
import { ledgerExportRows, reconciliationExportRows } from '../db/exports.js';
import type { Pool } from '../db/pool.js';
import { parseTimestamp, resolveMode } from '../domain/adminQuery.js';
import { apiError } from '../domain/errors.js';
import { isProvider } from '../domain/types.js';
import { parseTarget } from './reconciliation.js';

type Cell = string | number | null;

function textCell(v: string): string {
  // An integer (an amount as its exact digits) is a number to the spreadsheet, not a formula.
  if (/^-?\d+$/.test(v)) return v;
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A CSV line: numbers as digits, text escaped, null as an empty cell. */
export function csvLine(cells: Cell[]): string {
  return (
    cells
      .map((c) => (c === null ? '' : typeof c === 'number' ? String(c) : textCell(c)))
      .join(',') + '\r\n'
  );
}

function stream(header: string[], batches: AsyncGenerator<Cell[][]>): Readable {
  async function* lines() {
    yield csvLine(header);
    for await (const rows of batches) yield rows.map(csvLine).join('');
  }
  return Readable.from(lines(), { objectMode: false });
}

export const LEDGER_CSV_COLUMNS = [
  'occurred_at',
  'id',
  'type',
  'payment_id',
  'refund_id',
  'dispute_id',
  'exception_id',
  'app_id',
  'provider',
  'mode',
  'currency',
  'amount_minor',
  'fee_minor',
];

/** GET /admin/ledger/export.csv: entries in [since, until), oldest first. */
export function ledgerCsv(
  pool: Pool,
  q: { since?: string; until?: string; provider?: string; mode?: string },
  nowMs: number,
): { filename: string; body: Readable } {
  const since = parseTimestamp('since', q.since);
  const until = parseTimestamp('until', q.until) ?? new Date(nowMs);
  if (since === null) throw apiError('invalid', 'since is required');
  if (since.getTime() > until.getTime()) throw apiError('invalid', 'since must not be after until');
  const provider = q.provider === undefined || q.provider === '' ? null : q.provider;
  if (provider !== null && !isProvider(provider)) {
    throw apiError('invalid', 'provider must be one of idr_psp, card_psp, wallet_psp');
  }
  const mode = resolveMode(q.mode);
  const rows = ledgerExportRows(pool, since, until, provider, mode);
  async function* cells() {
    for await (const batch of rows) {
      yield batch.map((r): Cell[] => [
        r.occurred_at,
        r.id,
        r.type,
        r.payment_id,
        r.refund_id,
        r.dispute_id,
        r.exception_id,
        r.app_id,
        r.provider,
        r.mode,
        r.currency,
        // Digits as the database holds them: exact at any size.
        r.amount_minor,
        r.fee_minor,
      ]);
    }
  }
  const day = (d: Date) => d.toISOString().slice(0, 10);
  return {
    filename: `ledger-${day(since)}-${day(until)}.csv`,
    body: stream(LEDGER_CSV_COLUMNS, cells()),
  };
}

export const RECONCILIATION_CSV_COLUMNS = [
  'provider',
  'mode',
  'date',
  'kind',
  'movement',
  'provider_ref',
  'payment_id',
  'currency',
  'gateway_amount_minor',
  'provider_amount_minor',
  'provider_status',
  'exception_id',
];

/** GET /admin/reconciliation/export.csv: the items of the day's newest run. */
export function reconciliationCsv(
  pool: Pool,
  q: { provider?: string; date?: string; mode?: string },
  nowMs: number,
): { filename: string; body: Readable } {
  const t = parseTarget(q, nowMs);
  const rows = reconciliationExportRows(pool, t.provider, t.mode, t.date);
  async function* cells() {
    for await (const batch of rows) {
      yield batch.map((r): Cell[] => [
        t.provider,
        t.mode,
        t.date,
        r.kind ?? null,
        r.movement ?? null,
        r.provider_ref ?? null,
        r.payment_id ?? null,
        r.currency ?? null,
        r.gateway ?? null,
        r.provider ?? null,
        r.provider_status ?? null,
        r.exception_id ?? null,
      ]);
    }
  }
  return {
    filename: `reconciliation-${t.provider}-${t.mode}-${t.date}.csv`,
    body: stream(RECONCILIATION_CSV_COLUMNS, cells()),
  };
}
