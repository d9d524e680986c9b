import pg from 'pg';
import { ADMIN_TOKEN } from './env.js';

export interface BenchApp {
  app_id: string;
  api_key: string;
  signing_secret: string;
  webhook_secret: string;
}

export async function createApp(
  gatewayUrl: string,
  body: Record<string, unknown>,
): Promise<BenchApp> {
  const res = await fetch(`${gatewayUrl}/admin/apps`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', ...body }),
  });
  if (res.status !== 201) throw new Error(`create app: ${res.status} ${await res.text()}`);
  return (await res.json()) as BenchApp;
}

/**
 * n idr_psp qris payments for one app in one statement; every other one succeeded (with a
 * provider reference), the rest initiated. Returns their ids.
 */
export async function seedPayments(
  databaseUrl: string,
  appId: string,
  n: number,
  allInitiated = false,
): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const res = await client.query<{ id: string }>(
      `INSERT INTO payments (id, app_id, mode, status, amount_minor, currency, method, provider, provider_ref,
         external_user_id, email, return_url, metadata, finalized_at)
       SELECT md5(random()::text || g::text), $1, 'test',
         CASE WHEN $3 OR g % 2 = 0 THEN 'initiated' ELSE 'succeeded' END,
         1000 + g, 'IDR', 'qris', 'idr_psp', 'ref-' || g, 'buyer-' || g, 'b@example.com',
         'https://shop.example/', '{"order":"bench"}',
         CASE WHEN $3 OR g % 2 = 0 THEN NULL ELSE now() END
       FROM generate_series(1, $2) g RETURNING id`,
      [appId, n, allInitiated],
    );
    return res.rows.map((r) => r.id);
  } finally {
    await client.end();
  }
}

/**
 * The provider's side of seeded initiated payments: each one settled at the idr_psp
 * simulator for its own amount, as if the buyer had paid, so a settlement notification the
 * gateway confirms with the status API (docs/providers/idr_psp.md) is borne out. One
 * statement, in the simulator's stored shape (paygate_sim.sim_objects, kind 'transaction').
 */
export async function settleAtProvider(databaseUrl: string, ids: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const now = Date.now();
    await client.query(
      `INSERT INTO paygate_sim.sim_objects (provider, kind, id, data)
       SELECT 'idr_psp', 'transaction', p.id, jsonb_build_object(
         'order_id', p.id, 'transaction_id', 'tx-' || p.id, 'token', NULL, 'flow', 'charge',
         'channel', 'other_qris', 'gross_amount', p.amount_minor, 'currency', 'IDR',
         'email', p.email, 'finish_url', NULL, 'merchant_id', 'G000000000',
         'transaction_status', 'settlement', 'status_message', 'midtrans payment notification',
         'transaction_time_ms', $2::bigint, 'expiry_ms', $2::bigint + 1200000,
         'settlement_time_ms', $2::bigint, 'va_number', NULL, 'bill_key', NULL,
         'biller_code', NULL, 'qr_string', NULL, 'wallet', NULL)
       FROM payments p WHERE p.id = ANY($1)`,
      [ids, now],
    );
  } finally {
    await client.end();
  }
}
