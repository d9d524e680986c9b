import assert from 'node:assert/strict';
import { test } from 'node:test';
import { finalizeInitiatedBatch } from '../../../src/db/paymentFinalize.js';
import { appPlansDatabase, finalization as successOf } from '../../helpers/plans.js';

// Two finalization batches that share payments (a provider's duplicate webhooks, the
// reconciler beside a webhook, two instances) lock them in id order before updating any, so
// one waits for the other and never deadlocks: a deadlock would be PostgreSQL's 40P01 here
// (the batcher would then run each finalization alone, a second late).

const db = appPlansDatabase(4);

const finalization = (paymentId: string, tag: string) =>
  successOf(paymentId, `evt-${tag}-${paymentId}`, `dlv-${tag}-${paymentId}`);

test('batches finalizing the same payments in opposite orders never deadlock', async () => {
  for (let round = 0; round < 30; round++) {
    const ids = Array.from({ length: 12 }, (_, i) => `r${round}-p${i}`);
    await db.pool.query(
      `INSERT INTO payments (id, app_id, mode, amount_minor, currency, method, provider,
         provider_ref, external_user_id, return_url)
       SELECT id, 'app_plans', 'test', 1000, 'IDR', 'qris', 'idr_psp', 'ref-' || id, 'buyer',
         'https://shop.example/'
       FROM unnest($1::text[]) AS id`,
      [ids],
    );
    const [a, b] = await Promise.all([
      finalizeInitiatedBatch(
        db.pool,
        ids.map((id) => finalization(id, 'a')),
      ),
      finalizeInitiatedBatch(
        db.pool,
        [...ids].reverse().map((id) => finalization(id, 'b')),
      ),
    ]);
    const bInOrder = [...b].reverse();
    assert.deepEqual(
      a.map((x, i) => Number(x) + Number(bInOrder[i])),
      ids.map(() => 1),
      'each payment finalized by exactly one of the two',
    );
  }
  const [row] = (
    await db.pool.query<{ succeeded: number; events: number }>(
      `SELECT (SELECT count(*)::int FROM payments WHERE status = 'succeeded') AS succeeded,
         (SELECT count(*)::int FROM outbound_events) AS events`,
    )
  ).rows;
  assert.deepEqual(row, { succeeded: 360, events: 360 });
});
