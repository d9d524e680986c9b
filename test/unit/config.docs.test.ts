/**
 * docs/operations.md's configuration tables are generated from src/config.ts (npm run
 * docs:config), and the rows there are checked against what the code reads and defaults to.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { OPERATIONS_MD, withConfigTables } from '../../scripts/configDocs.js';
import { GATEWAY_SETTINGS, loadConfig, type SettingDoc } from '../../src/config.js';
import { loadSimulatorsConfig, SIMULATORS_SETTINGS } from '../../src/simulators/settings.js';

type Env = Record<string, string | undefined>;

const MASTER_KEY = randomBytes(32).toString('hex');
// Secrets given: loading writes nothing into DATA_DIR, whatever it is.
const GATEWAY_BASE: Env = { ADMIN_TOKEN: 'config-docs-admin-token', MASTER_KEY };
const SIMULATORS_BASE: Env = {
  DATABASE_URL: 'postgres://sim@127.0.0.1:5432/sim',
  GATEWAY_URL: 'http://127.0.0.1:8080',
  MASTER_KEY,
};
const PROVIDER_VAR = /^(IDR|CARD|WALLET)_PSP_(SANDBOX|LIVE)_[A-Z_]+$/;

/** The names `load` reads from its environment. */
function namesRead(load: (env: Env) => unknown, env: Env): string[] {
  const seen = new Set<string>();
  load(
    new Proxy(env, {
      get(target, key) {
        if (typeof key === 'string') seen.add(key);
        return typeof key === 'string' ? target[key] : undefined;
      },
    }),
  );
  return [...seen].sort();
}

function documentedNames(rows: readonly SettingDoc[]): string[] {
  return rows.flatMap((r) => /^`([A-Z0-9_]+)`$/.exec(r.variable)?.[1] ?? []).sort();
}

test('docs/operations.md holds the tables src/config.ts renders, the gateway table once', async () => {
  const doc = readFileSync(OPERATIONS_MD, 'utf8');
  assert.equal(
    await withConfigTables(doc),
    doc,
    'docs/operations.md is stale: npm run docs:config',
  );
  assert.equal(doc.split('\n| `ADMIN_TOKEN` ').length - 1, 1);
});

test('every variable loadConfig reads has a row, and every row is read', () => {
  const read = namesRead(loadConfig, { ...GATEWAY_BASE });
  const documented = documentedNames(GATEWAY_SETTINGS);
  assert.deepEqual(
    read.filter((n) => !PROVIDER_VAR.test(n)),
    documented,
  );
  // Provider endpoints are one row; a provider's variables are read once its BASE_URL is set.
  assert.ok(GATEWAY_SETTINGS.some((r) => r.variable.startsWith('`<PROVIDER>_<MODE>_BASE_URL`')));
  assert.ok(read.includes('WALLET_PSP_LIVE_BASE_URL'));
});

test('every variable loadSimulatorsConfig reads is in its table', () => {
  const read = namesRead(loadSimulatorsConfig, { ...SIMULATORS_BASE });
  const text = SIMULATORS_SETTINGS.map((r) => `${r.variable} ${r.default}`).join(' ');
  for (const name of read) assert.ok(text.includes(`\`${name}\``), `${name} is not documented`);
  for (const name of documentedNames(SIMULATORS_SETTINGS)) assert.ok(read.includes(name), name);
});

/** A row whose default is one value: setting the variable to it changes nothing. */
function checkDefaults(
  rows: readonly SettingDoc[],
  load: (env: Env) => unknown,
  base: Env,
): number {
  let checked = 0;
  for (const row of rows) {
    const name = /^`([A-Z0-9_]+)`$/.exec(row.variable)?.[1];
    const value = /^`([^`<]+)`$/.exec(row.default)?.[1];
    if (!name || value === undefined || name in base) continue;
    assert.deepEqual(
      load({ ...base, [name]: value }),
      load(base),
      `${name}'s default is not ${value}`,
    );
    checked++;
  }
  return checked;
}

test("the documented single-value defaults are the code's", () => {
  assert.ok(checkDefaults(GATEWAY_SETTINGS, loadConfig, GATEWAY_BASE) === 41);
  assert.ok(checkDefaults(SIMULATORS_SETTINGS, loadSimulatorsConfig, SIMULATORS_BASE) === 6);
});

test('a wrong documented default is caught', () => {
  const wrong = GATEWAY_SETTINGS.map((r) =>
    r.variable === '`PORT`' ? { ...r, default: '`8081`' } : r,
  );
  assert.throws(() => checkDefaults(wrong, loadConfig, GATEWAY_BASE), /PORT's default is not 8081/);
});
