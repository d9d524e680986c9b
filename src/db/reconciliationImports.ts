/** SQL of uploaded settlement report files (migration 0017): stored once per content. */
import type { FileMovement } from '../domain/reconciliation.js';
import type { Mode } from '../domain/types.js';
import type { Queryable } from './pool.js';

export interface ImportRow {
  id: string;
  provider: string;
  mode: Mode;
  day: string;
  filename: string;
  row_count: number;
  uploaded_at: Date;
  request_id: string;
  source_ip: string;
}

const COLUMNS = `id, provider, mode, to_char(day, 'YYYY-MM-DD') AS day, filename, row_count,
  uploaded_at, request_id, source_ip`;

export interface NewImport {
  id: string;
  provider: string;
  mode: Mode;
  day: string;
  sha256: Buffer;
  filename: string;
  requestId: string;
  sourceIp: string;
}

/** Rows are written in batches of this many (a statement's parameters stay small). */
const BATCH = 5000;

/**
 * Stores the file and its rows in the caller's transaction; null when the same content is on
 * record for the provider and mode (the first upload stands).
 */
export async function insertImport(
  tx: Queryable,
  imp: NewImport,
  rows: FileMovement[],
): Promise<ImportRow | null> {
  const res = await tx.query<ImportRow>(
    `INSERT INTO reconciliation_imports (id, provider, mode, day, sha256, filename, row_count,
       request_id, source_ip)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (provider, mode, day, sha256) DO NOTHING RETURNING ${COLUMNS}`,
    [
      imp.id,
      imp.provider,
      imp.mode,
      imp.day,
      imp.sha256,
      imp.filename,
      rows.length,
      imp.requestId,
      imp.sourceIp,
    ],
  );
  const stored = res.rows[0];
  if (!stored) return null;
  for (let i = 0; i < rows.length; i += BATCH) {
    const b = rows.slice(i, i + BATCH);
    await tx.query(
      `INSERT INTO reconciliation_import_rows (import_id, line, type, provider_ref, payment_ref,
         status, currency, amount_minor, fee_minor, occurred_at)
       SELECT $1, * FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[],
         $7::text[], $8::bigint[], $9::bigint[], $10::timestamptz[])`,
      [
        imp.id,
        b.map((r) => r.line),
        b.map((r) => r.type),
        b.map((r) => r.providerRef),
        b.map((r) => r.paymentRef),
        b.map((r) => r.status),
        b.map((r) => r.currency),
        b.map((r) => r.amountMinor),
        b.map((r) => r.feeMinor),
        b.map((r) => r.occurredAt),
      ],
    );
  }
  return stored;
}

/** The upload of these bytes for this day, if any. */
export async function findImportBySha(
  db: Queryable,
  provider: string,
  mode: Mode,
  day: string,
  sha256: Buffer,
): Promise<ImportRow | null> {
  const res = await db.query<ImportRow>(
    `SELECT ${COLUMNS} FROM reconciliation_imports
     WHERE provider = $1 AND mode = $2 AND day = $3 AND sha256 = $4`,
    [provider, mode, day, sha256],
  );
  return res.rows[0] ?? null;
}

/** The newest upload of each of the given days (a day's last file is its record). */
export async function latestImports(
  db: Queryable,
  provider: string,
  mode: Mode,
  days: string[],
): Promise<ImportRow[]> {
  const res = await db.query<ImportRow>(
    `SELECT DISTINCT ON (day) ${COLUMNS} FROM reconciliation_imports
     WHERE provider = $1 AND mode = $2 AND day = ANY($3::date[])
     ORDER BY day, uploaded_at DESC, id DESC`,
    [provider, mode, days],
  );
  return res.rows;
}

/** Newest first, optionally one provider's; at most limit. */
export async function listImports(
  db: Queryable,
  provider: string | null,
  limit: number,
): Promise<ImportRow[]> {
  const res = await db.query<ImportRow>(
    `SELECT ${COLUMNS} FROM reconciliation_imports WHERE $1::text IS NULL OR provider = $1
     ORDER BY uploaded_at DESC, id DESC LIMIT $2`,
    [provider, limit],
  );
  return res.rows;
}
