import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Pool } from './pool.js';

// The simulators' own schema and migrations, apart from the gateway's: their tables live in
// the schema paygate_sim of the database they are given, and the migrations applied there are
// listed in paygate_sim.migrations. Mounted in the gateway or run as their own process, the
// simulators apply them at start (Simulators.start).

/** The simulators' schema; every statement of theirs names it. */
export const SIM_SCHEMA = 'paygate_sim';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
// Not the gateway's migration lock: the two migrators never wait for each other.
const SIM_MIGRATION_LOCK = 727_274_023;

async function listSimMigrations(): Promise<{ version: number; name: string; file: string }[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
  return files.map((f) => ({
    version: Number(f.slice(0, 4)),
    name: f,
    file: path.join(MIGRATIONS_DIR, f),
  }));
}

/**
 * Applies the simulators' pending migrations; the names applied. All of them in one
 * transaction under a transaction-scoped advisory lock: simulators that start at once take
 * turns (the second finds nothing left to do), and the lock holds through a PgBouncer in
 * transaction pooling mode, which a session lock would not.
 */
export async function migrateSimulators(pool: Pool): Promise<string[]> {
  const pending = await listSimMigrations();
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('BEGIN');
    // The schema is written once; a failover right after start must not lose part of it.
    await client.query('SET LOCAL synchronous_commit = on');
    await client.query('SELECT pg_advisory_xact_lock($1)', [SIM_MIGRATION_LOCK]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${SIM_SCHEMA}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${SIM_SCHEMA}.migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set(
      (
        await client.query<{ version: number }>(`SELECT version FROM ${SIM_SCHEMA}.migrations`)
      ).rows.map((r) => r.version),
    );
    for (const m of pending) {
      if (done.has(m.version)) continue;
      try {
        await client.query(await readFile(m.file, 'utf8'));
      } catch (err) {
        throw new Error(`simulators' migration ${m.name} failed: ${(err as Error).message}`);
      }
      await client.query(`INSERT INTO ${SIM_SCHEMA}.migrations (version, name) VALUES ($1, $2)`, [
        m.version,
        m.name,
      ]);
      applied.push(m.name);
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
  return applied;
}
