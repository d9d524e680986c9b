import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { createPool, type Pool } from '../../../src/db/pool.js';
import { SimStore } from '../../../src/simulators/common.js';
import {
  insertLinkedSimObjects,
  type LinkedInsert,
} from '../../../src/simulators/db/linkedObjects.js';
import { createTestDatabase } from '../../helpers/db.js';

// The simulators' linked registrations (an object and the references that find it, idr_psp's
// transaction with its token and transaction_id) share one statement when they go together
// (issue 28, simulators/db/linkedObjects.ts). Per item the statement must do what one
// statement each did: the object when its id is free, its links only then, a link whose id
// is taken skipped; and two batches over the same ids must wait for one another, never
// deadlock.

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: Pool;

before(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 4);
  // Every insert statement's transactions, to see which registrations went together.
  await pool.query(
    `CREATE TABLE insert_log (seq serial, ids text[]);
     CREATE FUNCTION log_insert() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       INSERT INTO insert_log (ids)
         SELECT array_agg(id ORDER BY id) FROM inserted WHERE kind = 'tx' HAVING count(*) > 0;
       RETURN NULL;
     END $$;
     CREATE TRIGGER log_insert AFTER INSERT ON paygate_sim.sim_objects
       REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION log_insert();`,
  );
});

after(async () => {
  await pool?.end();
  await db?.drop();
});

async function rows(provider: string) {
  const res = await pool.query<{ kind: string; id: string; data: object }>(
    `SELECT kind, id, data FROM paygate_sim.sim_objects WHERE provider = $1 ORDER BY kind, id`,
    [provider],
  );
  return res.rows;
}

async function statements(): Promise<string[][]> {
  const res = await pool.query<{ ids: string[] }>('DELETE FROM insert_log RETURNING seq, ids');
  return res.rows.map((r) => r.ids);
}

const ref = (id: string, order: string) => ({ kind: 'ref', id, data: { order } });

test('registrations going together share one statement, each answered as if alone', async () => {
  const store = new SimStore<{ n: number }>(pool, 'idr_psp', 'tx');
  // An object registered before: its repeat is answered with it, and its new link is not
  // written (links go only with a new object).
  await store.createLinked('c', { n: 0 }, [ref('c-ref', 'c')]);
  await statements();

  const results = await Promise.all([
    store.createLinked('a', { n: 1 }, [ref('a-ref', 'a'), ref('shared', 'a')]),
    store.createLinked('c', { n: 3 }, [ref('c-ref-2', 'c')]),
    // The same id as the first: never in its statement, so answered with what it stored.
    store.createLinked('a', { n: 9 }, [ref('a-ref-9', 'a')]),
    // A link whose id an earlier item of the same statement writes: skipped, as a second
    // statement's would have been; the object itself is new.
    store.createLinked('b', { n: 2 }, [ref('shared', 'b'), ref('b-ref', 'b')]),
  ]);
  assert.deepEqual(results, [
    { created: true, data: { n: 1 } },
    { created: false, data: { n: 0 } },
    { created: false, data: { n: 1 } },
    { created: true, data: { n: 2 } },
  ]);
  assert.deepEqual(await rows('idr_psp'), [
    { kind: 'ref', id: 'a-ref', data: { order: 'a' } },
    { kind: 'ref', id: 'b-ref', data: { order: 'b' } },
    { kind: 'ref', id: 'c-ref', data: { order: 'c' } },
    { kind: 'ref', id: 'shared', data: { order: 'a' } },
    { kind: 'tx', id: 'a', data: { n: 1 } },
    { kind: 'tx', id: 'b', data: { n: 2 } },
    { kind: 'tx', id: 'c', data: { n: 0 } },
  ]);
  // a and b in one statement (c's id was taken); the repeat of a in a later one, inserting
  // nothing.
  assert.deepEqual(await statements(), [['a', 'b']]);
});

test('one statement for several objects: a taken id or a taken link id changes only its own item', async () => {
  const item = (id: string, links: LinkedInsert['links']): LinkedInsert => ({
    key: { provider: 'p_direct', kind: 'tx', id },
    data: { id },
    links,
  });
  await insertLinkedSimObjects(pool, [item('old', [ref('old-ref', 'old')])]);
  const out = await insertLinkedSimObjects(pool, [
    item('z', [ref('z-ref', 'z'), ref('old-ref', 'z')]),
    item('old', [ref('never', 'old')]),
    item('m', [ref('z-ref', 'm')]),
  ]);
  assert.deepEqual(out, [{ id: 'z' }, null, { id: 'm' }]);
  assert.deepEqual(
    (await rows('p_direct')).map((r) => [r.kind, r.id, r.data]),
    [
      ['ref', 'old-ref', { order: 'old' }],
      // The earlier item of the batch keeps the id both name, whatever the key order.
      ['ref', 'z-ref', { order: 'z' }],
      ['tx', 'm', { id: 'm' }],
      ['tx', 'old', { id: 'old' }],
      ['tx', 'z', { id: 'z' }],
    ],
  );
  await assert.rejects(
    insertLinkedSimObjects(pool, [item('twice', []), item('twice', [])]),
    /one id twice/,
  );
});

