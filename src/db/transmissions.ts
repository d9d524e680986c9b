import type { Queryable } from './pool.js';

export type TransmissionSeen = 'new' | 'same_body' | 'other_body';

/**
 * Remembers a verified delivery under the provider's own transmission id, in one statement:
 * 'new' the first time, 'same_body' for a redelivery of the same bytes, 'other_body' when
 * the id comes back with another body (a replayed signature over an edited body).
 */
export async function rememberTransmission(
  db: Queryable,
  provider: string,
  transmissionId: string,
  bodySha256: Buffer,
): Promise<TransmissionSeen> {
  // The outer SELECT does not see the CTE's own insert: `known` is the earlier row, if any.
  const res = await db.query<{ inserted: boolean; same: boolean | null }>({
    name: 'transmissions_remember',
    text: `WITH ins AS (
       INSERT INTO provider_transmissions (provider, transmission_id, body_sha256)
       VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1)
     SELECT EXISTS (SELECT 1 FROM ins) AS inserted,
       (SELECT body_sha256 = $3 FROM provider_transmissions
        WHERE provider = $1 AND transmission_id = $2) AS same`,
    values: [provider, transmissionId, bodySha256],
  });
  const row = res.rows[0];
  if (!row || row.inserted) return 'new';
  return row.same ? 'same_body' : 'other_body';
}
