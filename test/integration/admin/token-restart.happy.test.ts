import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { createTestDatabase } from '../../helpers/db.js';
import { kill, spawnGateway } from '../../helpers/process.js';

// In development the generated admin token is kept in DATA_DIR: the dashboard (and any
// script holding the token) stays signed in across a restart of the real process.

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'paygate-token-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

function printedToken(output: string): string {
  const m = /admin token \(kept in (.+); ADMIN_TOKEN overrides it\): (adm_[0-9a-f]{48})\n/.exec(
    output,
  );
  assert.ok(m, `the banner names the token and its file:\n${output}`);
  assert.equal(m[1], path.join(dataDir, 'admin-token'));
  return m[2] as string;
}

test('the generated admin token survives a restart; ADMIN_TOKEN overrides it', async () => {
  const db = await createTestDatabase();
  const env = {
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    ADMIN_TOKEN: '',
    MASTER_KEY: randomBytes(32).toString('hex'),
  };
  try {
    const first = await spawnGateway(env);
    const token = printedToken(first.output());
    assert.equal(await kill(first, 'SIGTERM'), 0);

    const second = await spawnGateway(env);
    try {
      assert.equal(printedToken(second.output()), token);
      const res = await fetch(`${second.url}/admin/apps`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(res.status, 200);
    } finally {
      await kill(second, 'SIGTERM');
    }

    const chosen = await spawnGateway({ ...env, ADMIN_TOKEN: 'an-operator-chosen-token' });
    try {
      assert.doesNotMatch(chosen.output(), /admin token/);
      const old = await fetch(`${chosen.url}/admin/apps`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(old.status, 401);
      assert.equal(await old.text(), 'unauthorized');
      const res = await fetch(`${chosen.url}/admin/apps`, {
        headers: { authorization: 'Bearer an-operator-chosen-token' },
      });
      assert.equal(res.status, 200);
    } finally {
      await kill(chosen, 'SIGTERM');
    }
  } finally {
    await db.drop();
  }
});
