import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase } from '../../helpers/db.js';

// The report-day triggers: a change of today's data keeps every past day's materialized
// totals, a change that touches a past day drops that day. The ledger's trigger decides in
// its WHEN condition (migration 0018, issue 28); the payments trigger in its function.

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let c: pg.Client;

const days = async () =>
  (
    await c.query<{ d: string }>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS d FROM report_days ORDER BY day`,
    )
  ).rows.map((r) => r.d);

const utcDay = (offset: number) =>
  new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

before(async () => {
  db = await createTestDatabase();
  c = new pg.Client({ connectionString: db.url });
  await c.connect();
  await c.query(
    `INSERT INTO apps (id, name, mode, api_key, signing_secret_enc, webhook_secret_enc,
       allowed_providers, allowed_methods)
     VALUES ('app_r', 'r', 'test', 'key_r', 'x', 'x', '{idr_psp}', '{}')`,
  );
});

after(async () => {
  await c?.end();
  await db?.drop();
});

const materialize = () =>
  c.query(
    `INSERT INTO report_days (day) SELECT (now() AT TIME ZONE 'UTC')::date - g
     FROM generate_series(1, 5) g ON CONFLICT DO NOTHING`,
  );

const insert = (id: string, finalizedDaysAgo: number | null) =>
  c.query(
    `INSERT INTO payments (id, app_id, mode, status, amount_minor, currency, method, provider,
       external_user_id, return_url, metadata, finalized_at)
     VALUES ($1, 'app_r', 'test', CASE WHEN $2::int IS NULL THEN 'initiated' ELSE 'succeeded' END,
       1000, 'IDR', 'qris', 'idr_psp', 'u', 'https://shop.example/', '{}',
       CASE WHEN $2::int IS NULL THEN NULL ELSE now() - $2::int * interval '1 day' END)`,
    [id, finalizedDaysAgo],
  );

test("today's inserts and finalizations keep every past day's totals", async () => {
  await materialize();
  const all = await days();
  assert.equal(all.length, 5);
  await insert('p_today_new', null);
  await insert('p_today_done', 0);
  await c.query(
    `UPDATE payments SET status = 'failed', finalized_at = now() WHERE id = 'p_today_new'`,
  );
  await c.query(`DELETE FROM payments WHERE id = 'p_today_done'`);
  assert.deepEqual(await days(), all);
});

test('a change that touches a past day drops that day, and only it', async () => {
  await materialize();
  await insert('p_past', 2);
  assert.ok(!(await days()).includes(utcDay(-2)));
  assert.equal((await days()).length, 4);

  await materialize();
  await c.query(`UPDATE payments SET finalized_at = now() - interval '3 days' WHERE id = 'p_past'`);
  // The old day (2 days ago) and the new one (3 days ago) both go.
  assert.deepEqual((await days()).includes(utcDay(-2)), false);
  assert.deepEqual((await days()).includes(utcDay(-3)), false);
  assert.equal((await days()).length, 3);

  await materialize();
  await c.query(`UPDATE payments SET amount_minor = 2000 WHERE id = 'p_past'`);
  assert.equal((await days()).includes(utcDay(-3)), false);

  await materialize();
  await c.query(`DELETE FROM payments WHERE id = 'p_past'`);
  assert.equal((await days()).includes(utcDay(-3)), false);
  assert.equal((await days()).length, 4);
});

test('a ledger entry booked into a past day drops that day; one booked today none', async () => {
  await insert('p_ledger', 0);
  await materialize();
  const book = (id: string, daysAgo: number) =>
    c.query(
      `INSERT INTO ledger_entries (id, type, payment_id, app_id, provider, mode, currency,
         amount_minor, occurred_at)
       VALUES ($1, $3, 'p_ledger', 'app_r', 'idr_psp', 'test', 'IDR', 1000,
         now() - $2::int * interval '1 day')`,
      [id, daysAgo, id === 'l_today' ? 'charge' : 'dispute'],
    );
  await book('l_today', 0);
  assert.equal((await days()).length, 5);
  await book('l_past', 4);
  assert.equal((await days()).includes(utcDay(-4)), false);
  assert.equal((await days()).length, 4);
});
