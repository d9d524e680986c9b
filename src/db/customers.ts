import type { Queryable } from './pool.js';

/** Tracks a buyer across payments (spec 2.3): one row per (app, external_user_id). */
export async function upsertCustomer(
  db: Queryable,
  appId: string,
  externalUserId: string,
  email: string | null,
): Promise<void> {
  await db.query({
    name: 'customers_upsert',
    text: `INSERT INTO customers (app_id, external_user_id, email, payments_count)
       VALUES ($1, $2, $3, 1)
       ON CONFLICT (app_id, external_user_id) DO UPDATE SET
         email = COALESCE(EXCLUDED.email, customers.email),
         payments_count = customers.payments_count + 1,
         updated_at = now()`,
    values: [appId, externalUserId, email],
  });
}
