/**
 * The ledger (docs/api.md#ledger) is append-only: the database refuses UPDATE and DELETE of
 * an entry, and booking the same movement twice books it once.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { recordLedgerEntry } from '../../helpers/state.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { createPayment } from '../../helpers/payments.js';

let gw: TestGateway;
let app: AppWithSecrets;
let pool: pg.Pool;

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp();
  pool = new pg.Pool({ connectionString: gw.databaseUrl, max: 2 });
});
after(async () => {
  await pool?.end();
  await gw?.stop();
});

test('an entry is booked once, and can be neither changed nor deleted', async () => {
  const p = await createPayment(gw, app, 'idr', 10_000);
  const entry = {
    type: 'charge' as const,
    payment_id: p.id,
    app_id: app.app_id,
    provider: 'idr_psp',
    mode: 'test' as const,
    currency: 'IDR',
    amount_minor: 10_000,
  };
  const booked = await recordLedgerEntry(pool, entry);
  assert.ok(booked);
  assert.match(booked.id, /^[0-9a-f]{32}$/);
  assert.equal(booked.amount_minor, 10_000);
  assert.equal(booked.fee_minor, null);
  assert.equal(await recordLedgerEntry(pool, entry), null);
  await assert.rejects(
    pool.query('UPDATE ledger_entries SET amount_minor = 1 WHERE id = $1', [booked.id]),
    /ledger entries are immutable/,
  );
  await assert.rejects(
    pool.query('DELETE FROM ledger_entries WHERE id = $1', [booked.id]),
    /ledger entries are immutable/,
  );
  const rows = await pool.query('SELECT amount_minor FROM ledger_entries WHERE payment_id = $1', [
    p.id,
  ]);
  assert.deepEqual(rows.rows, [{ amount_minor: 10_000 }]);
});
