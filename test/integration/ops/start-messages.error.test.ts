/**
 * What a newcomer sees from `npm start`: the banner names the dashboard and where the
 * embedded database really is, `/` leads to the dashboard, and a database that cannot be
 * used ends the start with one line on stderr and exit code 1, nothing on stdout.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { freePort } from '../../../scripts/net.js';
import { createTestDatabase, databaseUrl } from '../../helpers/db.js';
import { startTestGateway } from '../../helpers/gateway.js';
import pg from 'pg';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const cleanups: (() => void)[] = [];
after(() => {
  for (const c of cleanups.reverse()) c();
});

/** A folder of mode 700, like `mktemp -d`; removed with any cluster its data/pg links to. */
function privateDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'paygate-start-'));
  chmodSync(dir, 0o700);
  cleanups.push(() => {
    const link = path.join(dir, 'data', 'pg');
    if (lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) {
      rmSync(readlinkSync(link), { recursive: true, force: true });
    }
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

interface Run {
  child: ChildProcess;
  out: () => { stdout: string; stderr: string };
  exited: Promise<number | null>;
}

/** `node src/main.ts` as its own process, with none of the runner's database or secrets. */
function startGatewayProcess(env: Record<string, string>): Run {
  const base = { ...process.env };
  delete base.DATABASE_URL;
  delete base.ADMIN_TOKEN;
  delete base.MASTER_KEY;
  delete base.LOG_LEVEL;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...base, HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, out: () => ({ stdout, stderr }), exited };
}

test('the banner names the dashboard and where the embedded cluster really is; / leads to /dashboard', async () => {
  const dataDir = path.join(privateDir(), 'data');
  const port = await freePort();
  const run = startGatewayProcess({
    DATA_DIR: dataDir,
    PORT: String(port),
    EMBEDDED_PG_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
  });
  try {
    const until = Date.now() + 90_000;
    while (!run.out().stdout.includes('admin token (kept in')) {
      if (run.child.exitCode !== null || Date.now() > until) assert.fail(JSON.stringify(run.out()));
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 200)); // the banner's last line is one write
    const url = `http://localhost:${port}`;
    const link = path.join(dataDir, 'pg');
    const cluster = realpathSync(link);
    // As root, from a folder the OS user "postgres" cannot enter, the cluster moves out.
    const relocated = lstatSync(link).isSymbolicLink();
    assert.equal(relocated, os.userInfo().uid === 0);
    const database = relocated
      ? `embedded PostgreSQL in ${cluster}, outside DATA_DIR (${link} links there; ` +
        'removing it: docs/operations.md, "Running as root")'
      : `embedded PostgreSQL in ${cluster}`;
    const token = readFileSync(path.join(dataDir, 'admin-token'), 'utf8').trim();
    assert.equal(
      run.out().stdout,
      [
        '',
        `Paygate is running at ${url}`,
        `  dashboard: ${url}/dashboard (sign in with the admin token below)`,
        `  database: ${database}`,
        `  simulators (test mode): on, under ${url}/sim/`,
        `  admin token (kept in ${dataDir}/admin-token; ADMIN_TOKEN overrides it): ${token}`,
        '',
        '',
      ].join('\n'),
    );

    const root = await fetch(`${url}/`, { redirect: 'manual' });
    assert.equal(root.status, 302);
    assert.equal(root.headers.get('location'), '/dashboard');
    const followed = await fetch(`${url}/`);
    assert.equal(new URL(followed.url).pathname, '/dashboard');
    // The other routes answer as before.
    const health = await fetch(`${url}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok' });
    assert.equal((await fetch(`${url}/readyz`)).status, 200);
    const unsigned = await fetch(`${url}/v1/payments`, { method: 'POST' });
    assert.equal(unsigned.status, 401);
    assert.equal(await unsigned.text(), 'missing auth headers');
    assert.equal((await fetch(`${url}/nothing-here`)).status, 404);
  } finally {
    run.child.kill('SIGTERM');
  }
  assert.equal(await run.exited, 0);
});

const secrets = {
  ADMIN_TOKEN: 'start-messages-admin-token',
  MASTER_KEY: randomBytes(32).toString('hex'),
};

test('an unreachable DATABASE_URL stops the start with one line naming the cause and the fix, exit code 1', async () => {
  const closed = await freePort(); // a loopback port nothing listens on
  const run = startGatewayProcess({
    ...secrets,
    DATA_DIR: path.join(privateDir(), 'data'),
    PORT: String(await freePort()),
    DATABASE_URL: `postgres://paygate:hunter2-password@127.0.0.1:${closed}/paygate`,
    LOG_LEVEL: 'info', // the level a newcomer runs at: nothing of the server may show
  });
  assert.equal(await run.exited, 1);
  assert.deepEqual(run.out(), {
    stdout: '',
    stderr:
      `startup error: cannot connect to the database at 127.0.0.1:${closed} (ECONNREFUSED): ` +
      'start PostgreSQL there, or correct DATABASE_URL\n',
  });
});

