/**
 * Seeds a migrated database with the admin benchmark's data set, in a few generate_series
 * statements: 6 apps (two per mode), PAYMENTS payments spread evenly over the last
 * SPREAD_DAYS days across 3 providers and 4 currencies (80 % succeeded, 8 % failed, 7 %
 * canceled, 5 % initiated), and REFUNDS refunds of succeeded payments (95 % succeeded);
 * then late charges, additional provider refunds and disputes (seedMovements, seedDisputes)
 * and the ledger of all of it.
 * Deterministic: the same arguments give the same rows (times relative to now).
 *
 *   tsx bench/seed-million.ts <database url> [payments=1000000] [refunds=100000] [days=365]
 *
 * (the command line form migrates the database first).
 */
import pg from 'pg';
import { encryptSecret } from '../src/auth/crypto.js';
import { migrate } from '../src/db/migrate.js';
import { MASTER_KEY } from './lib/env.js';

export interface SeedOptions {
  payments: number;
  refunds: number;
  spreadDays: number;
}

export const DEFAULT_SEED: SeedOptions = { payments: 1_000_000, refunds: 100_000, spreadDays: 365 };

export const SEED_APPS = [
  { id: 'app_seed_test_a', name: 'Seed test A', mode: 'test' },
  { id: 'app_seed_test_b', name: 'Seed test B', mode: 'test' },
  { id: 'app_seed_sandbox_a', name: 'Seed sandbox A', mode: 'sandbox' },
  { id: 'app_seed_sandbox_b', name: 'Seed sandbox B', mode: 'sandbox' },
  { id: 'app_seed_live_a', name: 'Seed live A', mode: 'live' },
  { id: 'app_seed_live_b', name: 'Seed live B', mode: 'live' },
] as const;

