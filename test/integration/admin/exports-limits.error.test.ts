/**
 * CSV exports cannot take the gateway's database away from payments (docs/operations.md#csv-exports):
 * exports run on their own two connections, a third while two are held open by readers that
 * stopped reading is refused with 429 and Retry-After, payments go on meanwhile, a reader
 * that goes away gives its slot back, and a stalled export's transaction ends at its limit.
 * Over real HTTP against real PostgreSQL; the ledger is made long enough (fixture rows of one
 * real payment) that an export cannot fit in the socket buffers and finish on its own.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { cursorRows } from '../../helpers/state.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertError, assertStatus, count, sql } from '../../helpers/core.js';
import { eventually } from '../../helpers/eventually.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { createPayment, paidPayment } from '../../helpers/payments.js';
import { today } from '../../helpers/reconciliation.js';

let gw: TestGateway;
let shop: AppWithSecrets;
const FIXTURE_ROWS = 60_000;

before(async () => {
  gw = await startTestGateway();
  shop = await gw.createApp({ name: 'Exported shop' });
  const paid = await paidPayment(gw, shop, 'wallet', 10000);
  await sql(
    gw.databaseUrl,
    `INSERT INTO ledger_entries (id, type, payment_id, dispute_id, app_id, provider, mode, currency, amount_minor, fee_minor)
     SELECT 'fixture_' || n, 'dispute', $1, 'fixture_' || n, $2, 'wallet_psp', 'test', 'EUR', -10000, NULL
     FROM generate_series(1, $3::int) n`,
    [paid.id, shop.app_id, FIXTURE_ROWS],
  );
});
after(async () => {
  await gw?.stop();
});

const exportPath = () => `/admin/ledger/export.csv?since=${today()}&provider=wallet_psp`;

/** An export whose reader takes the headers and first chunk, then stops reading. */
function stalledExport(): Promise<{ status: number; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${gw.url}${exportPath()}`,
      { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
      (res) => {
        res.once('data', () => {
          res.pause();
          resolve({ status: res.statusCode ?? 0, close: () => req.destroy() });
        });
      },
    );
    req.on('error', reject);
  });
}

/** Export transactions open on the gateway's database, waiting on their readers. */
const openExports = () =>
  count(
    gw.databaseUrl,
    `pg_stat_activity WHERE datname = current_database() AND query LIKE 'FETCH %'
       AND state = 'idle in transaction'`,
  );

test('two stalled exports hold the export pool; a third gets 429 and payments go on', async () => {
  const first = await stalledExport();
  const second = await stalledExport();
  assert.equal(first.status, 200);
  assert.equal(second.status, 200);
  await eventually(async () => (await openExports()) === 2, 'two open export transactions');

  const third = await gw.admin('GET', exportPath());
  assertError(third, 429, 'too many exports in progress');
  assert.equal(third.headers.get('retry-after'), '10');
  const recon = await gw.admin(
    'GET',
    `/admin/reconciliation/export.csv?provider=wallet_psp&date=${today()}&mode=test`,
  );
  assertError(recon, 429, 'too many exports in progress');

  // Payments use the main pool, which the exports never touch: several at once succeed.
  const payments = await Promise.all(
    [1, 2, 3, 4, 5].map(() => createPayment(gw, shop, 'wallet', 500)),
  );
  assert.equal(new Set(payments.map((p) => p.id)).size, 5);
  assert.equal(await openExports(), 2);

  // A reader that goes away ends its transaction and gives its slot back.
  first.close();
  await eventually(async () => (await openExports()) === 1, 'the first export ended');
  const full = await eventually(async () => {
    const res = await gw.admin('GET', exportPath());
    return res.status === 429 ? undefined : res;
  }, 'a free export slot');
  assertStatus(full, 200);
  const rows = full.text.split('\r\n').slice(1, -1);
  assert.equal(
    rows.length,
    await count(gw.databaseUrl, `ledger_entries WHERE provider = 'wallet_psp'`),
  );
  assert.ok(rows.length > FIXTURE_ROWS);
  second.close();
  await eventually(async () => (await openExports()) === 0, 'no export left open');
});

test('a bad export request gives its slot back', async () => {
  for (let i = 0; i < 3; i++) {
    assertError(await gw.admin('GET', '/admin/ledger/export.csv'), 400, 'since is required');
  }
  const ok = await gw.admin(
    'GET',
    `/admin/ledger/export.csv?since=2999-01-01T00:00:00Z&until=2999-01-02T00:00:00Z`,
  );
  assertStatus(ok, 200);
});

test("a stalled export's transaction ends at its time limit, in PostgreSQL", async () => {
  const pool = new pg.Pool({ connectionString: gw.databaseUrl, max: 1 });
  pool.on('error', () => undefined);
  try {
    const rows = cursorRows<{ n: number }>(
      pool,
      'SELECT generate_series(1, 10000) AS n',
      [],
      2000,
      500,
    );
    const firstBatch = await rows.next();
    assert.equal(firstBatch.value?.length, 2000);
    // The reader stalls past the limit: PostgreSQL ends the idle transaction's session.
    await eventually(
      async () =>
        (await count(
          gw.databaseUrl,
          `pg_stat_activity WHERE query LIKE 'FETCH 2000 FROM export_cursor' AND datname = current_database()`,
        )) === 0,
      'the stalled export session ended',
    );
    // Asked again after the limit, the export fails and its connection is not reused.
    await assert.rejects(rows.next(), { message: 'export exceeded its 500 ms limit' });
    // The pool works again with a fresh connection.
    assert.deepEqual((await pool.query('SELECT 1 AS one')).rows, [{ one: 1 }]);
  } finally {
    await pool.end();
  }
});