test('a DATABASE_URL naming a database that does not exist stops the start with one line', async () => {
  const missing = `paygate_missing_${randomBytes(4).toString('hex')}`;
  const url = new URL(databaseUrl(missing));
  const run = startGatewayProcess({
    ...secrets,
    DATA_DIR: path.join(privateDir(), 'data'),
    PORT: String(await freePort()),
    DATABASE_URL: url.toString(),
    LOG_LEVEL: 'info',
  });
  assert.equal(await run.exited, 1);
  assert.deepEqual(run.out(), {
    stdout: '',
    stderr:
      `startup error: the database at ${url.hostname}:${url.port || 5432} answered 3D000 ` +
      `database "${missing}" does not exist: create it, or correct the database name in DATABASE_URL\n`,
  });
});

test('behind a transaction pooler, a database whose commits do not flush stops the start with one line', async () => {
  // A pooler in transaction mode takes no session settings, so the gateway's synchronous
  // commits (its durability barrier) are the server's default: off must not start.
  const db = await createTestDatabase();
  cleanups.push(() => void db.drop().catch(() => undefined));
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  await c.query(`ALTER DATABASE ${db.name} SET synchronous_commit = off`);
  await c.end();
  const url = new URL(db.url);
  const run = startGatewayProcess({
    ...secrets,
    DATA_DIR: path.join(privateDir(), 'data'),
    PORT: String(await freePort()),
    DATABASE_URL: db.url,
    DATABASE_POOL_MODE: 'transaction',
    DATABASE_DIRECT_URL: db.url,
    LOG_LEVEL: 'info',
  });
  assert.equal(await run.exited, 1);
  assert.deepEqual(run.out(), {
    stdout: '',
    stderr:
      `startup error: the database at ${url.hostname}:${url.port || 5432} commits without flushing ` +
      `(synchronous_commit = off for this connection): set it to on for the gateway's role or ` +
      `database (ALTER ROLE ... SET synchronous_commit = on)\n`,
  });
});

test('a MASTER_KEY that does not open the app secrets stored in the database stops the start with one line, with WORKERS too; the right key starts', async () => {
  const db = await createTestDatabase();
  cleanups.push(() => void db.drop().catch(() => undefined));
  const shared = { url: db.url, drop: async () => undefined };
  const sealedWith = { MASTER_KEY: randomBytes(32).toString('hex') };
  const first = await startTestGateway(sealedWith, { database: shared, workers: false });
  await first.createApp();
  await first.stop();
  const line =
    'startup error: MASTER_KEY does not open the app secrets stored in this database (they ' +
    'were sealed under another key): start with the MASTER_KEY they were sealed with ' +
    '(docs/operations.md, "Several instances")\n';
  for (const workers of ['1', '2']) {
    const run = startGatewayProcess({
      ...secrets,
      DATA_DIR: path.join(privateDir(), 'data'),
      PORT: String(await freePort()),
      DATABASE_URL: db.url,
      WORKERS: workers,
      // The HTTP port opens before the check (503 while migrations run): its info line aside.
      LOG_LEVEL: 'warn',
    });
    assert.equal(await run.exited, 1, `WORKERS=${workers}`);
    assert.deepEqual(run.out(), { stdout: '', stderr: line }, `WORKERS=${workers}`);
  }
  const again = await startTestGateway(sealedWith, { database: shared, workers: false });
  await again.stop();
});
