import type { Queryable } from './pool.js';
import { batchedPerPool } from './statementBatcher.js';

export type TransmissionSeen = 'new' | 'same_body' | 'other_body';

interface Transmission {
  provider: string;
  transmissionId: string;
  bodySha256: Buffer;
}

/**
 * Remembers a verified delivery under the provider's own transmission id: 'new' the first
 * time, 'same_body' for a redelivery of the same bytes, 'other_body' when the id comes back
 * with another body (a replayed signature over an edited body). On a pool, the deliveries
 * verified together are remembered by one statement: every webhook of a provider that names
 * its transmissions (card_psp, wallet_psp) comes here.
 */
export async function rememberTransmission(
  db: Queryable,
  provider: string,
  transmissionId: string,
  bodySha256: Buffer,
): Promise<TransmissionSeen> {
  return remember(db, { provider, transmissionId, bodySha256 });
}

// The outer SELECT does not see the CTE's own insert: `same` compares with the earlier row,
// if any. Inserted in key order: two statements sharing ids wait for one another (a key a
// concurrent statement is inserting is waited for), never deadlock.
const REMEMBER_SQL = `WITH input AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::bytea[])
    WITH ORDINALITY AS i(provider, transmission_id, body_sha256, ord)),
ins AS (
  INSERT INTO provider_transmissions (provider, transmission_id, body_sha256)
  SELECT provider, transmission_id, body_sha256 FROM input
  ORDER BY provider COLLATE "C", transmission_id COLLATE "C"
  ON CONFLICT DO NOTHING RETURNING provider, transmission_id)
SELECT EXISTS (SELECT 1 FROM ins WHERE ins.provider = i.provider
    AND ins.transmission_id = i.transmission_id) AS inserted,
  (SELECT t.body_sha256 = i.body_sha256 FROM provider_transmissions t
   WHERE t.provider = i.provider AND t.transmission_id = i.transmission_id) AS same
FROM input i ORDER BY i.ord`;

async function rememberTransmissions(
  db: Queryable,
  items: Transmission[],
): Promise<TransmissionSeen[]> {
  const res = await db.query<{ inserted: boolean; same: boolean | null }>({
    name: 'transmissions_remember_batch',
    text: REMEMBER_SQL,
    values: [
      items.map((t) => t.provider),
      items.map((t) => t.transmissionId),
      items.map((t) => t.bodySha256),
    ],
  });
  if (res.rows.length !== items.length) throw new Error('transmissions: one row per item expected');
  const seen = res.rows.map((r) =>
    r.inserted ? 'new' : r.same === null ? null : r.same ? 'same_body' : 'other_body',
  );
  // Not inserted and no row seen: another statement inserted the id after this one's
  // snapshot was taken (the insert waited for it to commit). Its body is read now, so a
  // provider's delivery sent twice at once is a redelivery, not a replay.
  const late = items.filter((_, i) => seen[i] === null);
  if (late.length > 0) {
    const now = await db.query<{ provider: string; transmission_id: string; body_sha256: Buffer }>({
      name: 'transmissions_read',
      text: `SELECT t.provider, t.transmission_id, t.body_sha256 FROM provider_transmissions t
         JOIN unnest($1::text[], $2::text[]) AS k(provider, transmission_id)
           ON t.provider = k.provider AND t.transmission_id = k.transmission_id`,
      values: [late.map((t) => t.provider), late.map((t) => t.transmissionId)],
    });
    const bodies = new Map(
      now.rows.map((r) => [transmissionKey(r.provider, r.transmission_id), r.body_sha256]),
    );
    items.forEach((t, i) => {
      if (seen[i] !== null) return;
      const body = bodies.get(transmissionKey(t.provider, t.transmissionId));
      seen[i] = body && body.equals(t.bodySha256) ? 'same_body' : 'other_body';
    });
  }
  return seen as TransmissionSeen[];
}

// The same transmission twice never shares a statement: the later one finds the first's row.
const remember = batchedPerPool(rememberTransmissions, (t) =>
  transmissionKey(t.provider, t.transmissionId),
);

function transmissionKey(provider: string, transmissionId: string): string {
  return `${provider}\n${transmissionId}`;
}
