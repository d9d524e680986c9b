/**
 * Migration 0040 (docs/operations.md, "A late record, and an attempt written twice"): the
 * delivery attempt history has a unique key (delivery_id, attempt, started_at) in place of
 * delivery_attempts_delivery_idx (delivery_id). The migration keeps the first of the rows
 * listed twice before it, from the old index or from indexes built beforehand on each
 * partition (docs/operations.md, "Upgrading a large database to 0040"), and stops, changing
 * nothing, when one of those was left invalid.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { migrate } from '../../../src/db/migrate.js';
import { enqueueEvent } from '../../../src/db/outbox.js';
import { migrationDatabases } from '../../helpers/db.js';

const database = migrationDatabases();

/** The index as migration 0038 left it, and 0040 not applied. */
const BEFORE_0040 = `
  DROP INDEX delivery_attempts_delivery_attempt_idx;
  CREATE INDEX delivery_attempts_delivery_idx ON delivery_attempts (delivery_id);
  DELETE FROM schema_migrations WHERE version = 40;`;

const AFTER_0040 = [
  'CREATE UNIQUE INDEX delivery_attempts_delivery_attempt_idx ON ONLY public.delivery_attempts USING btree (delivery_id, attempt, started_at)',
  'CREATE UNIQUE INDEX delivery_attempts_pkey ON ONLY public.delivery_attempts USING btree (id, started_at)',
  'CREATE INDEX delivery_attempts_started_idx ON ONLY public.delivery_attempts USING btree (started_at)',
];

/** What docs/operations.md has an operator run before 0040 on a large table. */
const DEDUPE = `
  DELETE FROM delivery_attempts a USING delivery_attempts b
  WHERE b.delivery_id = a.delivery_id AND b.attempt = a.attempt
    AND b.started_at = a.started_at AND b.id < a.id`;
const PREBUILD = `
  SELECT format('CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS %I ON %s (delivery_id, attempt, started_at)',
           c.relname || '_delivery_attempt_idx', c.oid::regclass) AS sql
  FROM pg_partition_tree('delivery_attempts') t JOIN pg_class c ON c.oid = t.relid
  WHERE t.isleaf`;

async function listIndexes(client: pg.Client): Promise<string[]> {
  const res = await client.query<{ def: string }>(
    `SELECT indexdef AS def FROM pg_indexes WHERE tablename = 'delivery_attempts' ORDER BY indexname`,
  );
  return res.rows.map((r) => r.def);
}

/** The attempts as (id, delivery, attempt, start, status), in id order. */
async function rows(client: pg.Client): Promise<string[]> {
  const res = await client.query<{ r: string }>(
    `SELECT id || ' ' || delivery_id || ' ' || attempt || ' ' || to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS')
       || ' ' || status_code AS r
     FROM delivery_attempts ORDER BY id`,
  );
  return res.rows.map((r) => r.r);
}

/** Now's month's partition, a day in: the partition the template made for it. */
const T1 = `date_trunc('month', now()) + interval '1 day 0.123 seconds'`;
/** A month with no partition of its own: its rows are in the DEFAULT partition. */
const OLD = `timestamptz '2020-01-15 10:00:00.456+00'`;

/** n deliveries of an app's events. */
async function deliveries(client: pg.Client, pool: pg.Pool, n: number): Promise<string[]> {
  await client.query(
    `INSERT INTO apps (id, name, mode, api_key, signing_secret_enc, webhook_secret_enc,
       allowed_providers, allowed_methods)
     VALUES ('app_once', 'once', 'live', 'key_once', 'x', 'x', '{idr_psp}', '{}')`,
  );
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const e = await enqueueEvent(pool, {
      appId: 'app_once',
      paymentId: null,
      eventType: 'payment.succeeded',
      body: `{"n":${i}}`,
    });
    assert.ok(e?.deliveryId);
    ids.push(e.deliveryId);
  }
  return ids;
}

/** An attempt row as the recorder writes it, without its ON CONFLICT. */
function writeAttempt(
  client: pg.Client,
  deliveryId: string | undefined,
  n: number,
  at: string,
  code: number,
): Promise<unknown> {
  return client.query(
    `INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error, outcome, response_body)
     VALUES ($1, $2, ${at}, 5, $3, NULL, CASE WHEN $3 = 200 THEN 'delivered' ELSE 'retry' END, 'ok')`,
    [deliveryId, n, code],
  );
}

/**
 * Three deliveries' attempts, written before 0040: d1's first attempt three times and d2's
 * (in the DEFAULT partition) twice, a rewrite's copies; d3's first attempt started at the
 * same instant as d1's, and d2 has one more row of its number at another instant. Returns
 * the rows 0040 keeps.
 */
async function seed(client: pg.Client, pool: pg.Pool): Promise<string[]> {
  const ids = await deliveries(client, pool, 3);
  const [d1, d2, d3] = ids;
  const write = (d: string | undefined, n: number, at: string, code: number) =>
    writeAttempt(client, d, n, at, code);
  await write(d1, 1, T1, 503);
  await write(d1, 1, T1, 503);
  await write(d2, 1, OLD, 200);
  await write(d1, 1, T1, 503);
  await write(d2, 1, OLD, 200);
  await write(d1, 2, `${T1} + interval '1 minute'`, 200);
  await write(d3, 1, T1, 200);
  await write(d2, 1, `${OLD} + interval '1 second'`, 200);
  const all = await rows(client);
  assert.equal(all.length, 8);
  return [all[0]!, all[2]!, all[5]!, all[6]!, all[7]!];
}

