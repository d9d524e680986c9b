import type { Queryable } from './pool.js';

/**
 * Whether PostgreSQL's autovacuum can clean the gateway's tables (docs/operations.md#autovacuum).
 *
 * The delivery queue, the payments and the idempotency keys are updated all day; without
 * autovacuum their dead rows pile up, indexes bloat and every query slows down hour by hour
 * while nothing fails. The gateway cannot turn autovacuum on (that is the server operator's
 * setting), so it says so: one warning at start and in /readyz.
 */
export async function autovacuumProblems(db: Queryable): Promise<string[]> {
  const res = await db.query<{ autovacuum: string; track_counts: string; off: string[] }>(
    `SELECT current_setting('autovacuum') AS autovacuum,
            current_setting('track_counts') AS track_counts,
            ARRAY(SELECT c.relname::text FROM pg_class c
                  WHERE c.relnamespace = current_schema()::regnamespace
                    AND c.relkind IN ('r', 'p')
                    AND c.reloptions && ARRAY['autovacuum_enabled=false', 'autovacuum_enabled=off',
                                              'autovacuum_enabled=0', 'autovacuum_enabled=no']
                  ORDER BY c.relname) AS off`,
  );
  const row = res.rows[0];
  if (!row) return [];
  const problems: string[] = [];
  if (row.autovacuum !== 'on') {
    problems.push(
      'autovacuum is off on the database server: dead rows will pile up and the gateway will slow down; turn it on (ALTER SYSTEM SET autovacuum = on; SELECT pg_reload_conf())',
    );
  }
  if (row.track_counts !== 'on') {
    problems.push(
      'track_counts is off on the database server, so autovacuum cannot see which tables need it; turn it on (ALTER SYSTEM SET track_counts = on; SELECT pg_reload_conf())',
    );
  }
  if (row.off.length > 0) {
    problems.push(
      `autovacuum is disabled on the tables ${row.off.join(', ')}: ALTER TABLE ... RESET (autovacuum_enabled)`,
    );
  }
  return problems;
}

/** The check at most once a minute, for /readyz, which load balancers poll often. */
export class AutovacuumWatch {
  private last: { at: number; problems: string[] } | undefined;
  private pending: Promise<string[]> | undefined;

  constructor(
    private readonly db: Queryable,
    private readonly now: () => number = Date.now,
    private readonly maxAgeMs = 60_000,
  ) {}

  problems(): Promise<string[]> {
    const last = this.last;
    if (last && this.now() - last.at < this.maxAgeMs) return Promise.resolve(last.problems);
    this.pending ??= autovacuumProblems(this.db)
      .then((problems) => {
        this.last = { at: this.now(), problems };
        return problems;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }
}
