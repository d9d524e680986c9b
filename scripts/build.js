/**
 * `npm run build`: the server compiled by tsc into dist/ (with the migrations beside it, where
 * dist/db/migrate.js looks for them) and the operator dashboard built by Vite into
 * dashboard/dist. Plain JavaScript, like scripts/start.js, so that it runs without tsx.
 * Also imported by scripts/start.js, which builds only when something is out of date.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const VITE = path.join(ROOT, 'node_modules/vite/bin/vite.js');

/** The newest modification time under each path (0 when none exists). */
function newest(...paths) {
  let t = 0;
  const walk = (p) => {
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) for (const name of readdirSync(p)) walk(path.join(p, name));
    else t = Math.max(t, st.mtimeMs);
  };
  for (const p of paths) walk(path.join(ROOT, p));
  return t;
}

function builtAt(file) {
  return statSync(path.join(ROOT, file), { throwIfNoEntry: false })?.mtimeMs ?? 0;
}

/** What is missing from dist/ and dashboard/dist or older than its sources. */
export function outOfDate() {
  const parts = [];
  const server = builtAt('dist/main.js');
  if (server === 0 || server < newest('src', 'tsconfig.json', 'tsconfig.build.json')) {
    parts.push('server');
  }
  const dashboard = builtAt('dashboard/dist/index.html');
  if (
    dashboard === 0 ||
    dashboard < newest('dashboard/src', 'dashboard/index.html', 'dashboard/vite.config.ts')
  ) {
    parts.push('dashboard');
  }
  return parts;
}

/** Whether the build tools (dev dependencies) are installed. */
export function canBuild() {
  return existsSync(TSC) && existsSync(VITE);
}

function run(args) {
  const res = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  if (res.status !== 0) {
    throw new Error(
      `build step failed: node ${args.map((a) => path.relative(ROOT, a) || a).join(' ')}`,
    );
  }
}

/** Compiles src/ into outDir (a clean one) with the migrations (the gateway's, the simulators') beside it. */
export function buildServer(outDir = path.join(ROOT, 'dist')) {
  // A clean folder: nothing compiled from a source that no longer exists stays behind.
  rmSync(outDir, { recursive: true, force: true });
  run([TSC, '-p', 'tsconfig.build.json', '--outDir', outDir]);
  cpSync(path.join(ROOT, 'src/migrations'), path.join(outDir, 'migrations'), { recursive: true });
  // The simulators' own migrations, where dist/simulators/db/migrate.js looks for them.
  cpSync(
    path.join(ROOT, 'src/simulators/db/migrations'),
    path.join(outDir, 'simulators/db/migrations'),
    { recursive: true },
  );
}

/** Builds the given parts (both by default). Throws with one line when a step fails. */
export function build(parts = ['server', 'dashboard']) {
  if (parts.includes('server')) buildServer();
  if (parts.includes('dashboard')) run([VITE, 'build', 'dashboard', '--logLevel', 'warn']);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    if (!canBuild()) {
      throw new Error('the build needs the dev dependencies (typescript, vite): run npm ci');
    }
    build();
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
