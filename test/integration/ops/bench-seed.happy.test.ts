import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MASTER_KEY } from '../../../bench/lib/env.js';
import { seedMillion } from '../../../bench/seed-million.js';
import { checkMasterKey, MasterKeyError } from '../../../src/auth/masterKeyCheck.js';
import { createPool, type Pool } from '../../../src/db/pool.js';
import { createTestDatabase } from '../../helpers/db.js';

// The admin, search and reconciliation benches start a gateway on the database the seed
// fills; a gateway refuses to start when its MASTER_KEY does not open the stored secrets.
// The seed once stored placeholders there, and `npm run bench`'s admin scenario stopped at
// the gateway's start.

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: Pool;

before(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 2);
});

after(async () => {
  await pool?.end();
  await db?.drop();
});

test("the bench's seed seals its apps' secrets under the bench's master key", async () => {
  const seeded = await seedMillion(db.url, { payments: 200, refunds: 20, spreadDays: 3 });
  assert.equal(seeded.payments, 200);
  await checkMasterKey(pool, Buffer.from(MASTER_KEY, 'hex'));
  // And the check can fail: another key does not open them.
  await assert.rejects(checkMasterKey(pool, Buffer.alloc(32, 7)), MasterKeyError);
});
