/**
 * The gateway checks at start whether autovacuum can clean its tables and says so in one log
 * line and in /readyz when it cannot (docs/operations.md#autovacuum). The server is a real
 * PostgreSQL of its own with autovacuum turned off the way an operator would (ALTER SYSTEM).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { freePort } from '../../../scripts/net.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../../src/db/embedded.js';
import { createLogger } from '../../../src/logger.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

const SERVER_OFF =
  'autovacuum is off on the database server: dead rows will pile up and the gateway will slow down; turn it on (ALTER SYSTEM SET autovacuum = on; SELECT pg_reload_conf())';
const MSG_START = 'the database will slow down over time: ';

const quiet = { info: () => undefined, debug: () => undefined };
let server: EmbeddedDatabase;
let dir: string;
let runtimeDir: string;

async function query(url: string, sql: string): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await c.query(sql);
  } finally {
    await c.end();
  }
}

/** ALTER SYSTEM then reload; a new session sees the setting once the postmaster reloaded. */
async function setAutovacuum(on: boolean): Promise<void> {
  await query(server.url, `ALTER SYSTEM SET autovacuum = ${on ? 'on' : 'off'}`);
  await query(server.url, 'SELECT pg_reload_conf()');
  for (let i = 0; i < 100; i++) {
    const { rows } = await query(server.url, 'SHOW autovacuum');
    if ((rows[0] as { autovacuum: string }).autovacuum === (on ? 'on' : 'off')) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the server did not reload its settings');
}

interface Logged {
  level: number;
  msg: string;
  problems?: string[];
}

async function startGateway(): Promise<{ gw: TestGateway; lines: Logged[] }> {
  const lines: Logged[] = [];
  const log = createLogger('info', {
    write: (s: string) => void lines.push(JSON.parse(s) as Logged),
  });
  // The gateway's own database on the server, dropped by the test's after().
  const gw = await startTestGateway(
    {},
    { database: { url: server.url, drop: async () => undefined }, log },
  );
  return { gw, lines };
}

describe('autovacuum check', () => {
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'paygate-autovacuum-'));
    chmodSync(dir, 0o700);
    // As root the cluster lives where the OS user "postgres" can reach: not under dir.
    runtimeDir = path.join(os.tmpdir(), `paygate-runtime-${randomBytes(4).toString('hex')}`);
    server = await startEmbeddedPostgres(path.join(dir, 'data'), await freePort(), quiet, {
      runtimeDir,
    });
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(runtimeDir, { recursive: true, force: true });
  });

  test('autovacuum off on the server: one warning line at start, and /readyz says so while staying ready', async () => {
    await setAutovacuum(false);
    const { gw, lines } = await startGateway();
    try {
      const warnings = lines.filter((l) => l.msg.startsWith(MSG_START));
      assert.equal(warnings.length, 1, JSON.stringify(lines));
      const [line] = warnings;
      assert.equal(line?.level, 40); // pino's warn
      assert.equal(line?.msg, `${MSG_START}${SERVER_OFF} (docs/operations.md, "Autovacuum")`);
      assert.deepEqual(line?.problems, [SERVER_OFF]);

      const res = await gw.admin('GET', '/readyz', undefined, '');
      assert.equal(res.status, 200);
      assert.deepEqual(res.json(), { status: 'ready', warnings: [SERVER_OFF] });
    } finally {
      await gw.stop();
    }
  });

  test('a table with autovacuum disabled is named; the warning goes once the operator fixes it', async () => {
    await setAutovacuum(true);
    const { gw, lines } = await startGateway();
    try {
      assert.equal(lines.filter((l) => l.msg.startsWith(MSG_START)).length, 0);
      assert.deepEqual((await gw.admin('GET', '/readyz', undefined, '')).json(), {
        status: 'ready',
      });

      await query(server.url, 'ALTER TABLE deliveries SET (autovacuum_enabled = false)');
      // /readyz looks again at most once a minute, on the gateway's clock.
      const real = gw.running.gw.now;
      let nowMs = real();
      gw.running.gw.now = () => nowMs;
      try {
        assert.deepEqual((await gw.admin('GET', '/readyz', undefined, '')).json(), {
          status: 'ready',
        });
        nowMs += 61_000;
        assert.deepEqual((await gw.admin('GET', '/readyz', undefined, '')).json(), {
          status: 'ready',
          warnings: [
            'autovacuum is disabled on the tables deliveries: ALTER TABLE ... RESET (autovacuum_enabled)',
          ],
        });
        await query(server.url, 'ALTER TABLE deliveries RESET (autovacuum_enabled)');
        nowMs += 61_000;
        assert.deepEqual((await gw.admin('GET', '/readyz', undefined, '')).json(), {
          status: 'ready',
        });
      } finally {
        gw.running.gw.now = real;
      }
    } finally {
      await gw.stop();
    }
  });

  test('the migrations give the hot tables their autovacuum and fillfactor settings', async () => {
    const { gw } = await startGateway();
    try {
      const { rows } = await query(
        server.url,
        `SELECT relname, reloptions FROM pg_class
         WHERE relname IN ('payments', 'deliveries', 'idempotency_keys', 'ledger_entries')
           AND relkind = 'r' ORDER BY relname`,
      );
      const options = Object.fromEntries(
        (rows as { relname: string; reloptions: string[] }[]).map((r) => [r.relname, r.reloptions]),
      );
      assert.deepEqual(options, {
        // Migration 0029: 100, since none of their updates can be HOT (docs/operations.md#autovacuum).
        deliveries: [
          'autovacuum_vacuum_scale_factor=0.01',
          'autovacuum_vacuum_threshold=1000',
          'autovacuum_analyze_scale_factor=0.02',
          'fillfactor=100',
        ],
        idempotency_keys: [
          'fillfactor=80',
          'autovacuum_vacuum_scale_factor=0.02',
          'autovacuum_analyze_scale_factor=0.05',
        ],
        ledger_entries: ['autovacuum_vacuum_insert_scale_factor=0.05'],
        payments: [
          'autovacuum_vacuum_scale_factor=0.02',
          'autovacuum_analyze_scale_factor=0.02',
          'fillfactor=100',
        ],
      });
    } finally {
      await gw.stop();
    }
  });
});
