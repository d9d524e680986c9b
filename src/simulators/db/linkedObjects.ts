// A simulator object registered together with the rows of other kinds that find it
// (reference aliases): idr_psp's transaction and its Snap token and transaction_id. Every
// test-mode payment registers one, so under load the registrations that reach PostgreSQL
// together share one statement (issue 28): a statement's fixed cost is far larger than a
// row's.
import { assertDistinct, batchedPerPool } from '../../db/statementBatcher.js';
import type { SimObjectKey } from './objects.js';
import type { Queryable } from './pool.js';

export interface LinkedInsert {
  key: SimObjectKey;
  data: object;
  /** Rows of the main object's provider pointing at it. */
  links: { kind: string; id: string; data: object }[];
}

/**
 * Inserts each main object unless its (provider, kind, id) is taken, and its links only when
 * it is new; every insert ON CONFLICT DO NOTHING, so a link whose id is taken (by an older row
 * or by an earlier item of the batch) is skipped, as it was with one statement per item. Per
 * item, in order: the stored data, or null when the id was taken. The keys must be distinct
 * (the batcher keeps them apart).
 */
export async function insertLinkedSimObjects(
  db: Queryable,
  items: LinkedInsert[],
): Promise<(object | null)[]> {
  // Alone (a quiet simulator, or an item run again alone), the one-object statement: for one
  // row the batch form's arrays, sorts and joins cost PostgreSQL more than they save.
  if (items.length === 1) return [await insertLinkedSimObjectAlone(db, items[0] as LinkedInsert)];
  assertDistinct(items.map((it) => keyText(it.key)));
  const links = items.flatMap((it, i) => it.links.map((l) => ({ owner: i + 1, ...l })));
  const res = await db.query<{ ord: number; data: object }>({
    name: 'sim_objects_insert_linked_batch',
    text: `WITH input AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])
         WITH ORDINALITY AS i(provider, kind, id, data, ord)),
     main AS (
       -- In key order (byte order, as the lone statement's links are sorted), the links too:
       -- two statements lock what they share in one order, so they can wait for one another
       -- but never deadlock.
       INSERT INTO paygate_sim.sim_objects (provider, kind, id, data)
       SELECT provider, kind, id, data::jsonb FROM input
       ORDER BY provider COLLATE "C", kind COLLATE "C", id COLLATE "C"
       ON CONFLICT DO NOTHING
       RETURNING provider, kind, id, data),
     linked AS (
       INSERT INTO paygate_sim.sim_objects (provider, kind, id, data)
       SELECT i.provider, l.kind, l.id, l.data::jsonb
       FROM unnest($5::int[], $6::text[], $7::text[], $8::text[])
         WITH ORDINALITY AS l(owner, kind, id, data, n)
       JOIN input i ON i.ord = l.owner
       -- An uncorrelated subquery (an InitPlan): every main row is written before any link.
       WHERE l.owner = ANY (ARRAY(SELECT ni.ord::int FROM input ni
                                  JOIN main m USING (provider, kind, id)))
       ORDER BY i.provider COLLATE "C", l.kind COLLATE "C", l.id COLLATE "C", l.n
       ON CONFLICT DO NOTHING)
     SELECT i.ord::int AS ord, m.data FROM input i JOIN main m USING (provider, kind, id)`,
    values: [
      items.map((it) => it.key.provider),
      items.map((it) => it.key.kind),
      items.map((it) => it.key.id),
      items.map((it) => JSON.stringify(it.data)),
      links.map((l) => l.owner),
      links.map((l) => l.kind),
      links.map((l) => l.id),
      links.map((l) => JSON.stringify(l.data)),
    ],
  });
  const stored = new Map(res.rows.map((r) => [r.ord, r.data]));
  return items.map((_, i) => stored.get(i + 1) ?? null);
}

async function insertLinkedSimObjectAlone(
  db: Queryable,
  { key: k, data, links }: LinkedInsert,
): Promise<object | null> {
  const res = await db.query<{ data: object }>({
    name: 'sim_objects_insert_linked',
    text: `WITH main AS (
       INSERT INTO paygate_sim.sim_objects (provider, kind, id, data) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING RETURNING data),
     linked AS (
       INSERT INTO paygate_sim.sim_objects (provider, kind, id, data)
       SELECT $1, l.kind, l.id, l.data FROM jsonb_to_recordset($5::jsonb) AS l(kind text, id text, data jsonb)
       WHERE EXISTS (SELECT 1 FROM main)
       ON CONFLICT DO NOTHING)
     SELECT data FROM main`,
    // Its links in a batch's order (COLLATE "C" is byte order, as JavaScript's for the ASCII
    // ids here); jsonb_to_recordset keeps the array's order.
    values: [k.provider, k.kind, k.id, JSON.stringify(data), JSON.stringify(inKeyOrder(links))],
  });
  return res.rows[0]?.data ?? null;
}

function inKeyOrder(links: LinkedInsert['links']): LinkedInsert['links'] {
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...links].sort((a, b) => cmp(a.kind, b.kind) || cmp(a.id, b.id));
}

function keyText(k: SimObjectKey): string {
  return `${k.provider}\n${k.kind}\n${k.id}`;
}

// Two registrations of one object go in two statements, and the later one finds the first's
// row (null), as two requests' own statements did.
const insertLinked = batchedPerPool(insertLinkedSimObjects, (item: LinkedInsert) =>
  keyText(item.key),
);

/**
 * One object and its links (insertLinkedSimObjects), sharing a statement with the other
 * registrations on `db` that go at the same time: the stored data, or null when the id was
 * taken (the links are then not written).
 */
export async function insertLinkedSimObject<T extends object>(
  db: Queryable,
  k: SimObjectKey,
  data: T,
  links: LinkedInsert['links'],
): Promise<T | null> {
  // The stored data is what this item wrote: the T it was given, as jsonb returns it.
  return (await insertLinked(db, { key: k, data, links })) as T | null;
}
