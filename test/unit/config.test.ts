import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from '../../src/config.js';
import { loadSimulatorsConfig } from '../../src/simulators/settings.js';

const MASTER_KEY = randomBytes(32).toString('hex');
// Without ADMIN_TOKEN a development configuration keeps a generated token in DATA_DIR.
const DATA_DIR = mkdtempSync(path.join(tmpdir(), 'paygate-config-base-'));
after(() => rmSync(DATA_DIR, { recursive: true, force: true }));
const BASE = { MASTER_KEY, DATA_DIR };

function configError(message: string) {
  return (err: unknown) => {
    assert.ok(err instanceof ConfigError, `a ConfigError, got ${String(err)}`);
    assert.equal(err.message, message);
    return true;
  };
}

test('defaults (docs/operations.md#configuration)', () => {
  const c = loadConfig(BASE);
  assert.equal(c.env, 'development');
  assert.equal(c.port, 8080);
  assert.equal(c.databaseUrl, undefined);
  assert.equal(c.simulators, true);
  assert.equal(c.idrPspDirectQr, false);
  assert.equal(c.allowPrivateWebhookTargets, false);
  assert.equal(c.publicBaseUrl, undefined);
  assert.deepEqual(c.delivery, {
    maxAttempts: 16,
    baseDelayMs: 5000,
    maxDelayMs: 3_600_000,
    timeoutMs: 10_000,
  });
  assert.deepEqual(c.adminAuth, { failuresBurst: 10, failuresPerMinute: 10 });
  assert.equal(c.adminTokenGenerated, true);
  assert.match(c.adminToken, /^adm_[0-9a-f]{48}$/);
  assert.equal(c.masterKey.toString('hex'), MASTER_KEY);
});

test('PORT must be an integer in range, and the message names the variable', () => {
  assert.throws(
    () => loadConfig({ ...BASE, PORT: 'abc' }),
    configError('PORT must be an integer, got "abc"'),
  );
  assert.throws(
    () => loadConfig({ ...BASE, PORT: '80.5' }),
    configError('PORT must be an integer, got "80.5"'),
  );
  assert.throws(
    () => loadConfig({ ...BASE, PORT: '-1' }),
    configError('PORT must be an integer, got "-1"'),
  );
  assert.throws(
    () => loadConfig({ ...BASE, PORT: '65536' }),
    configError('PORT must be between 0 and 65535'),
  );
  assert.equal(loadConfig({ ...BASE, PORT: '0' }).port, 0);
  assert.equal(loadConfig({ ...BASE, PORT: '3000' }).port, 3000);
});

test('DELIVERY_* variables are validated', () => {
  assert.throws(
    () => loadConfig({ ...BASE, DELIVERY_MAX_ATTEMPTS: 'many' }),
    configError('DELIVERY_MAX_ATTEMPTS must be an integer, got "many"'),
  );
  assert.throws(
    () => loadConfig({ ...BASE, DELIVERY_MAX_ATTEMPTS: '0' }),
    configError('DELIVERY_MAX_ATTEMPTS must be between 1 and 100'),
  );
  assert.throws(
    () => loadConfig({ ...BASE, DELIVERY_MAX_ATTEMPTS: '101' }),
    configError('DELIVERY_MAX_ATTEMPTS must be between 1 and 100'),
  );
  assert.throws(
    () => loadConfig({ ...BASE, DELIVERY_TIMEOUT_MS: '1s' }),
    configError('DELIVERY_TIMEOUT_MS must be an integer, got "1s"'),
  );
  const c = loadConfig({
    ...BASE,
    DELIVERY_MAX_ATTEMPTS: '3',
    DELIVERY_BASE_DELAY_MS: '10',
    DELIVERY_MAX_DELAY_MS: '20',
    DELIVERY_TIMEOUT_MS: '30',
  });
  assert.deepEqual(c.delivery, { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20, timeoutMs: 30 });
});

test('production requires ADMIN_TOKEN and MASTER_KEY', () => {
  assert.throws(
    () => loadConfig({ ...BASE, PAYGATE_ENV: 'production' }),
    configError('ADMIN_TOKEN is required when PAYGATE_ENV=production'),
  );
  assert.throws(
    () =>
      loadConfig({
        PAYGATE_ENV: 'production',
        ADMIN_TOKEN: 'a-long-enough-admin-token',
        DATA_DIR,
      }),
    configError('MASTER_KEY is required when PAYGATE_ENV=production'),
  );
  const c = loadConfig({
    ...BASE,
    PAYGATE_ENV: 'production',
    ADMIN_TOKEN: 'a-long-enough-admin-token',
  });
  assert.equal(c.env, 'production');
  assert.equal(c.adminTokenGenerated, false);
  assert.equal(c.simulators, false, 'simulators are off in production unless asked for');
  assert.throws(
    () => loadConfig({ ...BASE, PAYGATE_ENV: 'staging' }),
    configError('PAYGATE_ENV must be development or production'),
  );
});

