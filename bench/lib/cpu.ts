/**
 * CPU time per operation, from the operating system's accounting (/proc/<pid>/stat: utime +
 * stime, in clock ticks of 10 ms), read before and after a measured window.
 *
 * - Gateway and simulators: each process and its cluster workers (the children listed in
 *   /proc/<pid>/task/<pid>/children), apart.
 * - PostgreSQL: the backends serving the bench database, found in pg_stat_activity and told
 *   apart by application_name (PGAPPNAME, set by bench/lib/env.ts for each process). Backends
 *   that start during the window count in full (their connection set-up included); a backend
 *   that exits inside the window is lost (the pools keep their connections through a run, so
 *   none do in practice). Server-wide processes (WAL writer, checkpointer) are not counted:
 *   the machine's PostgreSQL serves other work too.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';

const TICK_MS = 10; // getconf CLK_TCK = 100 on Linux

function ticksOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

function childPids(pid: number): number[] {
  try {
    const raw = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    return raw ? raw.split(/\s+/).map(Number) : [];
  } catch {
    return [];
  }
}

/** CPU ms so far of a process and its children (cluster workers). */
export function processTreeCpuMs(pid: number): number {
  return [pid, ...childPids(pid)].reduce((s, p) => s + (ticksOf(p) ?? 0), 0) * TICK_MS;
}

type BackendTicks = Map<number, { app: string; ticks: number }>;

async function backendTicks(client: pg.Client, database: string): Promise<BackendTicks> {
  const res = await client.query<{ pid: number; app: string }>(
    `SELECT pid, application_name AS app FROM pg_stat_activity
     WHERE datname = $1 AND pid <> pg_backend_pid()`,
    [database],
  );
  const out: BackendTicks = new Map();
  for (const r of res.rows) {
    const t = ticksOf(r.pid);
    if (t !== undefined) out.set(r.pid, { app: r.app || 'other', ticks: t });
  }
  return out;
}

export interface CpuWindow {
  /** Ends the window: CPU ms per operation for each process and for PostgreSQL by client. */
  end(operations: number): Promise<Record<string, number>>;
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

/**
 * Starts a measured window. `processes` names the pids to account (e.g. gateway, simulators);
 * 'self' is this bench process (the load generator, or an in-process reference); an
 * undefined pid is left out.
 */
export async function cpuWindow(
  databaseUrl: string,
  given: Record<string, number | 'self' | undefined>,
): Promise<CpuWindow> {
  const processes = Object.fromEntries(
    Object.entries(given).filter((e): e is [string, number | 'self'] => e[1] !== undefined),
  );
  const database = new URL(databaseUrl).pathname.slice(1);
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'bench' });
  await client.connect();
  const before = await backendTicks(client, database);
  const commits = async () =>
    Number(
      (
        await client.query<{ n: string }>(
          'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1',
          [database],
        )
      ).rows[0]?.n ?? 0,
    );
  const commitsBefore = await commits();
  const procBefore = Object.fromEntries(
    Object.entries(processes).map(([k, pid]) => [
      k,
      pid === 'self' ? process.cpuUsage() : processTreeCpuMs(pid),
    ]),
  );
  return {
    end: async (operations: number) => {
      const after = await backendTicks(client, database);
      // Backends report their counters at most once a second: wait for the last report.
      await new Promise((r) => setTimeout(r, 1100));
      const commitsAfter = await commits();
      await client.end();
      const out: Record<string, number> = {};
      for (const [k, pid] of Object.entries(processes)) {
        const b = procBefore[k];
        const ms =
          pid === 'self'
            ? (() => {
                const u = process.cpuUsage(b as NodeJS.CpuUsage);
                return (u.user + u.system) / 1000;
              })()
            : processTreeCpuMs(pid) - (b as number);
        out[`${k}_cpu_ms_per_op`] = round3(ms / Math.max(1, operations));
      }
      const pgByApp = new Map<string, number>();
      for (const [pid, a] of after) {
        const d = (a.ticks - (before.get(pid)?.ticks ?? 0)) * TICK_MS;
        pgByApp.set(a.app, (pgByApp.get(a.app) ?? 0) + d);
      }
      let total = 0;
      for (const [app, ms] of [...pgByApp].sort()) {
        total += ms;
        out[`postgres_${app}_cpu_ms_per_op`] = round3(ms / Math.max(1, operations));
      }
      out.postgres_cpu_ms_per_op = round3(total / Math.max(1, operations));
      // Every client's transactions on the database, read-only ones and the simulators'
      // included (pg_stat_database.xact_commit).
      out.transactions_per_op =
        Math.round(((commitsAfter - commitsBefore) / Math.max(1, operations)) * 100) / 100;
      return out;
    },
  };
}
