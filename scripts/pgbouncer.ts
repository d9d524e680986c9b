/**
 * The PgBouncer the transaction-pooling tests run: Debian's package, downloaded with
 * `apt-get download` and unpacked with `dpkg-deb -x` into
 * node_modules/.cache/paygate-pgbouncer/, never installed. The same path works for root
 * and normal users, and leaves no system service behind. Shared libraries the machine
 * lacks (c-ares on a minimal Debian) come from their own packages, unpacked beside it and
 * found through LD_LIBRARY_PATH.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const CACHE = path.join(ROOT, 'node_modules/.cache/paygate-pgbouncer');
const BINARY = 'usr/sbin/pgbouncer';

export interface PgBouncerBuild {
  executablePath: string;
  version: string;
  /** Variables the pgbouncer process needs on top of the environment. */
  env: Record<string, string>;
}

function libraryPath(dir: string): string {
  return ['usr/lib/x86_64-linux-gnu', 'lib/x86_64-linux-gnu', 'usr/lib', 'lib']
    .map((p) => path.join(dir, p))
    .filter((p) => existsSync(p))
    .concat(process.env.LD_LIBRARY_PATH ? [process.env.LD_LIBRARY_PATH] : [])
    .join(':');
}

function buildIn(dir: string): PgBouncerBuild {
  const env = { LD_LIBRARY_PATH: libraryPath(dir) };
  const executablePath = path.join(dir, BINARY);
  const out = spawnSync(executablePath, ['--version'], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  const version = /PgBouncer (\S+)/.exec(out.stdout ?? '')?.[1];
  if (out.status !== 0 || !version) {
    throw new Error(`${executablePath} does not run: ${(out.stderr || out.stdout || '').trim()}`);
  }
  return { executablePath, version, env };
}

function run(cmd: string, args: string[], cwd: string): string {
  try {
    return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as { stderr?: string; code?: string };
    throw new Error(
      `${cmd} ${args.join(' ')} failed: ${(e.stderr ?? e.code ?? String(err)).trim()}`,
    );
  }
}

/** apt-get download, refreshing the package lists first when root finds them empty. */
function download(pkg: string, into: string): string {
  const before = new Set(readdirSync(into));
  try {
    run('apt-get', ['download', pkg], into);
  } catch (err) {
    if (userInfo().uid !== 0) {
      throw new Error(
        `${(err as Error).message}\nthe PgBouncer tests need Debian's package lists: run apt-get update as root once`,
      );
    }
    run('apt-get', ['update', '-qq'], into);
    run('apt-get', ['download', pkg], into);
  }
  const deb = readdirSync(into).find((f) => !before.has(f) && f.endsWith('.deb'));
  if (!deb) throw new Error(`apt-get download ${pkg} left no .deb`);
  return path.join(into, deb);
}

function installed(pkg: string): boolean {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('install ok installed');
}

/** The libraries ldd cannot find for the binary, with LD_LIBRARY_PATH pointing at dir. */
function missingLibraries(dir: string): string[] {
  const out = spawnSync('ldd', [path.join(dir, BINARY)], {
    env: { ...process.env, LD_LIBRARY_PATH: libraryPath(dir) },
    encoding: 'utf8',
  }).stdout;
  return [...(out ?? '').matchAll(/^\s*(\S+) => not found/gm)].map((m) => m[1] as string);
}

/** The unpacked PgBouncer, downloaded and unpacked now if this is its first use. */
export async function obtainPgBouncer(): Promise<PgBouncerBuild> {
  const dir = path.join(CACHE, 'debian');
  if (existsSync(path.join(dir, BINARY))) return buildIn(dir);
  // Unpacked beside the final place and renamed into it, as the Chromium build is.
  const tmp = `${dir}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  const debs = path.join(tmp, 'debs');
  const root = path.join(tmp, 'root');
  await mkdir(debs, { recursive: true });
  await mkdir(root, { recursive: true });
  try {
    const deb = download('pgbouncer', debs);
    run('dpkg-deb', ['-x', deb, root], tmp);
    if (missingLibraries(root).length > 0) {
      // Only library packages: the rest (postgresql-common, init scripts) is for the service.
      const depends = run('dpkg-deb', ['-f', deb, 'Depends'], tmp)
        .split(',')
        .map((d) => d.trim().split(/[\s|(]/)[0] ?? '')
        .filter((d) => d.startsWith('lib') && !installed(d));
      for (const dep of depends) run('dpkg-deb', ['-x', download(dep, debs), root], tmp);
    }
    const missing = missingLibraries(root);
    if (missing.length > 0) {
      throw new Error(`PgBouncer still lacks shared libraries: ${missing.join(', ')}`);
    }
    await rm(debs, { recursive: true, force: true });
    await mkdir(CACHE, { recursive: true });
    try {
      await rename(root, dir);
    } catch {
      // Another run finished first; its copy is as good as ours.
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return buildIn(dir);
}