export async function seedMillion(
  databaseUrl: string,
  o: SeedOptions = DEFAULT_SEED,
  log: (m: string) => void = () => undefined,
): Promise<{ payments: number; refunds: number; seconds: number }> {
  const started = Date.now();
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    await c.query(`SET synchronous_commit = off`);
    await c.query(`SET maintenance_work_mem = '512MB'`);
    // Bulk load without per-row triggers (report_days invalidation) or foreign key checks;
    // the rollup is dropped at the end instead.
    await c.query(`SET session_replication_role = replica`);
    // The secrets sealed under the bench's master key: a gateway refuses to start on a
    // database whose stored secrets its MASTER_KEY does not open (src/auth/masterKeyCheck.ts).
    const seal = (plain: string) => encryptSecret(Buffer.from(MASTER_KEY, 'hex'), plain);
    for (const a of SEED_APPS) {
      await c.query(
        `INSERT INTO apps (id, name, mode, api_key, signing_secret_enc, webhook_secret_enc,
           allowed_providers, allowed_methods)
         VALUES ($1, $2, $3, 'pk_' || $1, $4, $5, '{idr_psp,card_psp,wallet_psp}', '{}')
         ON CONFLICT (id) DO NOTHING`,
        [a.id, a.name, a.mode, seal(`sk_seed_${a.id}`), seal(`whsec_seed_${a.id}`)],
      );
    }
    const apps = SEED_APPS.map((a) => a.id);
    const modes = SEED_APPS.map((a) => a.mode);
    // g decides everything: app by g % 6, provider and currency by g % 10, status by g % 100,
    // creation time by a multiplicative hash of g spread over the window.
    log(`inserting ${o.payments} payments over ${o.spreadDays} days`);
    // Ten million rows inserted one by one into nine indexes in random (hash) order would
    // take hours; the secondary indexes are dropped and built again after the load, sorted,
    // in the same transaction, so a failure leaves the table as it was.
    await c.query('BEGIN');
    const payIdx = await dropSecondaryIndexes(c, 'payments');
    await c.query(
      `INSERT INTO payments (id, app_id, mode, status, amount_minor, currency, method, provider,
         provider_ref, external_user_id, email, return_url, metadata, last_error, finalized_at,
         created_at, updated_at)
       SELECT md5('seed-payment-' || g), ($1::text[])[g % 6 + 1], ($2::text[])[g % 6 + 1], s.status,
         CASE WHEN k.cur = 'IDR' THEN 10000 + (g * 37) % 990000 ELSE 100 + (g * 13) % 49900 END,
         k.cur, k.method, k.provider, 'seed-' || g, 'buyer-' || (g % 50000), 'buyer@example.com',
         'https://shop.example/return', '{"seed":true}',
         CASE WHEN s.status = 'failed' THEN 'insufficient funds' ELSE '' END,
         CASE WHEN s.status = 'initiated' THEN NULL ELSE t.created + ((g % 600) || ' seconds')::interval END,
         t.created, t.created
       FROM generate_series(1, $3::int) g
       CROSS JOIN LATERAL (SELECT now() - (((g::bigint * 2654435761) % ($4::bigint * 86400)) || ' seconds')::interval
                             - interval '10 minutes' AS created) t
       CROSS JOIN LATERAL (SELECT CASE WHEN g % 100 < 80 THEN 'succeeded' WHEN g % 100 < 88 THEN 'failed'
                                       WHEN g % 100 < 95 THEN 'canceled' ELSE 'initiated' END AS status) s
       CROSS JOIN LATERAL (SELECT (ARRAY['idr_psp','idr_psp','idr_psp','idr_psp','idr_psp','card_psp',
                                         'card_psp','card_psp','wallet_psp','wallet_psp'])[g % 10 + 1] AS provider,
                                  (ARRAY['IDR','IDR','IDR','IDR','IDR','USD','EUR','GBP','USD','EUR'])[g % 10 + 1] AS cur,
                                  (ARRAY['qris','va_bca','qris','va_mandiri','qris','card_psp','card_psp',
                                         'card_psp','wallet_psp','wallet_psp'])[g % 10 + 1] AS method) k`,
      [apps, modes, o.payments, o.spreadDays],
    );
    log(`building ${payIdx.length} indexes of payments again`);
    for (const def of payIdx) await c.query(def);
    await c.query('COMMIT');
    log(`inserting ${o.refunds} refunds`);
    // Every seventh succeeded payment (by id order, which is a hash order) is refunded, up to
    // REFUNDS; a refund succeeds within three days of the payment, never in the future.
    await c.query(
      `INSERT INTO refunds (id, payment_id, app_id, mode, status, amount_minor, currency, provider,
         provider_ref, reason, last_error, succeeded_at, created_at, updated_at)
       SELECT md5('seed-refund-' || p.id), p.id, p.app_id, p.mode,
         CASE WHEN p.n % 20 = 0 THEN 'failed' ELSE 'succeeded' END,
         CASE WHEN p.n % 3 = 0 THEN greatest(1, p.amount_minor / 2) ELSE p.amount_minor END,
         p.currency, p.provider, 'seed-refund-' || p.n, 'seed', 
         CASE WHEN p.n % 20 = 0 THEN 'refund window passed' ELSE '' END,
         CASE WHEN p.n % 20 = 0 THEN NULL ELSE p.at END, p.at - interval '2 seconds', p.at
       FROM (SELECT id, app_id, mode, amount_minor, currency, provider, row_number() OVER () AS n,
               least(now() - interval '1 minute',
                     finalized_at + ((abs(hashtext(id)) % 259200) || ' seconds')::interval) AS at
             FROM payments WHERE status = 'succeeded' AND abs(hashtext(id)) % 7 = 0
             LIMIT $1) p`,
      [o.refunds],
    );
    // Operator lists (issue 15): one initiated payment in a thousand is past its provider
    // deadline, half of those already asked about by the reconciler; 100,000 audit entries.
    log('marking stuck payments and writing audit entries');
    await c.query(
      `UPDATE payments SET provider_deadline = created_at + interval '20 minutes',
         last_check_at = CASE WHEN abs(hashtext(id)) % 2 = 0 THEN now() END,
         last_check_asked = CASE WHEN abs(hashtext(id)) % 2 = 0 THEN 'payment status at ' || provider END,
         last_check_learned = CASE WHEN abs(hashtext(id)) % 2 = 0 THEN 'pending' END
       WHERE status = 'initiated' AND abs(hashtext(id)) % 1000 = 0`,
    );
    await c.query(
      `INSERT INTO audit_log (at, action, target_type, target_id, outcome, request_id, source_ip, details, actor)
       SELECT now() - (g || ' seconds')::interval,
         (ARRAY['payment.cancel','payment.refund','payment.retry_webhook','payment.sync','app.update'])[g % 5 + 1],
         CASE WHEN g % 5 = 4 THEN 'app' ELSE 'payment' END,
         CASE WHEN g % 5 = 4 THEN 'app_seed_test_a' ELSE md5('seed-payment-' || g) END,
         'seeded', 'req-' || g, '127.0.0.1', '{}', 'root'
       FROM generate_series(1, 100000) g`,
    );
    log('seeding late charges, additional refunds and disputes');
    await seedMovements(c);
    // The ledger the gateway would have booked for these rows (the reports sum it, D16). A
    // database of a version before the ledger (measured as "before", docs/performance.md)
    // has no backfill function and no disputes: it gets the same payments and refunds.
    if (await exists(c, `SELECT to_regproc('ledger_backfill') IS NOT NULL AS ok`)) {
      log('booking the ledger');
      // Still in replica mode: the per-row trigger that drops past days from the rollup is
      // skipped (report_days is emptied below anyway), and the indexes are built after.
      await c.query('BEGIN');
      const ledgerIdx = await dropSecondaryIndexes(c, 'ledger_entries');
      await c.query('SELECT ledger_backfill()');
      for (const def of ledgerIdx) await c.query(def);
      await c.query('COMMIT');
      if (await exists(c, `SELECT to_regclass('disputes') IS NOT NULL AS ok`)) {
        await seedDisputes(c);
      }
    }
    await c.query(`SET session_replication_role = origin`);
    await c.query('DELETE FROM report_days');
    log('vacuum analyze');
    await c.query('VACUUM ANALYZE payments');
    await c.query('VACUUM ANALYZE refunds');
    await c.query('VACUUM ANALYZE audit_log');
    for (const table of ['ledger_entries', 'payment_exceptions', 'disputes']) {
      if (await exists(c, `SELECT to_regclass('${table}') IS NOT NULL AS ok`)) {
        await c.query(`VACUUM ANALYZE ${table}`);
      }
    }
    const counts = await c.query<{ p: number; r: number }>(
      `SELECT (SELECT count(*)::int FROM payments) AS p, (SELECT count(*)::int FROM refunds) AS r`,
    );
    return {
      payments: counts.rows[0]?.p ?? 0,
      refunds: counts.rows[0]?.r ?? 0,
      seconds: Math.round((Date.now() - started) / 100) / 10,
    };
  } finally {
    await c.end();
  }
}

