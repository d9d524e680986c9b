/**
 * Settlement report files (docs/api.md#reconciliation-imports): the operator uploads the
 * provider's file of a day; it is checked whole before anything is stored, stored once per
 * content (the same file again changes nothing), and listed with who uploaded it.
 */
import { createHash } from 'node:crypto';
import { withTransaction, type Pool } from '../db/pool.js';
import * as importsDb from '../db/reconciliationImports.js';
import { parseListLimit } from '../domain/adminQuery.js';
import { apiError } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { isProvider } from '../domain/types.js';
import { parseSettlementFile, SettlementFileError } from '../providers/idr_psp/settlementFile.js';
import type { Audit } from './audit.js';
import { parseTarget } from './reconciliation.js';

export interface ImportView {
  import_id: string;
  provider: string;
  mode: string;
  date: string;
  filename: string;
  row_count: number;
  uploaded_at: string;
  /** Who uploaded it, as the audit log records the request. */
  uploaded_by: { request_id: string; source_ip: string };
}

function toView(r: importsDb.ImportRow): ImportView {
  return {
    import_id: r.id,
    provider: r.provider,
    mode: r.mode,
    date: r.day,
    filename: r.filename,
    row_count: r.row_count,
    uploaded_at: r.uploaded_at.toISOString(),
    uploaded_by: { request_id: r.request_id, source_ip: r.source_ip },
  };
}

/** Only idr_psp reports by file; the others are read from their API. */
export const FILE_PROVIDERS = ['idr_psp'] as const;

const FILENAME = /^[\p{L}\p{N} ._()-]{1,200}$/u;

export interface UploadQuery {
  provider?: string;
  date?: string;
  mode?: string;
  filename?: string;
}

/** 201 with the new import, or 200 with the one already on record for the same bytes. */
export async function uploadSettlementFile(
  pool: Pool,
  q: UploadQuery,
  body: Buffer,
  source: { requestId: string; sourceIp: string },
  audit: Audit,
  nowMs: number,
): Promise<{ status: 200 | 201; body: ImportView }> {
  const t = parseTarget(q, nowMs);
  if (!(FILE_PROVIDERS as readonly string[]).includes(t.provider)) {
    throw apiError(
      'invalid',
      `provider ${t.provider} is reconciled from its API; settlement files are for idr_psp`,
    );
  }
  const filename =
    q.filename === undefined || q.filename === '' ? `${t.provider}-${t.date}.csv` : q.filename;
  if (!FILENAME.test(filename)) {
    throw apiError('invalid', 'filename must be 1 to 200 letters, digits, spaces or . _ ( ) -');
  }
  if (body.length === 0) throw apiError('invalid', 'settlement file is empty');
  const sha256 = createHash('sha256').update(body).digest();
  const existing = await importsDb.findImportBySha(pool, t.provider, t.mode, t.date, sha256);
  if (existing) return { status: 200, body: toView(existing) };
  let rows;
  try {
    rows = parseSettlementFile(body, t.date);
  } catch (err) {
    if (err instanceof SettlementFileError) throw apiError('invalid', err.message);
    throw err;
  }
  const stored = await withTransaction(pool, async (tx) => {
    const row = await importsDb.insertImport(
      tx,
      {
        id: newId(),
        provider: t.provider,
        mode: t.mode,
        day: t.date,
        sha256,
        filename,
        requestId: source.requestId,
        sourceIp: source.sourceIp,
      },
      rows,
    );
    if (row) {
      await audit(tx, {
        targetType: 'reconciliation_import',
        targetId: row.id,
        outcome: 'imported',
        details: { provider: row.provider, mode: row.mode, date: row.day, rows: row.row_count },
      });
    }
    return row;
  });
  if (stored) return { status: 201, body: toView(stored) };
  // The same bytes arrived at the same moment: the other upload stands.
  const raced = await importsDb.findImportBySha(pool, t.provider, t.mode, t.date, sha256);
  if (!raced) throw new Error('settlement file import vanished');
  return { status: 200, body: toView(raced) };
}

export async function listSettlementFiles(
  pool: Pool,
  q: { provider?: string; limit?: string },
): Promise<{ imports: ImportView[] }> {
  const provider = q.provider === undefined || q.provider === '' ? null : q.provider;
  if (provider !== null && !isProvider(provider)) {
    throw apiError('invalid', 'provider must be one of idr_psp, card_psp, wallet_psp');
  }
  const rows = await importsDb.listImports(pool, provider, parseListLimit(q.limit));
  return { imports: rows.map(toView) };
}
