import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  createPaymentsWithFreshClaims,
  type FreshCreate,
} from '../../../src/db/paymentCreation.js';
import { createPool, type Pool } from '../../../src/db/pool.js';
import { createTestDatabase } from '../../helpers/db.js';
import { insertPlansApp } from '../../helpers/plans.js';

// Two create batches that share customers (or, with the same keys, claims) lock them in one
// order (key, then customer), so they wait for one another but never deadlock: a deadlock
// would be PostgreSQL's 40P01 here (the batcher would then run the items alone, each
// request slower but answered).

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: Pool;

before(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 4);
  await insertPlansApp(pool);
});

after(async () => {
  await pool?.end();
  await db?.drop();
});

let next = 0;
function item(user: string, key: string): FreshCreate {
  const id = `${++next}`.padStart(32, 'c');
  return {
    payment: {
      id,
      app_id: 'app_plans',
      mode: 'test',
      amount_minor: 1000,
      currency: 'IDR',
      method: 'qris',
      provider: 'idr_psp',
      external_user_id: user,
      email: null,
      return_url: 'https://shop.example/return',
      metadata: {},
    },
    ctx: { invoicePrefix: null, registrationDeadline: new Date(Date.now() + 60_000) },
    claim: {
      scope: { appId: 'app_plans', endpoint: 'POST /v1/payments', key },
      requestHash: 'h',
      leaseMs: 60_000,
    },
  };
}

test('batches sharing customers and keys in opposite orders never deadlock', async () => {
  const users = Array.from({ length: 12 }, (_, i) => `shared-${i}`);
  let created = 0;
  for (let round = 0; round < 30; round++) {
    const keys = users.map((_, i) => `r${round}-k${i}`);
    // The same customers and keys, one batch in order and the other reversed; each key is
    // claimed by exactly one of the two statements.
    const forward = users.map((u, i) => item(u, keys[i]!));
    const backward = users.map((u, i) => item(u, keys[i]!)).reverse();
    const [a, b] = await Promise.all([
      createPaymentsWithFreshClaims(pool, forward),
      createPaymentsWithFreshClaims(pool, backward),
    ]);
    const claimedByA = a.map((x) => x !== null);
    const claimedByB = [...b].reverse().map((x) => x !== null);
    assert.deepEqual(
      claimedByA.map((x, i) => x !== claimedByB[i]),
      users.map(() => true),
      'every key claimed once',
    );
    created += a.filter(Boolean).length + b.filter(Boolean).length;
  }
  const [row] = (
    await pool.query<{ n: number; sum: number }>(
      `SELECT count(*)::int AS n, sum(payments_count)::int AS sum FROM customers`,
    )
  ).rows;
  assert.deepEqual(row, { n: users.length, sum: created });
  assert.equal(created, 30 * users.length);
});
