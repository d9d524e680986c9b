/**
 * Migration 0039 (docs/performance.md#storage-per-payment-sixth-pass): five of the admin
 * payment list's indexes by creation time hold (…, created_at DESC) without the payment id,
 * and the list sorts the rows of one created_at by id (the status filter's keeps its id). Payments that share a creation time to the
 * microsecond (a batch written in one transaction) are still listed newest first, ties by id
 * descending, each exactly once when paged through by cursor, under every filter that has
 * such an index; the migration applies on a table that holds payments, from the indexes
 * before it or from the new ones built beforehand (docs/operations.md).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { migrate } from '../../../src/db/migrate.js';
import { listPaymentPage, type PaymentListFilter } from '../../../src/db/reportLists.js';
import { parsePaymentSearch } from '../../../src/domain/paymentSearch.js';
import { migrationDatabases } from '../../helpers/db.js';

const database = migrationDatabases();

/** The indexes as migration 0038 left them, and 0039 not applied. */
const BEFORE_0039 = `
  CREATE INDEX payments_created_id_idx ON payments (created_at DESC, id DESC);
  CREATE INDEX payments_mode_created_id_idx ON payments (mode, created_at DESC, id DESC);
  CREATE INDEX payments_app_created_id_idx ON payments (app_id, created_at DESC, id DESC);
  CREATE INDEX payments_external_user_created_idx ON payments (external_user_id, created_at DESC, id DESC);
  CREATE INDEX payments_email_given_created_idx ON payments (email, created_at DESC, id DESC)
    WHERE email IS NOT NULL;
  DROP INDEX payments_created_idx, payments_mode_created_idx, payments_app_created_idx,
    payments_external_user_idx, payments_email_idx;
  DELETE FROM schema_migrations WHERE version = 39;`;

const AFTER_0039 = [
  'CREATE INDEX payments_app_created_idx ON public.payments USING btree (app_id, created_at DESC)',
  'CREATE INDEX payments_created_idx ON public.payments USING btree (created_at DESC)',
  'CREATE INDEX payments_email_idx ON public.payments USING btree (email, created_at DESC) WHERE (email IS NOT NULL)',
  'CREATE INDEX payments_external_user_idx ON public.payments USING btree (external_user_id, created_at DESC)',
  'CREATE INDEX payments_mode_created_idx ON public.payments USING btree (mode, created_at DESC)',
  "CREATE INDEX payments_unsucceeded_created_id_idx ON public.payments USING btree (status, created_at DESC, id DESC) WHERE (status <> 'succeeded'::text)",
];

/** The list's indexes by creation time (the primary key and the others left out). */
async function listIndexes(client: pg.Client): Promise<string[]> {
  const res = await client.query<{ def: string }>(
    `SELECT indexdef AS def FROM pg_indexes WHERE tablename = 'payments'
       AND indexdef LIKE '%created_at DESC%' ORDER BY indexname`,
  );
  return res.rows.map((r) => r.def);
}

/**
 * 420 payments: 60 instants, 7 payments at each, and one batch of 120 at a single instant;
 * two apps and modes, every status, a third without an email, three buyers.
 */
async function seed(client: pg.Client): Promise<void> {
  await client.query(
    `INSERT INTO apps (id, name, mode, api_key, signing_secret_enc, webhook_secret_enc,
       allowed_providers, allowed_methods)
     VALUES ('app_tie_live', 'live', 'live', 'key_tie_live', 'x', 'x', '{idr_psp}', '{}'),
            ('app_tie_test', 'test', 'test', 'key_tie_test', 'x', 'x', '{idr_psp}', '{}')`,
  );
  await client.query(
    `INSERT INTO payments (id, app_id, mode, status, amount_minor, currency, method, provider,
       provider_ref, external_user_id, email, return_url, metadata, finalized_at, created_at)
     SELECT md5('tie-' || g), CASE WHEN g % 2 = 0 THEN 'app_tie_test' ELSE 'app_tie_live' END,
       CASE WHEN g % 2 = 0 THEN 'test' ELSE 'live' END,
       (ARRAY['succeeded', 'failed', 'canceled', 'initiated', 'succeeded'])[g % 5 + 1],
       1000 + g, 'IDR', 'qris', 'idr_psp', 'tie-ref-' || g, 'buyer-' || (g % 3),
       CASE WHEN g % 3 = 0 THEN NULL ELSE 'tie@example.com' END, 'https://shop.example/', '{}',
       NULL,
       CASE WHEN g <= 120 THEN timestamptz '2026-06-01 12:00:00.123456+00'
            ELSE timestamptz '2026-06-01 11:00:00+00' - (g / 7) * interval '1 second' END
     FROM generate_series(1, 420) g`,
  );
  await client.query('ANALYZE payments');
}

function filter(query: Record<string, string>, extra: Partial<PaymentListFilter> = {}) {
  return {
    mode: null,
    status: null,
    before: null,
    limit: 9,
    search: parsePaymentSearch(query),
    ...extra,
  } satisfies PaymentListFilter;
}

