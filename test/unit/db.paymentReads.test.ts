import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Queryable } from '../../src/db/pool.js';
import { PaymentReadBatcher, type PaymentReadRow } from '../../src/db/payments.js';

// Issue 28: GET reads of initiated payments go in batch queries, at most two on their way at
// once; the reads queued meanwhile go together when one returns.

interface Sent {
  ids: string[];
  answer(rows: string[]): void;
  fail(err: Error): void;
}

/** A database whose queries return only when the test says so. */
function heldDatabase(): { db: Queryable; sent: Sent[] } {
  const sent: Sent[] = [];
  const query = (config: { values: [string[]] }) =>
    new Promise((resolve, reject) => {
      sent.push({
        ids: config.values[0],
        answer: (rows) => resolve({ rows: rows.map((id) => ({ id, app_id: `app_${id}` })) }),
        fail: reject,
      });
    });
  return { db: { query } as unknown as Queryable, sent };
}

/** Lets setImmediate callbacks (the batcher's flush) run. */
const turn = () => new Promise((r) => setImmediate(r));

const idOf = (row: PaymentReadRow | null) => row?.id ?? null;

test('reads queued while two queries are on their way go together when one returns', async () => {
  const { db, sent } = heldDatabase();
  // Waiting up to a minute for a query to return: this test's queries all do.
  const reads = new PaymentReadBatcher(db, 200, 2, 60_000);
  const first = [reads.get('a'), reads.get('b'), reads.get('a')];
  await turn();
  const second = reads.get('c');
  await turn();
  assert.deepEqual(
    sent.map((s) => s.ids),
    [['a', 'b'], ['c']],
  );
  const queued = [reads.get('d'), reads.get('e')];
  await turn();
  await turn();
  assert.equal(sent.length, 2, 'no third query while two are on their way');
  sent[0]!.answer(['a']); // 'b' has no row
  assert.deepEqual((await Promise.all(first)).map(idOf), ['a', null, 'a']);
  await turn();
  assert.deepEqual(sent[2]?.ids, ['d', 'e']);
  sent[1]!.answer(['c']);
  sent[2]!.answer(['d', 'e']);
  assert.equal(idOf(await second), 'c');
  assert.deepEqual((await Promise.all(queued)).map(idOf), ['d', 'e']);
});

test('a failed query rejects its own reads only, and the next reads still go', async () => {
  const { db, sent } = heldDatabase();
  const reads = new PaymentReadBatcher(db);
  const failing = reads.get('a');
  await turn();
  sent[0]!.fail(new Error('connection lost'));
  await assert.rejects(failing, /connection lost/);
  const next = reads.get('b');
  await turn();
  sent[1]!.answer(['b']);
  assert.equal(idOf(await next), 'b');
});

test('reads are not held back for good by queries that never return', async () => {
  const { db, sent } = heldDatabase();
  const reads = new PaymentReadBatcher(db, 200, 2, 1);
  void reads.get('a');
  await turn();
  void reads.get('b');
  await turn();
  const late = reads.get('c');
  // Neither query on its way ever returns; the queued read goes in a query of its own.
  while (sent.length < 3) await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(sent[2]!.ids, ['c']);
  sent[2]!.answer(['c']);
  assert.equal(idOf(await late), 'c');
});

test('more ids than one query takes go in several queries, each answering its own', async () => {
  const { db, sent } = heldDatabase();
  const reads = new PaymentReadBatcher(db, 2);
  const all = ['a', 'b', 'c', 'd', 'e'].map((id) => reads.get(id));
  await turn();
  assert.deepEqual(
    sent.map((s) => s.ids),
    [['a', 'b'], ['c', 'd'], ['e']],
  );
  sent[2]!.answer(['e']);
  sent[1]!.answer(['d']);
  sent[0]!.answer(['a', 'b']);
  assert.deepEqual((await Promise.all(all)).map(idOf), ['a', 'b', null, 'd', 'e']);
});
