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

test('retention: 400 days by default, 1..36500 days', () => {
  assert.deepEqual(loadConfig(BASE).retention, { inboundDays: 400, deliveryAttemptsDays: 400 });
  assert.deepEqual(
    loadConfig({ ...BASE, INBOUND_RETENTION_DAYS: '30', DELIVERY_ATTEMPTS_RETENTION_DAYS: '90' })
      .retention,
    { inboundDays: 30, deliveryAttemptsDays: 90 },
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