test('the attempt history has one row per (delivery, attempt, start), on every partition, those made later too', async () => {
  const { client, pool } = await database();
  assert.deepEqual(await listIndexes(client), AFTER_0040);
  // A month's partition made by the maintenance job after the migration has the key too.
  await client.query(
    `SELECT paygate_month_partition('delivery_attempts', (now() + interval '2 years')::date)`,
  );
  const ahead = await client.query<{ def: string }>(
    `SELECT pg_get_indexdef(i.indexrelid) AS def
     FROM pg_partition_tree('delivery_attempts_delivery_attempt_idx') t
     JOIN pg_index i ON i.indexrelid = t.relid
     WHERE i.indrelid = to_regclass('delivery_attempts_p' || to_char(now() + interval '2 years', 'YYYY_MM'))`,
  );
  assert.equal(ahead.rowCount, 1);
  assert.match(ahead.rows[0]!.def, /^CREATE UNIQUE INDEX .* \(delivery_id, attempt, started_at\)$/);
  // A second row of an attempt is refused, in a month's partition, the DEFAULT partition and
  // the new one; a row of the same number at another start is not a second row of it.
  const [d] = await deliveries(client, pool, 1);
  const AHEAD = `date_trunc('month', now() + interval '2 years') + interval '3 days'`;
  for (const at of [T1, OLD, AHEAD]) {
    await writeAttempt(client, d, 1, at, 503);
    await assert.rejects(
      writeAttempt(client, d, 1, at, 503),
      (err: { code?: string; detail?: string }) =>
        err.code === '23505' && /^Key \(delivery_id, attempt, started_at\)=/.test(err.detail ?? ''),
    );
  }
  await writeAttempt(client, d, 1, `${T1} + interval '1 millisecond'`, 503);
  const n = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM delivery_attempts WHERE delivery_id = $1`,
    [d],
  );
  assert.equal(n.rows[0]!.n, 4);
});

test('migration 0040 keeps the first of each attempt listed twice and replaces the index', async () => {
  const { client, pool } = await database();
  await client.query(BEFORE_0040);
  const kept = await seed(client, pool);
  assert.deepEqual(await migrate(pool), ['0040_delivery_attempt_once.sql']);
  assert.deepEqual(await rows(client), kept);
  assert.deepEqual(await listIndexes(client), AFTER_0040);
});

test('migration 0040 attaches the indexes built beforehand on each partition', async () => {
  const { client, pool } = await database();
  await client.query(BEFORE_0040);
  const kept = await seed(client, pool);
  // The upgrade of a large database: rows listed twice removed, then the index built on
  // each partition without blocking writes.
  await client.query(DEDUPE);
  const built: string[] = [];
  for (const { sql } of (await client.query<{ sql: string }>(PREBUILD)).rows) {
    await client.query(sql);
    built.push(/EXISTS (\S+) ON/.exec(sql)![1]!);
  }
  assert.ok(built.includes('delivery_attempts_default_delivery_attempt_idx'), built.join());
  const oids = await client.query<{ oid: number }>(
    `SELECT indexrelid::int AS oid FROM pg_index WHERE indexrelid::regclass::text = ANY($1) ORDER BY 1`,
    [built],
  );
  assert.equal(oids.rowCount, built.length);

  assert.deepEqual(await migrate(pool), ['0040_delivery_attempt_once.sql']);
  assert.deepEqual(await listIndexes(client), AFTER_0040);
  const attached = await client.query<{ oid: number }>(
    `SELECT relid::int AS oid FROM pg_partition_tree('delivery_attempts_delivery_attempt_idx')
     WHERE isleaf ORDER BY 1`,
  );
  assert.deepEqual(attached.rows, oids.rows);
  assert.deepEqual(await rows(client), kept);
});

test('migration 0040 stops, changing nothing, when an index built beforehand is invalid', async () => {
  const { client, pool } = await database();
  await client.query(BEFORE_0040);
  const kept = await seed(client, pool);
  const before = await rows(client);
  // Built before the rows listed twice were removed: the concurrent build fails and leaves
  // its index behind, invalid.
  const month = await client.query<{ part: string }>(
    `SELECT tableoid::regclass::text AS part FROM delivery_attempts WHERE started_at = ${T1} LIMIT 1`,
  );
  const part = month.rows[0]!.part;
  await assert.rejects(
    client.query(
      `CREATE UNIQUE INDEX CONCURRENTLY ${part}_delivery_attempt_idx
         ON ${part} (delivery_id, attempt, started_at)`,
    ),
    (err: { code?: string }) => err.code === '23505',
  );
  await assert.rejects(migrate(pool), new RegExp(`index ${part}_delivery_attempt_idx is invalid`));
  assert.deepEqual(await rows(client), before);
  assert.ok(
    (await listIndexes(client)).some((d) => d.includes(' delivery_attempts_delivery_idx ')),
  );
  const applied = await client.query(`SELECT 1 FROM schema_migrations WHERE version = 40`);
  assert.equal(applied.rowCount, 0);

  // Dropped and the migration run again: it cleans up and builds the index itself.
  await client.query(`DROP INDEX ${part}_delivery_attempt_idx`);
  assert.deepEqual(await migrate(pool), ['0040_delivery_attempt_once.sql']);
  assert.deepEqual(await rows(client), kept);
  assert.deepEqual(await listIndexes(client), AFTER_0040);
});
