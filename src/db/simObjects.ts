// Named (prepared once per connection): the simulators answer every test-mode payment, and
// an unnamed statement is parsed and planned again each time (issue 28).
import { withTransaction, type Pool, type Queryable } from './pool.js';

/** One simulator object: (provider, kind, id) names it; data is the provider's own JSON. */
export interface SimObjectKey {
  provider: string;
  kind: string;
  id: string;
}

export async function findSimObject<T>(db: Queryable, k: SimObjectKey): Promise<T | null> {
  const res = await db.query<{ data: T }>({
    name: 'sim_objects_by_id',
    text: 'SELECT data FROM sim_objects WHERE provider = $1 AND kind = $2 AND id = $3',
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
    text: 'SELECT data FROM sim_objects WHERE provider = $1 AND kind = $2 AND idempotency_key = $3',
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
    text: `INSERT INTO sim_objects (provider, kind, id, idempotency_key, data) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT DO NOTHING RETURNING data`,
    values: [k.provider, k.kind, k.id, idempotencyKey, JSON.stringify(data)],
  });
  return res.rows[0]?.data ?? null;
}

/**
 * insertSimObject plus rows of other kinds pointing at it (reference aliases), in one
 * statement; the links are written only when the object itself is new.
 */
export async function insertLinkedSimObject<T>(
  db: Queryable,
  k: SimObjectKey,
  data: T,
  links: { kind: string; id: string; data: object }[],
): Promise<T | null> {
  const res = await db.query<{ data: T }>({
    name: 'sim_objects_insert_linked',
    text: `WITH main AS (
       INSERT INTO sim_objects (provider, kind, id, data) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING RETURNING data),
     linked AS (
       INSERT INTO sim_objects (provider, kind, id, data)
       SELECT $1, l.kind, l.id, l.data FROM jsonb_to_recordset($5::jsonb) AS l(kind text, id text, data jsonb)
       WHERE EXISTS (SELECT 1 FROM main)
       ON CONFLICT DO NOTHING)
     SELECT data FROM main`,
    values: [k.provider, k.kind, k.id, JSON.stringify(data), JSON.stringify(links)],
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
  return withTransaction(pool, async (tx) => {
    const res = await tx.query<{ data: T }>({
      name: 'sim_objects_lock',
      text: 'SELECT data FROM sim_objects WHERE provider = $1 AND kind = $2 AND id = $3 FOR UPDATE',
      values: [k.provider, k.kind, k.id],
    });
    const current = res.rows[0]?.data;
    if (!current) return null;
    const next = update(current);
    if (next) {
      await tx.query({
        name: 'sim_objects_update',
        text: `UPDATE sim_objects SET data = $4, updated_at = now() WHERE provider = $1 AND kind = $2 AND id = $3`,
        values: [k.provider, k.kind, k.id, JSON.stringify(next)],
      });
    }
    return next ?? current;
  });
}

// Provider-specific reads: the simulators' sweeps and reports look into the provider's own
// JSON, so these queries name fields of it.

/** idr_psp: pending transactions (with a chosen channel) whose expiry has passed, oldest first. */
export async function findDueIdrTransactionIds(
  db: Queryable,
  nowMs: number,
  limit: number,
): Promise<string[]> {
  const res = await db.query<{ id: string }>(
    `SELECT id FROM sim_objects
      WHERE provider = 'idr_psp' AND kind = 'transaction'
        AND data->>'transaction_status' = 'pending' AND (data->>'expiry_ms')::bigint <= $1
        AND coalesce(data->>'chosen', 'true') <> 'false'
      ORDER BY (data->>'expiry_ms')::bigint LIMIT $2`,
    [nowMs, limit],
  );
  return res.rows.map((r) => r.id);
}

/** wallet_psp: the order holding a capture (captures live inside their order). */
export async function findWalletOrderIdByCapture(
  db: Queryable,
  captureId: string,
): Promise<string | null> {
  const res = await db.query<{ id: string }>(
    `SELECT id FROM sim_objects WHERE provider = 'wallet_psp' AND kind = 'order'
       AND data #>> '{order,purchase_units,0,payments,captures,0,id}' = $1`,
    [captureId],
  );
  return res.rows[0]?.id ?? null;
}

/** wallet_psp: the capture a refund belongs to (refunds are kept per capture). */
export async function findWalletCaptureIdByRefund(
  db: Queryable,
  refundId: string,
): Promise<string | null> {
  const res = await db.query<{ id: string }>(
    `SELECT id FROM sim_objects WHERE provider = 'wallet_psp' AND kind = 'capture_refunds'
       AND data->'refunds' @> jsonb_build_array(jsonb_build_object('refund', jsonb_build_object('id', $1::text)))`,
    [refundId],
  );
  return res.rows[0]?.id ?? null;
}

/** wallet_psp: one client id's orders, capture refunds and payouts, the inputs of its balance. */
export async function listWalletMoneyObjects(
  db: Queryable,
  clientId: string,
): Promise<{ kind: string; data: unknown }[]> {
  const res = await db.query<{ kind: string; data: unknown }>(
    `SELECT kind, data FROM sim_objects WHERE provider = 'wallet_psp'
       AND kind IN ('order', 'capture_refunds', 'payout', 'dispute') AND data->>'clientId' = $1`,
    [clientId],
  );
  return res.rows;
}

/** wallet_psp: one client id's payouts in the order they were made. */
export async function listWalletPayouts<T>(db: Queryable, clientId: string): Promise<T[]> {
  const res = await db.query<{ data: T }>(
    `SELECT data FROM sim_objects WHERE provider = 'wallet_psp' AND kind = 'payout'
       AND data->>'clientId' = $1 ORDER BY (data->>'createdAt')::bigint, id`,
    [clientId],
  );
  return res.rows.map((r) => r.data);
}

/** card_psp: every checkout that led to an order (the order and refund lists). */
export async function listCardCheckoutsWithOrders<T>(db: Queryable): Promise<T[]> {
  const res = await db.query<{ data: T }>(
    `SELECT data FROM sim_objects WHERE provider = 'card_psp' AND kind = 'checkout'
       AND jsonb_typeof(data->'order') = 'object'`,
  );
  return res.rows.map((r) => r.data);
}

/**
 * idr_psp: transactions settled from `sinceMs` on, or with refunds (the settlement report;
 * refunds are filtered by their own times by the caller).
 */
export async function listIdrReportTransactions<T>(db: Queryable, sinceMs: number): Promise<T[]> {
  const res = await db.query<{ data: T }>(
    `SELECT data FROM sim_objects WHERE provider = 'idr_psp' AND kind = 'transaction'
       AND ((data->>'settlement_time_ms')::bigint >= $1
            OR jsonb_array_length(COALESCE(data->'refunds', '[]'::jsonb)) > 0)`,
    [sinceMs],
  );
  return res.rows.map((r) => r.data);
}
