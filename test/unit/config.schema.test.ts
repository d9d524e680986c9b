/**
 * The configuration schemas (src/config/schema.ts, src/simulators/settings.ts) are the one
 * source of each variable's rules: reading applies every declared bound, and a secret's
 * value never appears in an error.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { GATEWAY_VARS } from '../../src/config/schema.js';
import { SIMULATORS_VARS } from '../../src/simulators/settings.js';

const BASE = {
  ADMIN_TOKEN: 'config-schema-admin-token',
  MASTER_KEY: randomBytes(32).toString('hex'),
};

function messageOf(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.message;
  }
  assert.fail('no ConfigError');
}

test('every integer variable of the gateway refuses one past each bound, with its bounds in the text', () => {
  let checked = 0;
  for (const [name, v] of Object.entries(GATEWAY_VARS)) {
    const { min, max } = v;
    if (v.type !== 'integer' || min === undefined || max === undefined) continue;
    const expected = `${name} must be between ${min} and ${max}`;
    if (min > 0)
      assert.equal(
        messageOf(() => loadConfig({ ...BASE, [name]: String(min - 1) })),
        expected,
      );
    assert.equal(
      messageOf(() => loadConfig({ ...BASE, [name]: String(max + 1) })),
      expected,
    );
    assert.equal(
      messageOf(() => loadConfig({ ...BASE, [name]: '1.5' })),
      `${name} must be an integer, got "1.5"`,
    );
    if (typeof v.default === 'number') assert.ok(v.default >= min && v.default <= max, name);
    checked++;
  }
  assert.equal(checked, 33);
});

test('the secrets are declared as such, and a refused one is never echoed', () => {
  const secrets = (vars: Record<string, { secret: boolean }>) =>
    Object.entries(vars)
      .filter(([, v]) => v.secret)
      .map(([n]) => n);
  assert.deepEqual(secrets(GATEWAY_VARS), ['ADMIN_TOKEN', 'MASTER_KEY', 'OIDC_CLIENT_SECRET']);
  assert.deepEqual(secrets(SIMULATORS_VARS), ['MASTER_KEY']);
  for (const [name, bad] of [
    ['ADMIN_TOKEN', 'short-secret'],
    ['MASTER_KEY', 'not-a-key-secret'],
  ] as const) {
    const text = messageOf(() => loadConfig({ ...BASE, [name]: bad }));
    assert.ok(!text.includes(bad), `${name}: ${text}`);
  }
});