test('a registration PostgreSQL refuses fails alone; the others of its statement are stored', async () => {
  const store = new SimStore<{ text: string }>(pool, 'wallet_psp', 'tx');
  await statements();
  const results = await Promise.allSettled([
    store.createLinked('ok-1', { text: 'fine' }, [ref('ok-1-ref', 'ok-1')]),
    // jsonb holds no NUL character: PostgreSQL refuses the whole statement.
    store.createLinked('bad', { text: 'a\u0000b' }, [ref('bad-ref', 'bad')]),
    store.createLinked('ok-2', { text: 'fine' }, [ref('ok-2-ref', 'ok-2')]),
  ]);
  assert.deepEqual(results[0], {
    status: 'fulfilled',
    value: { created: true, data: { text: 'fine' } },
  });
  assert.deepEqual(results[2], {
    status: 'fulfilled',
    value: { created: true, data: { text: 'fine' } },
  });
  assert.equal(results[1].status, 'rejected');
  assert.ok(results[1].status === 'rejected' && results[1].reason instanceof pg.DatabaseError);
  assert.equal((results[1].reason as pg.DatabaseError).code, '22P05');
  assert.deepEqual(
    (await rows('wallet_psp')).map((r) => r.id),
    ['ok-1-ref', 'ok-2-ref', 'ok-1', 'ok-2'],
  );
  // The shared statement failed; each went again alone.
  assert.deepEqual(await statements(), [['ok-1'], ['ok-2']]);
});

test('batches over the same objects in opposite orders wait for one another, never deadlock', async () => {
  // A deadlock would be PostgreSQL's 40P01 here (through the batcher, the items would then
  // go again alone: slower, still answered).
  const n = 12;
  for (let round = 0; round < 30; round++) {
    const items = Array.from({ length: n }, (_, i) => ({
      key: { provider: 'p_locks', kind: 'tx', id: `r${round}-${i}` },
      data: { round, i },
      links: [ref(`r${round}-ref-${i}`, `r${round}-${i}`)],
    }));
    const [forward, backward] = await Promise.all([
      insertLinkedSimObjects(pool, items),
      insertLinkedSimObjects(pool, [...items].reverse()),
    ]);
    const wonForward = forward.map((x) => x !== null);
    const wonBackward = [...backward].reverse().map((x) => x !== null);
    assert.deepEqual(
      wonForward.map((w, i) => w !== wonBackward[i]),
      items.map(() => true),
      'every object stored by exactly one of the two',
    );
  }
  const res = await pool.query<{ kind: string; n: number }>(
    `SELECT kind, count(*)::int AS n FROM paygate_sim.sim_objects WHERE provider = 'p_locks'
      GROUP BY kind ORDER BY kind`,
  );
  assert.deepEqual(res.rows, [
    { kind: 'ref', n: 30 * n },
    { kind: 'tx', n: 30 * n },
  ]);
});

test('batches of different objects whose links name the same ids in opposite orders never deadlock', async () => {
  const n = 32;
  for (let round = 0; round < 30; round++) {
    const link = (i: number) => `r${round}-link-${i}`;
    const batch = (side: string, linkOf: (i: number) => number) =>
      Array.from({ length: n }, (_, i) => ({
        key: { provider: 'p_links', kind: 'tx', id: `r${round}-${side}-${i}` },
        data: { side, i },
        links: [ref(link(linkOf(i)), `r${round}-${side}-${i}`)],
      }));
    const [a, b] = await Promise.all([
      insertLinkedSimObjects(
        pool,
        batch('a', (i) => i),
      ),
      insertLinkedSimObjects(
        pool,
        batch('b', (i) => n - 1 - i),
      ),
    ]);
    // Every object is new; each link id is stored once, by whichever batch came first.
    assert.ok([...a, ...b].every((x) => x !== null));
    const res = await pool.query<{ id: string }>(
      `SELECT id FROM paygate_sim.sim_objects WHERE provider = 'p_links' AND kind = 'ref'
         AND id LIKE $1 ORDER BY id`,
      [`r${round}-link-%`],
    );
    assert.deepEqual(
      res.rows.map((r) => r.id),
      Array.from({ length: n }, (_, i) => link(i)).sort(),
    );
  }
});
