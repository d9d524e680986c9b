import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../../scripts/net.js';
import { obtainPgBouncer } from '../../scripts/pgbouncer.js';

export interface PgBouncer {
  version: string;
  port: number;
  /** A URL through PgBouncer to the server's database `db`, as the given server URL's user. */
  url(db: string): string;
  /** A command of PgBouncer's admin console (SHOW POOLS, SHOW STATS...). */
  show(what: string): Promise<Record<string, unknown>[]>;
  stop(): Promise<void>;
}

/**
 * A real PgBouncer (scripts/pgbouncer.ts) in transaction pooling mode in front of the
 * server of `serverUrl`; every database name is passed through to the server.
 */
export async function startPgBouncer(serverUrl: string): Promise<PgBouncer> {
  const build = await obtainPgBouncer();
  const server = new URL(serverUrl);
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'paygate-pgbouncer-'));
  const password = decodeURIComponent(server.password);
  const user = decodeURIComponent(server.username) || 'postgres';
  const ini = path.join(dir, 'pgbouncer.ini');
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432} user=${user}${password ? ` password=${password}` : ''}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      // Clients are tests on loopback; PgBouncer logs in to the server as the user above.
      'auth_type = any',
      'pool_mode = transaction',
      'max_client_conn = 400',
      'default_pool_size = 10',
      `admin_users = ${user}`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  // PgBouncer refuses to run as root; it drops to `nobody` once its files are read.
  const args = userInfo().uid === 0 ? ['-u', 'nobody', ini] : [ini];
  const child: ChildProcess = spawn(build.executablePath, args, {
    env: { ...process.env, ...build.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout?.on('data', (c: Buffer) => (log += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (log += c.toString()));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const until = Date.now() + 10_000;
  while (!log.includes('listening on 127.0.0.1')) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited: ${log}`);
    if (Date.now() > until) throw new Error(`pgbouncer did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = (db: string) => {
    const u = new URL(serverUrl);
    u.port = String(port);
    u.hostname = '127.0.0.1';
    u.pathname = `/${db}`;
    return u.toString();
  };
  return {
    version: build.version,
    port,
    url,
    async show(what) {
      const c = new pg.Client({ connectionString: url('pgbouncer') });
      await c.connect();
      try {
        // Without parameters pg sends a simple query, the only kind the admin console takes.
        return (await c.query(`SHOW ${what}`)).rows as Record<string, unknown>[];
      } finally {
        await c.end();
      }
    },
    async stop() {
      process.off('exit', killOnExit);
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
