import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import pg from 'pg';
import { freePort } from '../../../scripts/net.js';
import { startEmbeddedPostgres } from '../../../src/db/embedded.js';

// The embedded PostgreSQL starts from a folder only its owner can enter (as root: one the
// OS user "postgres" cannot reach), and every start-up failure is one line and exit code 1.

const ROOT = path.resolve(import.meta.dirname, '../../..');
const asRoot = os.userInfo().uid === 0;
const cleanups: (() => void)[] = [];
after(() => {
  for (const c of cleanups.reverse()) c();
});

/** A folder of mode 700, like `mktemp -d`, removed after the tests (with any cluster it links). */
function privateDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'paygate-embedded-'));
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

const quiet = { info: () => undefined, debug: () => undefined };

test('the embedded PostgreSQL starts from a DATA_DIR inside a mode-700 folder and keeps its data across restarts', async () => {
  const dataDir = path.join(privateDir(), 'data');
  // Where a root-run start puts what the "postgres" user must reach; /tmp itself is open.
  const runtimeDir = path.join(os.tmpdir(), `paygate-runtime-${randomBytes(4).toString('hex')}`);
  cleanups.push(() => rmSync(runtimeDir, { recursive: true, force: true }));

  const first = await startEmbeddedPostgres(dataDir, await freePort(), quiet, { runtimeDir });
  try {
    const c = new pg.Client({ connectionString: first.url });
    await c.connect();
    await c.query('CREATE TABLE kept (v text)');
    await c.query(`INSERT INTO kept VALUES ('survives a restart')`);
    await c.end();
  } finally {
    await first.stop();
  }
  // As root the cluster moved where "postgres" can reach it, and DATA_DIR/pg links there.
  assert.equal(first.relocated, asRoot);
  assert.equal(lstatSync(path.join(dataDir, 'pg')).isSymbolicLink(), asRoot);
  assert.equal(realpathSync(path.join(dataDir, 'pg')), first.clusterDir);
  if (asRoot) assert.ok(first.clusterDir.startsWith(path.join(runtimeDir, 'clusters') + '/'));
  assert.equal(statSync(path.join(dataDir, 'pg-password')).mode & 0o777, 0o600);

  const second = await startEmbeddedPostgres(dataDir, await freePort(), quiet, { runtimeDir });
  try {
    assert.equal(second.clusterDir, first.clusterDir);
    const c = new pg.Client({ connectionString: second.url });
    await c.connect();
    const { rows } = await c.query<{ v: string }>('SELECT v FROM kept');
    await c.end();
    assert.deepEqual(rows, [{ v: 'survives a restart' }]);
  } finally {
    await second.stop();
  }
});

/** `node src/main.ts` as its own process until it exits (it must, with these settings). */
function runGateway(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const base = { ...process.env };
  delete base.DATABASE_URL;
  delete base.ADMIN_TOKEN;
  delete base.MASTER_KEY;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...base, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

test('a DATA_DIR that is a file stops the gateway with one line and exit code 1', async () => {
  const file = path.join(privateDir(), 'not-a-folder');
  writeFileSync(file, 'x');
  // Without MASTER_KEY the configuration keeps a key in DATA_DIR, and says what is wrong.
  assert.deepEqual(await runGateway({ DATA_DIR: file }), {
    code: 1,
    stderr: `configuration error: DATA_DIR ${file} is a file, not a folder: set DATA_DIR to a folder\n`,
  });
  // With every secret given, the embedded database is the first to need DATA_DIR.
  assert.deepEqual(
    await runGateway({
      DATA_DIR: file,
      ADMIN_TOKEN: 'embedded-test-admin-token',
      MASTER_KEY: randomBytes(32).toString('hex'),
    }),
    {
      code: 1,
      stderr: `startup error: DATA_DIR ${file} is a file, not a folder: set DATA_DIR to a folder\n`,
    },
  );
});

test('an EMBEDDED_PG_PORT in use stops the gateway with one line naming the port and the fix', async () => {
  const dataDir = path.join(privateDir(), 'data');
  const holder = net.createServer();
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
  cleanups.push(() => holder.close());
  const port = (holder.address() as net.AddressInfo).port;
  const res = await runGateway({
    DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(port),
    ADMIN_TOKEN: 'embedded-test-admin-token',
    MASTER_KEY: randomBytes(32).toString('hex'),
  });
  assert.deepEqual(res, {
    code: 1,
    stderr:
      `startup error: the embedded PostgreSQL failed to start: port ${port} on 127.0.0.1 is in use: ` +
      'stop what listens there or set EMBEDDED_PG_PORT to a free port\n',
  });
  assert.ok(existsSync(path.join(dataDir, 'pg', 'PG_VERSION')), 'the cluster was initialised');
});