const CASES: [string, PaymentListFilter, string][] = [
  ['no filter', filter({}), 'true'],
  ['mode=test', filter({}, { mode: 'test' }), `mode = 'test'`],
  ['status=succeeded', filter({}, { status: 'succeeded' }), `status = 'succeeded'`],
  ['status=failed', filter({}, { status: 'failed' }), `status = 'failed'`],
  ['app_id', filter({ app_id: 'app_tie_live' }), `app_id = 'app_tie_live'`],
  ['q=email', filter({ q: 'tie@example.com' }), `email = 'tie@example.com'`],
  ['q=external_user_id', filter({ q: 'buyer-1' }), `external_user_id = 'buyer-1'`],
];

/** Every page of a filter, by following nextBefore to the end: the ids in order. */
async function walk(client: pg.Client, f: PaymentListFilter): Promise<string[]> {
  const ids: string[] = [];
  let before: string | null = null;
  for (let pages = 0; pages < 200; pages++) {
    const page = await listPaymentPage(client, { ...f, before });
    ids.push(...page.rows.map((r) => r.id));
    if (page.nextBefore === null) return ids;
    before = page.nextBefore;
  }
  throw new Error('more than 200 pages');
}

async function expected(client: pg.Client, where: string): Promise<string[]> {
  const res = await client.query<{ id: string }>(
    `SELECT id FROM payments WHERE ${where} ORDER BY created_at DESC, id DESC`,
  );
  return res.rows.map((r) => r.id);
}

test('payments sharing a creation time are listed ties by id, each once, page after page', async () => {
  const { client } = await database();
  await seed(client);
  assert.deepEqual(await listIndexes(client), AFTER_0039);
  for (const [name, f, where] of CASES) {
    const want = await expected(client, where);
    assert.ok(want.length > 40, `${name}: ${want.length} payments`);
    assert.deepEqual(await walk(client, f), want, name);
  }
  // A cursor inside the batch of 120: the next page starts at the next id down.
  const batch = await expected(client, `created_at = '2026-06-01 12:00:00.123456+00'`);
  assert.equal(batch.length, 120);
  const page = await listPaymentPage(client, filter({}, { before: batch[60]!, limit: 5 }));
  assert.deepEqual(
    page.rows.map((r) => r.id),
    batch.slice(61, 66),
  );
});

test('migration 0039 applies on a table of payments and the list answers the same pages', async () => {
  const { client, pool } = await database();
  await client.query(BEFORE_0039);
  await seed(client);
  const before = new Map<string, string[]>();
  for (const [name, f] of CASES) before.set(name, await walk(client, f));

  assert.deepEqual(await migrate(pool), ['0039_storage_sixth_pass.sql']);
  assert.deepEqual(await listIndexes(client), AFTER_0039);
  for (const [name, f, where] of CASES) {
    const pages = await walk(client, f);
    assert.deepEqual(pages, before.get(name), name);
    assert.deepEqual(pages, await expected(client, where), name);
  }
});

test('migration 0039 finds the indexes built beforehand and only drops the old ones', async () => {
  const { client, pool } = await database();
  await client.query(BEFORE_0039);
  await seed(client);
  // The upgrade of a large database: the new indexes built first, without blocking writes.
  for (const def of AFTER_0039) {
    await client.query(
      def
        .replace('CREATE INDEX', 'CREATE INDEX CONCURRENTLY IF NOT EXISTS')
        .replace('public.payments USING btree', 'payments'),
    );
  }
  const built = await client.query<{ oid: number }>(
    `SELECT indexrelid::int AS oid FROM pg_index WHERE indexrelid::regclass::text = 'payments_created_idx'`,
  );
  assert.deepEqual(await migrate(pool), ['0039_storage_sixth_pass.sql']);
  assert.deepEqual(await listIndexes(client), AFTER_0039);
  const kept = await client.query<{ oid: number }>(
    `SELECT indexrelid::int AS oid FROM pg_index WHERE indexrelid::regclass::text = 'payments_created_idx'`,
  );
  assert.deepEqual(kept.rows, built.rows);
  for (const [name, f, where] of CASES) {
    assert.deepEqual(await walk(client, f), await expected(client, where), name);
  }
});

test('migration 0039 stops, dropping nothing, when an index built beforehand is invalid', async () => {
  const { client, pool } = await database();
  await client.query(BEFORE_0039);
  await seed(client);
  const old = await listIndexes(client);
  assert.equal(old.length, 6);
  // What a CREATE INDEX CONCURRENTLY that failed half way leaves behind.
  await client.query(
    `CREATE INDEX CONCURRENTLY payments_created_idx ON payments (created_at DESC)`,
  );
  await client.query(
    `UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'payments_created_idx'::regclass`,
  );
  await assert.rejects(migrate(pool), /index payments_created_idx is invalid/);
  const left = await listIndexes(client);
  assert.deepEqual(
    left.filter((d) => !d.includes(' payments_created_idx ')),
    old,
  );
  const applied = await client.query(`SELECT 1 FROM schema_migrations WHERE version = 39`);
  assert.equal(applied.rowCount, 0);

  // Dropped and the migration run again: it builds the index itself.
  await client.query(`DROP INDEX payments_created_idx`);
  assert.deepEqual(await migrate(pool), ['0039_storage_sixth_pass.sql']);
  assert.deepEqual(await listIndexes(client), AFTER_0039);
});
