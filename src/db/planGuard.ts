import { withTransaction, type Pool, type Queryable } from './pool.js';

/**
 * Keeps the plans of the hot prepared statements good while their tables grow (issue 28).
 *
 * Every named statement gets a generic plan after five executions, and PostgreSQL keeps it
 * for the life of the connection until something invalidates it. A generic plan made while a
 * table held a few pages can scan the whole table (a sequential scan is cheapest on a tiny
 * table) and it stays that way as the table grows to millions of rows, as long as nothing
 * touches the table's statistics: autovacuum analyses at most once a minute, and only after
 * 10 % of the rows changed since it last looked.
 *
 * ANALYZE updates pg_class, which invalidates every cached plan on the table in every
 * session: the next execution plans again, for the table's real size. So the gateway
 * analyses a hot table as soon as it has doubled in size since its statistics were taken
 * (or grown past a few pages without ever being analysed). Growth by doubling means a
 * handful of ANALYZEs over a table's life (about twenty between empty and a million rows),
 * each cheap (ANALYZE samples at most 30,000 rows), and a cached plan never sees a table
 * more than twice the size it was made for while that size still mattered. Once a table is
 * large, its generic plans are index scans, and they stay right however much it grows.
 */

/** The tables the request paths' prepared statements read and write. */
export const HOT_TABLES = [
  'payments',
  'customers',
  'idempotency_keys',
  'inbound_events',
  'outbound_events',
  'deliveries',
  'provider_transmissions',
  'ledger_entries',
  // Read by the delivery worker's claims and records, which its connection plans once,
  // generically (gateway.ts deliveryPool): an app may add endpoints by the thousand.
  'webhook_endpoints',
  // Read beside every row of the admin payment list (its refund): left unanalysed, the
  // planner guessed thousands of refunds a payment, and the list's cost passed jit_above_cost,
  // 1.4 s of JIT compilation on a 24 ms statement at ten million payments
  // (docs/performance.md#admin-search-at-ten-million-payments).
  'refunds',
];

/** Below this many pages a table's size does not matter to any plan. */
const MIN_PAGES = 16;

/**
 * The hot tables whose size on disk has more than doubled since they were last analysed
 * (relpages is what ANALYZE or VACUUM last saw; pg_relation_size is the size now).
 */
export async function grownTables(db: Queryable): Promise<string[]> {
  const res = await db.query<{ relname: string }>({
    name: 'plan_guard_grown',
    // A partitioned hot table (migration 0023) is checked partition by partition: the
    // parent has no size of its own, and the plans that matter scan the month being written.
    text: `SELECT c.relname FROM pg_class c
       WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'
         AND (c.relname = ANY($1::text[])
              OR c.oid IN (SELECT i.inhrelid FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent
                           WHERE p.relnamespace = c.relnamespace AND p.relname = ANY($1::text[])))
         AND pg_relation_size(c.oid) / current_setting('block_size')::int
             > greatest($2::int, 2 * c.relpages)`,
    values: [HOT_TABLES, MIN_PAGES],
  });
  return res.rows.map((r) => r.relname);
}

/**
 * Tables a pool's role may not analyse (ANALYZE only warns, and skips, when the role does
 * not own the table): not tried again through that pool, so the check stays one query.
 */
const refusedByPool = new WeakMap<Pool, Set<string>>();

/**
 * Analyses the hot tables that outgrew their statistics; returns their names, and the ones
 * ANALYZE skipped (not the owner). Instances take turns through an advisory lock (the others
 * skip the table), so a table is analysed once; ANALYZE runs in the lock's transaction.
 */
export async function analyzeGrownTables(
  pool: Pool,
): Promise<{ analysed: string[]; refused: string[] }> {
  const analysed: string[] = [];
  const skipped: string[] = [];
  let refused = refusedByPool.get(pool);
  if (!refused) refusedByPool.set(pool, (refused = new Set()));
  for (const table of await grownTables(pool)) {
    if (refused.has(table)) continue;
    const outcome = await withTransaction(pool, async (tx) => {
      const res = await tx.query<{ ok: boolean }>(
        `SELECT pg_try_advisory_xact_lock(hashtext('paygate plan guard ' || $1)) AS ok`,
        [table],
      );
      if (!res.rows[0]?.ok) return 'busy';
      // The name is a hot table's or one of its partitions' (from pg_class), never input.
      await tx.query(`ANALYZE "${table}"`);
      const still = await grownTables(tx);
      return still.includes(table) ? 'refused' : 'analysed';
    });
    if (outcome === 'analysed') analysed.push(table);
    if (outcome === 'refused') {
      refused.add(table);
      skipped.push(table);
    }
  }
  return { analysed, refused: skipped };
}
