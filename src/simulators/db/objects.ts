// The simulators' state: provider objects as JSON in paygate_sim.sim_objects, (provider,
// kind, id) each. The schema is theirs (db/migrate.ts, db/migrations/), in the database they
// are given: the gateway's, mounted in it or beside it, or one of their own. The gateway's
// code never names it; its retention job only calls purgeOldSimObjects (Simulators.purgeOld).
//
// Named (prepared once per connection): the simulators answer every test-mode payment, and
// an unnamed statement is parsed and planned again each time (issue 28).
import type { Pool, PoolClient, Queryable } from './pool.js';

/** One simulator object: (provider, kind, id) names it; data is the provider's own JSON. */
export interface SimObjectKey {
  provider: string;
  kind: string;
  id: string;
}

export async function findSimObject<T>(db: Queryable, k: SimObjectKey): Promise<T | null> {
  const res = await db.query<{ data: T }>({
    name: 'sim_objects_by_id',
    text: 'SELECT data FROM paygate_sim.sim_objects WHERE provider = $1 AND kind = $2 AND id = $3',
    values: [k.provider, k.kind, k.id],
  });
  return res.rows[0]?.data ?? null;
}

export async function findSimObjectByIdempotencyKey<T>(
  db: Queryable,
  provider: string,
  kind: string,
  idempotencyKey: string,
): Promise<T | null> {
  const res = await db.query<{ data: T }>({
    name: 'sim_objects_by_idempotency_key',
    text: 'SELECT data FROM paygate_sim.sim_objects WHERE provider = $1 AND kind = $2 AND idempotency_key = $3',
    values: [provider, kind, idempotencyKey],
  });
  return res.rows[0]?.data ?? null;
}

/** Inserts unless the id or the idempotency key is taken; the stored data, or null. */
export async function insertSimObject<T>(
  db: Queryable,
  k: SimObjectKey,
  data: T,
  idempotencyKey: string | null,
): Promise<T | null> {
  const res = await db.query<{ data: T }>({
    name: 'sim_objects_insert',
    text: `INSERT INTO paygate_sim.sim_objects (provider, kind, id, idempotency_key, data) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT DO NOTHING RETURNING data`,
    values: [k.provider, k.kind, k.id, idempotencyKey, JSON.stringify(data)],
  });
  return res.rows[0]?.data ?? null;
}

/**
 * Read-modify-write under a row lock in one transaction, so two concurrent actions on one
 * object serialize. update returns the new data, or null to leave the object unchanged;
 * the result is the data as it stands afterwards (null: no such object).
 */
export async function updateSimObject<T>(
  pool: Pool,
  k: SimObjectKey,
  update: (current: T) => T | null,
): Promise<T | null> {
  return inTransaction(pool, async (tx) => {
    const res = await tx.query<{ data: T }>({
      name: 'sim_objects_lock',
      text: 'SELECT data FROM paygate_sim.sim_objects WHERE provider = $1 AND kind = $2 AND id = $3 FOR UPDATE',
      values: [k.provider, k.kind, k.id],
    });
    const current = res.rows[0]?.data;
    if (!current) return null;
    const next = update(current);
    if (next) {
      await tx.query({
        name: 'sim_objects_update',
        text: `UPDATE paygate_sim.sim_objects SET data = $4, updated_at = now() WHERE provider = $1 AND kind = $2 AND id = $3`,
        values: [k.provider, k.kind, k.id, JSON.stringify(next)],
      });
    }
    return next ?? current;
  });
}

async function inTransaction<T>(pool: Pool, fn: (c: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * Objects nothing has created or changed within the retention (docs/operations.md#retention),
 * a batch at a time; the number deleted: a flow still in use (a refund or a dispute raised
 * weeks after the payment) changes its object, which keeps it. Served by
 * sim_objects_created_idx (their migration 0001), which never changes after the insert, so the
 * objects' updates stay HOT. The simulators run as their own process purge their database
 * with it; mounted in the gateway, the gateway's retention job calls it (Simulators.purgeOld).
 */
export async function purgeOldSimObjects(
  db: Queryable,
  retentionDays: number,
  batch = 1000,
): Promise<number> {
  const res = await db.query(
    `DELETE FROM paygate_sim.sim_objects WHERE (provider, kind, id) IN (
       SELECT provider, kind, id FROM paygate_sim.sim_objects
       WHERE created_at < now() - $1 * interval '1 day'
         AND updated_at < now() - $1 * interval '1 day'
       ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    [retentionDays, batch],
  );
  return res.rowCount ?? 0;
}
