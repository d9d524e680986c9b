import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { freePort } from '../../../scripts/net.js';
import { createTestDatabase } from '../../helpers/db.js';

// `npm start` in production: compiled code, and the runtime dependencies alone are enough.
// An install as `npm ci --omit=dev` leaves it is made here: the build output and the start
// script, with node_modules holding only the packages `npm ls --omit=dev` names.

const ROOT = path.resolve(import.meta.dirname, '../../..');
const install = mkdtempSync(path.join(os.tmpdir(), 'paygate-prod-'));
after(() => rmSync(install, { recursive: true, force: true }));

function productionInstall(): void {
  for (const f of ['package.json', 'scripts/start.js', 'scripts/build.js']) {
    cpSync(path.join(ROOT, f), path.join(install, f));
  }
  const built = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(path.join(ROOT, 'scripts/build.js'))}); m.buildServer(process.argv[1]);`,
      path.join(install, 'dist'),
    ],
    { cwd: ROOT, encoding: 'utf8' },
  );
  assert.equal(built.status, 0, built.stdout + built.stderr);
  const ls = spawnSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const top = path.join(ROOT, 'node_modules') + path.sep;
  for (const dir of ls.stdout.split('\n')) {
    // Packages at the top of node_modules; nested ones come along inside them.
    const name = dir.startsWith(top) ? dir.slice(top.length) : '';
    if (!name || name.includes(`${path.sep}node_modules${path.sep}`)) continue;
    mkdirSync(path.dirname(path.join(install, 'node_modules', name)), { recursive: true });
    symlinkSync(dir, path.join(install, 'node_modules', name));
  }
}

function npmStart(env: Record<string, string>) {
  const child = spawn('npm', ['start', '--silent'], {
    cwd: install,
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, exited, out: () => ({ stdout, stderr }) };
}

test('npm start runs the compiled gateway with only the runtime dependencies installed', async () => {
  productionInstall();
  const db = await createTestDatabase();
  const port = await freePort();
  const run = npmStart({
    PAYGATE_ENV: 'production',
    DATABASE_URL: db.url,
    PORT: String(port),
    ADMIN_TOKEN: 'production-start-admin-token',
    MASTER_KEY: randomBytes(32).toString('hex'),
  });
  try {
    let status = 0;
    for (let i = 0; i < 600 && status !== 200 && run.child.exitCode === null; i++) {
      status = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status,
        () => 0,
      );
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(status, 200, JSON.stringify(run.out()));
    // No dashboard build in this install, and no tools to make one: said once, not fatal.
    assert.equal(
      run.out().stderr,
      'the dashboard build is missing or out of date; it cannot be rebuilt here\n',
    );
  } finally {
    if (run.child.pid !== undefined) process.kill(-run.child.pid, 'SIGTERM');
    await run.exited;
    await db.drop();
  }
});

test('without dist/ and without the build tools, npm start stops with one line and exit code 1', async () => {
  rmSync(path.join(install, 'dist'), { recursive: true, force: true });
  const run = npmStart({ PORT: '0' });
  assert.equal(await run.exited, 1);
  assert.equal(
    run.out().stderr,
    'startup error: dist/ is missing or older than src/ and the build tools are not installed ' +
      '(npm ci --omit=dev): run npm run build where the dev dependencies are installed, then start\n',
  );
});
