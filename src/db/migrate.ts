import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'migrations');
// Any constant works; it only has to be the same for every instance of the gateway.
const MIGRATION_LOCK = 727_274_001;

export async function listMigrations(): Promise<{ version: number; name: string; file: string }[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
  return files.map((f) => ({
    version: Number(f.slice(0, 4)),
    name: f,
    file: path.join(MIGRATIONS_DIR, f),
  }));
}

/**
 * Applies pending migrations, each in its own transaction. A session advisory lock makes
 * instances that start at once take turns: the second finds nothing left to do.
 */
export async function migrate(pool: pg.Pool): Promise<string[]> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set(
      (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map(
        (r) => r.version,
      ),
    );
    for (const m of await listMigrations()) {
      if (done.has(m.version)) continue;
      const sql = await readFile(m.file, 'utf8');
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
          m.version,
          m.name,
        ]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${m.name} failed: ${(err as Error).message}`);
      }
      applied.push(m.name);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    client.release();
  }
  return applied;
}

/** True when every migration file has been applied (for /readyz). */
export async function migrationsApplied(pool: pg.Pool): Promise<boolean> {
  const all = await listMigrations();
  const res = await pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM schema_migrations WHERE version = ANY($1::int[])',
    [all.map((m) => m.version)],
  );
  return res.rows[0]?.n === all.length;
}
