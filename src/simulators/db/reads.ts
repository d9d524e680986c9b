import type { Queryable } from './pool.js';

// Provider-specific reads: the simulators' sweeps and reports look into the provider's own
// JSON, so these queries name fields of it.

/** idr_psp: pending transactions (with a chosen channel) whose expiry has passed, oldest first. */
export async function findDueIdrTransactionIds(
  db: Queryable,
  nowMs: number,
  limit: number,
): Promise<string[]> {
  const res = await db.query<{ id: string }>(
    `SELECT id FROM paygate_sim.sim_objects
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
    `SELECT id FROM paygate_sim.sim_objects WHERE provider = 'wallet_psp' AND kind = 'order'
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
    `SELECT id FROM paygate_sim.sim_objects WHERE provider = 'wallet_psp' AND kind = 'capture_refunds'
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
    `SELECT kind, data FROM paygate_sim.sim_objects WHERE provider = 'wallet_psp'
       AND kind IN ('order', 'capture_refunds', 'payout', 'dispute') AND data->>'clientId' = $1`,
    [clientId],
  );
  return res.rows;
}

/** wallet_psp: one client id's payouts in the order they were made. */
export async function listWalletPayouts<T>(db: Queryable, clientId: string): Promise<T[]> {
  const res = await db.query<{ data: T }>(
    `SELECT data FROM paygate_sim.sim_objects WHERE provider = 'wallet_psp' AND kind = 'payout'
       AND data->>'clientId' = $1 ORDER BY (data->>'createdAt')::bigint, id`,
    [clientId],
  );
  return res.rows.map((r) => r.data);
}

/** card_psp: every checkout that led to an order (the order and refund lists). */
export async function listCardCheckoutsWithOrders<T>(db: Queryable): Promise<T[]> {
  const res = await db.query<{ data: T }>(
    `SELECT data FROM paygate_sim.sim_objects WHERE provider = 'card_psp' AND kind = 'checkout'
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
    `SELECT data FROM paygate_sim.sim_objects WHERE provider = 'idr_psp' AND kind = 'transaction'
       AND ((data->>'settlement_time_ms')::bigint >= $1
            OR jsonb_array_length(COALESCE(data->'refunds', '[]'::jsonb)) > 0)`,
    [sinceMs],
  );
  return res.rows.map((r) => r.data);
}