/**
 * Drops the indexes of `table` that back no constraint and answers their definitions, to be
 * run again once the rows are in (a sorted build is much faster than row-by-row inserts).
 */
async function dropSecondaryIndexes(c: pg.Client, table: string): Promise<string[]> {
  const { rows } = await c.query<{ name: string; def: string }>(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def
     FROM pg_index i
     WHERE i.indrelid = $1::regclass
       AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)`,
    [table],
  );
  for (const r of rows) await c.query(`DROP INDEX ${r.name}`);
  return rows.map((r) => r.def);
}

async function exists(c: pg.Client, sql: string): Promise<boolean> {
  return (await c.query<{ ok: boolean }>(sql)).rows[0]?.ok === true;
}

/**
 * The rest of what the ledger books besides charges and refunds, so its rows are realistic:
 * one canceled or failed payment in 100 was paid at the provider all the same (a late charge,
 * D13), half of those refunded; one partially refunded payment in 10 has a second refund
 * made at the provider (`additional`).
 */
export async function seedMovements(c: pg.Client): Promise<void> {
  await c.query(
    `INSERT INTO payment_exceptions (id, payment_id, app_id, kind, provider, provider_ref,
       amount_minor, currency, detected_at, resolution)
     SELECT md5('seed-exception-' || id), id, app_id,
       CASE WHEN status = 'canceled' THEN 'paid_after_cancel' ELSE 'paid_after_failure' END,
       provider, provider_ref, amount_minor, currency,
       least(now() - interval '2 minutes', finalized_at + interval '5 minutes'),
       CASE WHEN abs(hashtext(id || ':resolution')) % 2 = 0 THEN 'refunded' ELSE 'manual' END
     FROM payments WHERE status IN ('canceled', 'failed') AND abs(hashtext(id)) % 100 = 0`,
  );
  await c.query(
    `INSERT INTO refunds (id, payment_id, app_id, mode, status, amount_minor, currency, provider,
       provider_ref, reason, succeeded_at, created_at, updated_at)
     SELECT md5('seed-late-refund-' || e.id), e.payment_id, e.app_id, p.mode, 'succeeded',
       e.amount_minor, e.currency, e.provider, 'seed-late-refund-' || e.id, 'late charge',
       least(now() - interval '1 minute', e.detected_at + interval '1 hour'), e.detected_at,
       least(now() - interval '1 minute', e.detected_at + interval '1 hour')
     FROM payment_exceptions e JOIN payments p ON p.id = e.payment_id
     WHERE e.resolution = 'refunded' AND e.id = md5('seed-exception-' || e.payment_id)`,
  );
  await c.query(
    `INSERT INTO refunds (id, payment_id, app_id, mode, status, amount_minor, currency, provider,
       provider_ref, reason, succeeded_at, created_at, updated_at, additional)
     SELECT md5('seed-additional-refund-' || r.id), r.payment_id, r.app_id, r.mode, 'succeeded',
       p.amount_minor - r.amount_minor, r.currency, r.provider,
       'seed-additional-' || r.provider_ref, '',
       least(now() - interval '1 minute', r.succeeded_at + interval '1 day'),
       least(now() - interval '1 minute', r.succeeded_at + interval '1 day'),
       least(now() - interval '1 minute', r.succeeded_at + interval '1 day'), true
     FROM refunds r JOIN payments p ON p.id = r.payment_id
     WHERE r.status = 'succeeded' AND r.amount_minor < p.amount_minor
       AND r.reason = 'seed' AND abs(hashtext(r.id)) % 10 = 0`,
  );
}

/**
 * One succeeded idr_psp or wallet_psp payment in 200 is disputed (D16): 30 % still open,
 * 40 % lost, 30 % won; one in three for half the amount (a partial chargeback). The ledger
 * takes the money back when the dispute opens and gives it back when it is won, as
 * services/disputes.ts books them.
 */
export async function seedDisputes(c: pg.Client): Promise<void> {
  await c.query(
    `INSERT INTO disputes (id, payment_id, app_id, provider, provider_ref, mode, status,
       amount_minor, currency, reason, evidence_due_by, opened_at, closed_at, updated_at)
     SELECT md5('seed-dispute-' || p.id), p.id, p.app_id, p.provider,
       CASE WHEN p.provider = 'wallet_psp' THEN 'PP-D-' || p.provider_ref ELSE p.provider_ref END,
       p.mode, s.status,
       CASE WHEN p.k % 3 = 0 THEN greatest(1, p.amount_minor / 2) ELSE p.amount_minor END,
       p.currency, 'seed', CASE WHEN s.status = 'open' THEN t.opened + interval '10 days' END,
       t.opened, CASE WHEN s.status <> 'open' THEN t.closed END, coalesce(t.closed, t.opened)
     FROM (SELECT *, abs(hashtext(id)) AS h, abs(hashtext(id || ':dispute')) AS k FROM payments
           WHERE status = 'succeeded' AND provider IN ('idr_psp', 'wallet_psp')
             AND abs(hashtext(id)) % 200 = 1) p
     CROSS JOIN LATERAL (SELECT CASE WHEN p.k % 10 < 3 THEN 'open' WHEN p.k % 10 < 7 THEN 'lost'
                                     ELSE 'won' END AS status) s
     CROSS JOIN LATERAL (SELECT o AS opened,
                                least(now() - interval '1 minute', o + interval '7 days') AS closed
                         FROM (SELECT least(now() - interval '2 minutes',
                                            p.finalized_at + ((p.k % 2592000) || ' seconds')::interval) AS o) x) t`,
  );
  await c.query(
    `INSERT INTO ledger_entries (id, type, payment_id, dispute_id, app_id, provider, mode,
       currency, amount_minor, occurred_at)
     SELECT md5('dispute:' || d.id), 'dispute', d.payment_id, d.id, d.app_id, d.provider, d.mode,
       d.currency, -d.amount_minor, d.opened_at FROM disputes d WHERE d.reason = 'seed'
     UNION ALL
     SELECT md5('dispute_reversal:' || d.id), 'dispute_reversal', d.payment_id, d.id, d.app_id,
       d.provider, d.mode, d.currency, d.amount_minor, d.closed_at
     FROM disputes d WHERE d.reason = 'seed' AND d.status = 'won'
     ON CONFLICT DO NOTHING`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [url, payments, refunds, days] = process.argv.slice(2);
  if (!url) {
    console.error('usage: tsx bench/seed-million.ts <database url> [payments] [refunds] [days]');
    process.exit(2);
  }
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  migrate(pool)
    .finally(() => pool.end())
    .then(() =>
      seedMillion(
        url,
        {
          payments: Number(payments ?? DEFAULT_SEED.payments),
          refunds: Number(refunds ?? DEFAULT_SEED.refunds),
          spreadDays: Number(days ?? DEFAULT_SEED.spreadDays),
        },
        (m) => console.log(`[seed] ${m}`),
      ),
    )
    .then(
      (r) => console.log(`[seed] done: ${JSON.stringify(r)}`),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
}