test('MASTER_KEY must be 32 bytes, hex or base64', () => {
  const message = 'MASTER_KEY must be 32 bytes, as 64 hex characters or base64';
  for (const key of ['abcd', 'ab'.repeat(31), randomBytes(16).toString('base64')]) {
    assert.throws(() => loadConfig({ ...BASE, MASTER_KEY: key }), configError(message), key);
  }
  const raw = randomBytes(32);
  assert.deepEqual(loadConfig({ ...BASE, MASTER_KEY: raw.toString('base64') }).masterKey, raw);
  assert.deepEqual(loadConfig({ ...BASE, MASTER_KEY: raw.toString('hex') }).masterKey, raw);
});

test('a development install without MASTER_KEY keeps one generated key in DATA_DIR', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'paygate-config-'));
  try {
    const first = loadConfig({ DATA_DIR: dir }).masterKey;
    assert.equal(first.length, 32);
    assert.deepEqual(loadConfig({ DATA_DIR: dir }).masterKey, first);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a development install without ADMIN_TOKEN keeps one generated token in DATA_DIR/admin-token', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'paygate-config-'));
  try {
    const first = loadConfig({ MASTER_KEY, DATA_DIR: dir });
    const file = path.join(dir, 'admin-token');
    assert.match(first.adminToken, /^adm_[0-9a-f]{48}$/);
    assert.equal(first.adminTokenGenerated, true);
    assert.equal(first.adminTokenFile, file);
    assert.equal(readFileSync(file, 'utf8'), `${first.adminToken}\n`);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    // A restart reads the same token: the dashboard stays signed in.
    assert.equal(loadConfig({ MASTER_KEY, DATA_DIR: dir }).adminToken, first.adminToken);
    // ADMIN_TOKEN overrides the kept token, which stays for a later start without it.
    const set = loadConfig({ MASTER_KEY, DATA_DIR: dir, ADMIN_TOKEN: 'an-operator-chosen-token' });
    assert.equal(set.adminToken, 'an-operator-chosen-token');
    assert.equal(set.adminTokenGenerated, false);
    assert.equal(set.adminTokenFile, undefined);
    assert.equal(loadConfig({ MASTER_KEY, DATA_DIR: dir }).adminToken, first.adminToken);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('production requires ADMIN_TOKEN even when DATA_DIR keeps a generated one', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'paygate-config-'));
  try {
    loadConfig({ MASTER_KEY, DATA_DIR: dir });
    assert.throws(
      () => loadConfig({ MASTER_KEY, DATA_DIR: dir, PAYGATE_ENV: 'production' }),
      configError('ADMIN_TOKEN is required when PAYGATE_ENV=production'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a DATA_DIR that cannot hold the kept secrets is a configuration error', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'paygate-config-'));
  try {
    const file = path.join(dir, 'file');
    writeFileSync(file, 'x');
    assert.throws(
      () => loadConfig({ MASTER_KEY, DATA_DIR: file }),
      configError(`DATA_DIR ${file} is a file, not a folder: set DATA_DIR to a folder`),
    );
    // An invalid setting stops the start before anything is written to DATA_DIR.
    const fresh = path.join(dir, 'fresh');
    assert.throws(() => loadConfig({ DATA_DIR: fresh, PORT: 'x' }), ConfigError);
    assert.equal(existsSync(fresh), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ADMIN_TOKEN, booleans, URLs and provider endpoints are validated', () => {
  assert.throws(
    () => loadConfig({ ...BASE, ADMIN_TOKEN: 'short' }),
    configError('ADMIN_TOKEN must be at least 16 characters'),
  );
  assert.throws(
    () => loadConfig({ ...BASE, SIMULATORS: 'maybe' }),
    configError('SIMULATORS must be true/false (or on/off), got "maybe"'),
  );
  assert.equal(loadConfig({ ...BASE, SIMULATORS: 'off' }).simulators, false);
  assert.equal(loadConfig({ ...BASE, IDR_PSP_DIRECT_QR: 'true' }).idrPspDirectQr, true);
  assert.throws(
    () => loadConfig({ ...BASE, PUBLIC_BASE_URL: 'not a url' }),
    configError('PUBLIC_BASE_URL must be an absolute URL'),
  );
  assert.throws(
    () => loadConfig({ ...BASE, PUBLIC_BASE_URL: 'ftp://x.example' }),
    configError('PUBLIC_BASE_URL must be an http(s) URL'),
  );
  assert.equal(
    loadConfig({ ...BASE, PUBLIC_BASE_URL: 'https://pay.example.com/' }).publicBaseUrl,
    'https://pay.example.com',
  );
  assert.throws(
    () => loadConfig({ ...BASE, DATABASE_URL: 'mysql://x' }),
    configError('DATABASE_URL must be a postgres:// URL'),
  );
  assert.throws(
    () => loadConfig({ ...BASE, IDR_PSP_SANDBOX_BASE_URL: 'https://sandbox.idr.example' }),
    configError('IDR_PSP_SANDBOX_SERVER_KEY is required when IDR_PSP_SANDBOX_BASE_URL is set'),
  );
  const c = loadConfig({
    ...BASE,
    IDR_PSP_SANDBOX_BASE_URL: 'https://sandbox.idr.example',
    IDR_PSP_SANDBOX_SERVER_KEY: 'srv-key',
  });
  assert.deepEqual(c.providerEndpoints.idr_psp.sandbox, {
    baseUrl: 'https://sandbox.idr.example',
    credentials: { serverKey: 'srv-key' },
    webhookSecret: 'srv-key',
  });
  assert.equal(c.providerEndpoints.idr_psp.live, undefined);
});

test('the process exits 1 with one line naming the variable (node --import tsx src/main.ts)', async () => {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('PAYGATE_') && !k.startsWith('DELIVERY_')) env[k] = v;
  }
  env.PORT = 'abc';
  env.DATA_DIR = '/nonexistent-config-test';
  env.MASTER_KEY = MASTER_KEY;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 1);
  assert.equal(stderr, 'configuration error: PORT must be an integer, got "abc"\n');
  assert.equal(stdout, '');
});

test('HTTP_* limits: defaults, validation naming the variable', () => {
  assert.deepEqual(loadConfig(BASE).http, {
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    keepAliveTimeoutMs: 72_000,
    idleTimeoutMs: 120_000,
    connectionsCheckIntervalMs: 1000,
    maxConnections: 10_000,
  });
  assert.throws(
    () => loadConfig({ ...BASE, HTTP_REQUEST_TIMEOUT_MS: '30s' }),
    configError('HTTP_REQUEST_TIMEOUT_MS must be an integer, got "30s"'),
  );
  assert.throws(
    () => loadConfig({ ...BASE, HTTP_MAX_CONNECTIONS: '0' }),
    configError('HTTP_MAX_CONNECTIONS must be between 1 and 1000000'),
  );
  assert.throws(
    () =>
      loadConfig({ ...BASE, HTTP_HEADERS_TIMEOUT_MS: '20000', HTTP_REQUEST_TIMEOUT_MS: '10000' }),
    configError('HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS'),
  );
  assert.throws(
    () => loadConfig({ ...BASE, HTTP_IDLE_TIMEOUT_MS: '30000', PROVIDER_TIMEOUT_MS: '15000' }),
    configError('HTTP_IDLE_TIMEOUT_MS must be more than twice PROVIDER_TIMEOUT_MS'),
  );
  // Unset, the idle timeout follows a long provider timeout.
  assert.equal(loadConfig({ ...BASE, PROVIDER_TIMEOUT_MS: '60000' }).http.idleTimeoutMs, 240_000);
});

test('WEBHOOK_* limits: defaults per provider, validation naming the variable', () => {
  assert.deepEqual(loadConfig(BASE).webhooks, {
    bodyLimitBytes: { idr_psp: 65_536, card_psp: 262_144, wallet_psp: 131_072 },
    rejectedBodyBytes: 4096,
    unverifiedPerMinute: 60,
    unverifiedBurst: 20,
    rejectedRetentionDays: 7,
  });
  assert.throws(
    () => loadConfig({ ...BASE, WEBHOOK_BODY_LIMIT_CARD_PSP: String(2 * 1024 * 1024) }),
    configError('WEBHOOK_BODY_LIMIT_CARD_PSP must be between 1024 and 1048576'),
  );
  assert.throws(
    () => loadConfig({ ...BASE, WEBHOOK_REJECTED_RETENTION_DAYS: '0' }),
    configError('WEBHOOK_REJECTED_RETENTION_DAYS must be between 1 and 3650'),
  );
  assert.equal(
    loadConfig({ ...BASE, WEBHOOK_UNVERIFIED_PER_MINUTE: '5' }).webhooks.unverifiedPerMinute,
    5,
  );
});

test('TRUST_PROXY: off by default; a hop count or proxy addresses; never "true"', () => {
  assert.equal(loadConfig(BASE).trustProxy, false);
  assert.equal(loadConfig({ ...BASE, TRUST_PROXY: 'off' }).trustProxy, false);
  assert.equal(loadConfig({ ...BASE, TRUST_PROXY: '1' }).trustProxy, 1);
  assert.equal(
    loadConfig({ ...BASE, TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1' }).trustProxy,
    '10.0.0.0/8,127.0.0.1,::1',
  );
  for (const bad of ['true', '10.0.0.0/33', 'proxy.internal']) {
    assert.throws(
      () => loadConfig({ ...BASE, TRUST_PROXY: bad }),
      configError(
        `TRUST_PROXY must be off, a hop count, or proxy addresses/CIDRs separated by commas, got "${bad}"`,
      ),
      bad,
    );
  }
  assert.throws(
    () => loadConfig({ ...BASE, TRUST_PROXY: '11' }),
    configError('TRUST_PROXY hop count must be between 0 and 10'),
  );
});

test('SIMULATORS=on with PAYGATE_ENV=production is refused', () => {
  assert.throws(
    () =>
      loadConfig({
        ...BASE,
        PAYGATE_ENV: 'production',
        ADMIN_TOKEN: 'a-long-enough-admin-token',
        SIMULATORS: 'on',
      }),
    configError('SIMULATORS cannot be on when PAYGATE_ENV=production'),
  );
});

test('SIMULATORS_URL: test mode at simulators of their own process, the mounted ones off', () => {
  const plain = loadConfig(BASE);
  assert.equal(plain.simulatorsUrl, undefined);
  assert.equal(plain.simulators, true);
  const c = loadConfig({ ...BASE, SIMULATORS_URL: 'http://127.0.0.1:8090/' });
  assert.equal(c.simulatorsUrl, 'http://127.0.0.1:8090');
  assert.equal(c.simulators, false);
  assert.equal(
    loadConfig({ ...BASE, SIMULATORS_URL: 'http://sims:8090', SIMULATORS: 'off' }).simulators,
    false,
  );
  assert.throws(
    () => loadConfig({ ...BASE, SIMULATORS_URL: 'http://sims:8090', SIMULATORS: 'on' }),
    configError(
      'SIMULATORS must be off when SIMULATORS_URL is set (test mode then uses the simulators at SIMULATORS_URL)',
    ),
  );
  assert.throws(
    () => loadConfig({ ...BASE, SIMULATORS_URL: 'sims:8090' }),
    configError('SIMULATORS_URL must be an http(s) URL'),
  );
  assert.throws(
    () =>
      loadConfig({
        ...BASE,
        PAYGATE_ENV: 'production',
        ADMIN_TOKEN: 'a-long-enough-admin-token',
        SIMULATORS_URL: 'http://sims:8090',
      }),
    configError('SIMULATORS_URL cannot be set when PAYGATE_ENV=production'),
  );
});

test('the simulators process: its settings, validated naming the variable', () => {
  const env = {
    MASTER_KEY,
    DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
    GATEWAY_URL: 'http://127.0.0.1:8080/',
  };
  const c = loadSimulatorsConfig(env);
  assert.equal(c.port, 8090);
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.gatewayUrl, 'http://127.0.0.1:8080');
  assert.equal(c.selfUrl, undefined);
  assert.equal(c.publicBaseUrl, undefined);
  assert.equal(c.providerTimeoutMs, 15_000);
  assert.deepEqual(c.masterKey, Buffer.from(MASTER_KEY, 'hex'));
  assert.equal(loadSimulatorsConfig({ ...env, PORT: '9001' }).port, 9001);
  assert.equal(loadSimulatorsConfig({ ...env, PORT: '9001', SIMULATORS_PORT: '9002' }).port, 9002);
  assert.throws(
    () => loadSimulatorsConfig({ ...env, SIMULATORS_PORT: 'x' }),
    configError('SIMULATORS_PORT must be an integer, got "x"'),
  );
  assert.throws(
    () => loadSimulatorsConfig({ ...env, GATEWAY_URL: '' }),
    configError("GATEWAY_URL is required: the gateway's base URL, where webhooks go"),
  );
  assert.throws(
    () => loadSimulatorsConfig({ ...env, DATABASE_URL: '' }),
    configError(
      "DATABASE_URL must be a postgres:// URL (the gateway's database, or one for the simulators)",
    ),
  );
  assert.throws(
    () => loadSimulatorsConfig({ ...env, PAYGATE_ENV: 'production' }),
    configError('the simulators cannot run when PAYGATE_ENV=production'),
  );
  // The gateway's kept master key is read, never generated: the credentials must match.
  const dir = mkdtempSync(path.join(tmpdir(), 'paygate-config-sims-'));
  try {
    const noKey = { ...env, MASTER_KEY: '', DATA_DIR: dir };
    assert.throws(
      () => loadSimulatorsConfig(noKey),
      configError(
        `MASTER_KEY is required (the gateway's), or DATA_DIR holding the gateway's master.key (${path.join(dir, 'master.key')} does not exist)`,
      ),
    );
    assert.equal(existsSync(path.join(dir, 'master.key')), false);
    const gatewayKey = loadConfig({ DATA_DIR: dir }).masterKey;
    assert.deepEqual(loadSimulatorsConfig(noKey).masterKey, gatewayKey);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
