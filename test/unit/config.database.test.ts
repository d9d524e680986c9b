import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

// docs/operations.md#configuration: the retention and database connection settings.

const DATA_DIR = mkdtempSync(path.join(tmpdir(), 'paygate-config-db-'));
after(() => rmSync(DATA_DIR, { recursive: true, force: true }));
const BASE = { MASTER_KEY: randomBytes(32).toString('hex'), DATA_DIR };

function configError(message: string) {
  return (err: unknown) => {
    assert.ok(err instanceof ConfigError, `a ConfigError, got ${String(err)}`);
    assert.equal(err.message, message);
    return true;
  };
}

test("retention: 400 days by default (the simulators' objects 30), 1..36500 days", () => {
  assert.deepEqual(loadConfig(BASE).retention, {
    inboundDays: 400,
    deliveryAttemptsDays: 400,
    simObjectsDays: 30,
  });
  assert.deepEqual(
    loadConfig({
      ...BASE,
      INBOUND_RETENTION_DAYS: '30',
      DELIVERY_ATTEMPTS_RETENTION_DAYS: '90',
      SIM_OBJECTS_RETENTION_DAYS: '7',
    }).retention,
    { inboundDays: 30, deliveryAttemptsDays: 90, simObjectsDays: 7 },
  );
  assert.throws(
    () => loadConfig({ ...BASE, SIM_OBJECTS_RETENTION_DAYS: '36501' }),
    configError('SIM_OBJECTS_RETENTION_DAYS must be between 1 and 36500'),
  );
  assert.throws(
    () => loadConfig({ ...BASE, INBOUND_RETENTION_DAYS: '0' }),
    configError('INBOUND_RETENTION_DAYS must be between 1 and 36500'),
  );
  assert.throws(
    () => loadConfig({ ...BASE, DELIVERY_ATTEMPTS_RETENTION_DAYS: 'forever' }),
    configError('DELIVERY_ATTEMPTS_RETENTION_DAYS must be an integer, got "forever"'),
  );
});

test('DATABASE_URL: one or several hosts; a bad one is named without the URL', () => {
  const c = loadConfig({ ...BASE, DATABASE_URL: 'postgres://u:secret@db1:5432,db2:5433/paygate' });
  assert.equal(c.databaseUrl, 'postgres://u:secret@db1:5432,db2:5433/paygate');
  assert.deepEqual(c.database, { poolMode: 'session', directUrl: undefined });
  assert.throws(
    () => loadConfig({ ...BASE, DATABASE_URL: 'mysql://u:secret@db/x' }),
    configError('DATABASE_URL must be a postgres:// URL'),
  );
  assert.throws(
    () => loadConfig({ ...BASE, DATABASE_URL: 'postgres://u:secret@db1,db2:0/x' }),
    configError('DATABASE_URL bad host "db2:0"'),
  );
  assert.throws(
    () =>
      loadConfig({
        ...BASE,
        DATABASE_URL: 'postgres://u:secret@db1/x?target_session_attrs=prefer-standby',
      }),
    configError(
      'DATABASE_URL target_session_attrs must be any, read-write or primary, got "prefer-standby"',
    ),
  );
});

test('DATABASE_POOL_MODE=transaction needs DATABASE_DIRECT_URL for LISTEN and migrations', () => {
  const pgb = 'postgres://u:p@127.0.0.1:6432/paygate';
  const direct = 'postgres://u:p@127.0.0.1:5432/paygate';
  assert.deepEqual(
    loadConfig({
      ...BASE,
      DATABASE_URL: pgb,
      DATABASE_POOL_MODE: 'transaction',
      DATABASE_DIRECT_URL: direct,
    }).database,
    { poolMode: 'transaction', directUrl: direct },
  );
  assert.throws(
    () => loadConfig({ ...BASE, DATABASE_URL: pgb, DATABASE_POOL_MODE: 'transaction' }),
    configError(
      'DATABASE_DIRECT_URL is required when DATABASE_POOL_MODE=transaction: LISTEN and migrations need a connection to PostgreSQL itself',
    ),
  );
  assert.throws(
    () => loadConfig({ ...BASE, DATABASE_POOL_MODE: 'transaction', DATABASE_DIRECT_URL: direct }),
    configError('DATABASE_POOL_MODE=transaction needs DATABASE_URL (the PgBouncer)'),
  );
  assert.throws(
    () => loadConfig({ ...BASE, DATABASE_URL: pgb, DATABASE_POOL_MODE: 'statement' }),
    configError('DATABASE_POOL_MODE must be session or transaction, got "statement"'),
  );
  assert.throws(
    () => loadConfig({ ...BASE, DATABASE_URL: pgb, DATABASE_DIRECT_URL: 'http://x' }),
    configError('DATABASE_DIRECT_URL must be a postgres:// URL'),
  );
});
