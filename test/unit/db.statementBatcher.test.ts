import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { StatementBatcher } from '../../src/db/statementBatcher.js';

/** A statement that records the batches it was given and answers each item doubled. */
function recording(fail?: (items: number[]) => unknown) {
  const batches: number[][] = [];
  const held: (() => void)[] = [];
  const statement = {
    held: false,
    batches,
    run: async (items: number[]) => {
      batches.push(items);
      if (statement.held) await new Promise<void>((r) => held.push(r));
      const err = fail?.(items);
      if (err) throw err;
      return items.map((i) => i * 2);
    },
    key: (i: number) => String(i % 100),
    /** Lets every held statement return. */
    release: () => held.splice(0).forEach((r) => r()),
  };
  return statement;
}

function databaseError(code: string): pg.DatabaseError {
  const err = new pg.DatabaseError('refused', 0, 'error');
  err.code = code;
  return err;
}

test('items submitted together run as one statement, each answered with its own result', async () => {
  const s = recording();
  const batcher = new StatementBatcher(s);
  const outs = await Promise.all([1, 2, 3, 4].map((i) => batcher.submit(i)));
  assert.deepEqual(outs, [2, 4, 6, 8]);
  assert.deepEqual(s.batches, [[1, 2, 3, 4]]);
});

test('a lone item goes at once; while statements are in flight the next ones gather', async () => {
  const s = recording();
  s.held = true;
  const batcher = new StatementBatcher(s, 64, 1, 10_000);
  const first = batcher.submit(1);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(s.batches, [[1]]);
  const later = [2, 3, 4].map((i) => batcher.submit(i));
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(s.batches, [[1]], 'nothing more is sent while the one statement is out');
  s.held = false;
  s.release();
  assert.equal(await first, 2);
  assert.deepEqual(await Promise.all(later), [4, 6, 8]);
  assert.deepEqual(s.batches, [[1], [2, 3, 4]]);
});

test('items with the same key never share a statement; a batch holds at most maxBatch', async () => {
  const s = recording();
  const batcher = new StatementBatcher(s, 3);
  const outs = await Promise.all([1, 101, 2, 3, 4].map((i) => batcher.submit(i)));
  assert.deepEqual(outs, [2, 202, 4, 6, 8]);
  assert.deepEqual(s.batches, [
    [1, 2, 3],
    [101, 4],
  ]);
});

test("a statement PostgreSQL refused is run again item by item: only the bad item's request fails", async () => {
  const poison = databaseError('23514');
  const s = recording((items) => (items.includes(13) ? poison : undefined));
  const batcher = new StatementBatcher(s);
  const outs = await Promise.allSettled([11, 12, 13, 14].map((i) => batcher.submit(i)));
  assert.deepEqual(
    outs.map((o) => (o.status === 'fulfilled' ? o.value : o.reason)),
    [22, 24, poison, 28],
  );
  assert.deepEqual(s.batches, [[11, 12, 13, 14], [11], [12], [13], [14]]);
});

test('a connection that failed, a server that went away or out of resources: every item of the batch fails', async () => {
  for (const err of [
    Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
    databaseError('57P01'),
    // Out of resources (class 53): each item again alone would only add load.
    databaseError('53200'),
  ]) {
    const s = recording(() => err);
    const batcher = new StatementBatcher(s);
    const outs = await Promise.allSettled([1, 2, 3].map((i) => batcher.submit(i)));
    assert.deepEqual(
      outs.map((o) => o.status === 'rejected' && o.reason),
      [err, err, err],
    );
    assert.deepEqual(s.batches, [[1, 2, 3]], 'not run again: the batch may have committed');
  }
});

test('items wait at most maxWaitMs for a statement in flight', async () => {
  const s = recording();
  s.held = true;
  const batcher = new StatementBatcher(s, 64, 1, 30);
  const stuck = batcher.submit(1);
  await new Promise((r) => setImmediate(r));
  const late = batcher.submit(2);
  await new Promise((r) => setTimeout(r, 80));
  assert.deepEqual(s.batches, [[1], [2]], 'sent beside the stuck one after the wait');
  s.held = false;
  s.release();
  assert.deepEqual(await Promise.all([stuck, late]), [2, 4]);
});
