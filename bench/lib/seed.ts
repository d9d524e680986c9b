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
