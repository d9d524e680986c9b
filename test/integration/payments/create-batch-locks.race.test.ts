import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createPaymentsWithFreshClaims } from '../../../src/db/paymentCreation.js';
import { appPlansDatabase, freshCreate } from '../../helpers/plans.js';

// Two create batches that share customers (or, with the same keys, claims) lock them in one
// order (key, then customer), so they wait for one another but never deadlock: a deadlock
// would be PostgreSQL's 40P01 here (the batcher would then run the items alone, each
// request slower but answered).

const db = appPlansDatabase(4);

let next = 0;
const item = (user: string, key: string) => freshCreate(`${++next}`.padStart(32, 'c'), user, key);

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
      createPaymentsWithFreshClaims(db.pool, forward),
      createPaymentsWithFreshClaims(db.pool, backward),
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
    await db.pool.query<{ n: number; sum: number }>(
      `SELECT count(*)::int AS n, sum(payments_count)::int AS sum FROM customers`,
    )
  ).rows;
  assert.deepEqual(row, { n: users.length, sum: created });
  assert.equal(created, 30 * users.length);
});
