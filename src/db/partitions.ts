import { withTransaction, type Pool } from './pool.js';

/**
 * Monthly partitions of the append-only history (migration 0023,
 * docs/operations.md#archiving-old-months). Each table has a partition per month and a
 * DEFAULT partition; the maintenance job creates the months ahead so that the DEFAULT one
 * stays empty, which keeps creating a partition cheap (PostgreSQL checks the DEFAULT
 * partition for rows of the new month) and keeps every month detachable on its own.
 */
export const PARTITIONED_TABLES = ['inbound_events', 'delivery_attempts', 'audit_log'] as const;

/** Months ahead of the current one that always have their partition. */
export const MONTHS_AHEAD = 3;

/**
 * The lock a partition's creation needs on the DEFAULT partition (ACCESS EXCLUSIVE, to check
 * it for the new month's rows) queues behind any long statement on that partition and holds
 * back the inserts behind it. The job gives up after this long and tries again at its next
 * round, months before the partition is needed.
 */
const LOCK_TIMEOUT = '2s';

/** The first day (UTC) of the month `offset` months after `now`'s, as YYYY-MM-DD. */
export function monthStart(now: Date, offset: number): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1))
    .toISOString()
    .slice(0, 10);
}

export interface PartitionRound {
  /** Partitions made in this round. */
  created: string[];
  /** Partitions that could not be made (a lock timeout, rows of that month in DEFAULT). */
  failed: { partition: string; error: string }[];
}

/**
 * Creates the partitions of this month and the MONTHS_AHEAD next ones that do not exist yet.
 * Idempotent, and safe on many instances at once: they take turns on an advisory lock, and
 * the later ones find the partitions there. A partition that fails is reported and the
 * others are still made.
 */
export async function ensureMonthPartitions(
  pool: Pool,
  now: Date = new Date(),
  monthsAhead = MONTHS_AHEAD,
): Promise<PartitionRound> {
  const round: PartitionRound = { created: [], failed: [] };
  for (const table of PARTITIONED_TABLES) {
    for (let offset = 0; offset <= monthsAhead; offset++) {
      const month = monthStart(now, offset);
      const partition = `${table}_p${month.slice(0, 7).replace('-', '_')}`;
      try {
        // One transaction per partition: a lock timeout loses one month, not the round.
        const made = await withTransaction(pool, async (tx) => {
          await tx.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
          await tx.query(`SELECT pg_advisory_xact_lock(hashtext('paygate partitions ' || $1))`, [
            table,
          ]);
          const res = await tx.query<{ made: boolean }>(
            'SELECT paygate_month_partition($1::regclass, $2::date) AS made',
            [table, month],
          );
          return res.rows[0]?.made === true;
        });
        if (made) round.created.push(partition);
      } catch (err) {
        round.failed.push({ partition, error: (err as Error).message });
      }
    }
  }
  return round;
}

/** Rows in each table's DEFAULT partition: not zero only when the job fell behind. */
export async function defaultPartitionRows(pool: Pool): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of PARTITIONED_TABLES) {
    // The names come from PARTITIONED_TABLES, never from input.
    const res = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}_default`);
    out[table] = res.rows[0]?.n ?? 0;
  }
  return out;
}
