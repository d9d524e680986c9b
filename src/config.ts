import { createHmac, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import {
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { DatabaseUrlError, parseDatabaseUrl } from './db/connection.js';
import { MODES, PROVIDERS, type Mode, type ProviderSlug } from './domain/types.js';

/** Credentials and endpoint of one provider in one mode. Keys are provider-specific. */
export interface ProviderEndpointConfig {
  baseUrl: string;
  credentials: Record<string, string>;
  /** The secret (or verification material) the provider's inbound webhooks are checked with. */
  webhookSecret: string;
}

export type ProviderEndpoints = Record<ProviderSlug, Partial<Record<Mode, ProviderEndpointConfig>>>;

export interface DeliveryConfig {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  timeoutMs: number;
}

/** Webhook endpoints (docs/api.md#webhook-endpoints). */
export interface EndpointsConfig {
  /** Deliveries in flight per endpoint across all instances (a slow receiver's share). */
  concurrency: number;
  /** An endpoint whose every attempt failed for this many days is disabled. */
  disableAfterDays: number;
}

/** Bounds of the HTTP server against slow, silent or numerous clients. */
export interface HttpLimitsConfig {
  /** Time to receive a request's headers; also closes a connection that never sends a byte. */
  headersTimeoutMs: number;
  /** Time to receive a whole request (headers and body); not the time to answer it. */
  requestTimeoutMs: number;
  /** An open keep-alive connection with no request in flight is closed after this. */
  keepAliveTimeoutMs: number;
  /** A socket with no traffic in either direction for this long is destroyed. */
  idleTimeoutMs: number;
  /** How often the header and request timeouts are checked (their granularity). */
  connectionsCheckIntervalMs: number;
  /** Open connections per process; more are refused at accept. */
  maxConnections: number;
}

/** Bounds on what unauthenticated callers of /webhooks/<provider> can make the gateway store. */
export interface WebhookLimitsConfig {
  /** Largest body accepted per provider, in bytes (413 body too large beyond it). */
  bodyLimitBytes: Record<ProviderSlug, number>;
  /** Bytes of a rejected (bad signature) body kept in the archive, with its size and hash. */
  rejectedBodyBytes: number;
  /** Bad-signature webhooks a source address may send per minute (token refill rate). */
  unverifiedPerMinute: number;
  /** Bad-signature webhooks a source address may send at once (bucket size). */
  unverifiedBurst: number;
  /** Archived bad-signature rows are deleted after this many days. */
  rejectedRetentionDays: number;
}

/** Failed admin authentications per source address (docs/operations.md#hostile-clients). */
export interface AdminAuthLimitsConfig {
  /** Failures a source address may make at once (bucket size). */
  failuresBurst: number;
  /** Failures a source address may make per minute after that (token refill rate). */
  failuresPerMinute: number;
}

/** Dashboard sign-in with OpenID Connect and its sessions (docs/operations.md#single-sign-on). */
export interface OperatorAuthConfig {
  /** Unset: no single sign-on (ADMIN_TOKEN and personal tokens only). */
  oidc: { issuer: string; clientId: string; clientSecret: string } | undefined;
  /** A session unused for this long ends. */
  sessionIdleMinutes: number;
  /** A session ends this long after sign-in, used or not. */
  sessionMaxHours: number;
}

/** How the gateway reaches PostgreSQL beyond DATABASE_URL (docs/operations.md#high-availability). */
export interface DatabaseConfig {
  /** `transaction`: DATABASE_URL is PgBouncer in transaction pooling mode. */
  poolMode: 'session' | 'transaction';
  /** A connection straight to PostgreSQL for LISTEN and migrations (required in transaction mode). */
  directUrl: string | undefined;
}

/** How long the append-only history is kept (docs/operations.md#retention). */
export interface RetentionConfig {
  /** Archived inbound webhooks (any outcome) are deleted after this many days. */
  inboundDays: number;
  /** Attempts of finished (delivered or dead) deliveries are deleted after this many days. */
  deliveryAttemptsDays: number;
  /** The simulators' objects neither created nor changed for this many days are deleted. */
  simObjectsDays: number;
}

/** Reconciliation against the providers' records (docs/operations.md#reconciliation). */
export interface ReconciliationConfig {
  /** The daily job reconciles the previous UTC day of every provider with a report API. */
  daily: boolean;
  /** The hour (UTC) from which the daily job reconciles the previous day. */
  dailyHourUtc: number;
  /** Both sides are read this many hours beyond each end of the day, to pair late movements. */
  slackHours: number;
  /** Largest settlement report file accepted, in bytes. */
  importMaxBytes: number;
}

/** Fastify's trustProxy: false (the socket address), a hop count, or trusted proxy addresses. */
export type TrustProxy = false | number | string;

export interface Config {
  env: 'development' | 'production';
  port: number;
  host: string;
  databaseUrl: string | undefined;
  database: DatabaseConfig;
  dataDir: string;
  embeddedPgPort: number;
  adminToken: string;
  /** True when no ADMIN_TOKEN was set and the token is the one kept in adminTokenFile. */
  adminTokenGenerated: boolean;
  adminTokenFile: string | undefined;
  masterKey: Buffer;
  /** Base of URLs a browser follows (checkout pages). Undefined: http://localhost:<bound port>. */
  publicBaseUrl: string | undefined;
  /** The simulators mounted in this process under /sim. */
  simulators: boolean;
  /**
   * Base URL of simulators run as their own process (`npm run simulators`): test mode talks to
   * them there instead of to mounted ones. Undefined: test mode uses the mounted simulators.
   */
  simulatorsUrl: string | undefined;
  idrPspDirectQr: boolean;
  allowPrivateWebhookTargets: boolean;
  delivery: DeliveryConfig;
  endpoints: EndpointsConfig;
  /** Timeout of one call to a provider; a timeout is an indeterminate outcome. */
  providerTimeoutMs: number;
  /** sandbox/live endpoints from the environment; test mode endpoints are derived at run time. */
  providerEndpoints: ProviderEndpoints;
  logLevel: string;
  /** Processes serving one port through the cluster module (WORKERS); 1 = no cluster. */
  workers: number;
  http: HttpLimitsConfig;
  webhooks: WebhookLimitsConfig;
  adminAuth: AdminAuthLimitsConfig;
  operatorAuth: OperatorAuthConfig;
  retention: RetentionConfig;
  reconciliation: ReconciliationConfig;
  trustProxy: TrustProxy;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function intVar(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}`);
  return n;
}

function boolVar(env: Env, name: string, def: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '') return def;
  if (['true', 'on', '1', 'yes'].includes(raw)) return true;
  if (['false', 'off', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true/false (or on/off), got "${env[name]}"`);
}

function urlVar(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an http(s) URL`);
  }
  return raw.replace(/\/+$/, '');
}

/** DATA_DIR, created if missing; a file there or no permission is a configuration error. */
function ensureDataDir(dataDir: string): void {
  if (existsSync(dataDir) && !statSync(dataDir).isDirectory()) {
    throw new ConfigError(`DATA_DIR ${dataDir} is a file, not a folder: set DATA_DIR to a folder`);
  }
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new ConfigError(
      `DATA_DIR ${dataDir} cannot be created (${code}): set DATA_DIR to a folder this user can write`,
    );
  }
}

/**
 * A secret generated once and kept in DATA_DIR (mode 600). Written under a temporary name
 * and linked into place, so that two processes starting at once agree on one value and
 * neither reads a half-written file.
 */
function keptSecret(file: string, generate: () => string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, generate() + '\n', { mode: 0o600 });
  try {
    linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
  return readFileSync(file, 'utf8').trim();
}

function dataDirSecret(dataDir: string, name: string, generate: () => string): string {
  ensureDataDir(dataDir);
  const file = path.join(dataDir, name);
  try {
    return keptSecret(file, generate);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new ConfigError(
      `cannot keep ${file} (${code}): set DATA_DIR to a folder this user can write`,
    );
  }
}

function parseMasterKey(raw: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) {
    throw new ConfigError('MASTER_KEY must be 32 bytes, as 64 hex characters or base64');
  }
  return key;
}

/**
 * The master key encrypts app secrets at rest. Without MASTER_KEY a development install keeps
 * a generated key in DATA_DIR so that secrets survive restarts; production must set it.
 */
function loadMasterKey(env: Env, isProd: boolean, dataDir: string): Buffer {
  const raw = env.MASTER_KEY;
  if (raw) return parseMasterKey(raw);
  if (isProd) throw new ConfigError('MASTER_KEY is required when PAYGATE_ENV=production');
  const hex = dataDirSecret(dataDir, 'master.key', () => randomBytes(32).toString('hex'));
  const key = Buffer.from(hex, 'hex');
  if (key.length !== 32) {
    throw new ConfigError(
      `${path.join(dataDir, 'master.key')} is damaged: restore it from a backup, or set MASTER_KEY`,
    );
  }
  return key;
}

/**
 * The operator's bearer token. Without ADMIN_TOKEN a development install keeps a generated
 * token in DATA_DIR/admin-token, like the master key, so that the dashboard stays signed in
 * across restarts; production must set it.
 */
function checkAdminTokenVar(env: Env, isProd: boolean): string | undefined {
  const raw = env.ADMIN_TOKEN || undefined;
  if (raw === undefined && isProd) {
    throw new ConfigError('ADMIN_TOKEN is required when PAYGATE_ENV=production');
  }
  if (raw !== undefined && raw.length < 16) {
    throw new ConfigError('ADMIN_TOKEN must be at least 16 characters');
  }
  return raw;
}

function keptAdminToken(dataDir: string): { token: string; file: string } {
  const file = path.join(dataDir, 'admin-token');
  const token = dataDirSecret(
    dataDir,
    'admin-token',
    () => 'adm_' + randomBytes(24).toString('hex'),
  );
  if (token.length < 16) {
    throw new ConfigError(`${file} is damaged: delete it to have a new token generated`);
  }
  return { token, file };
}

/** Provider endpoints for sandbox and live come from <PROVIDER>_<MODE>_* variables. */
const PROVIDER_VARS: Record<ProviderSlug, { credentials: string[]; webhookSecret: string }> = {
  idr_psp: { credentials: ['SERVER_KEY'], webhookSecret: 'SERVER_KEY' },
  card_psp: { credentials: ['ACCESS_TOKEN'], webhookSecret: 'WEBHOOK_SECRET' },
  wallet_psp: { credentials: ['CLIENT_ID', 'CLIENT_SECRET'], webhookSecret: 'WEBHOOK_ID' },
};

function loadProviderEndpoints(env: Env): ProviderEndpoints {
  const out: ProviderEndpoints = { idr_psp: {}, card_psp: {}, wallet_psp: {} };
  for (const provider of PROVIDERS) {
    for (const mode of ['sandbox', 'live'] as const) {
      const prefix = `${provider.toUpperCase()}_${mode.toUpperCase()}_`;
      const baseUrl = urlVar(env, `${prefix}BASE_URL`);
      if (!baseUrl) continue;
      const spec = PROVIDER_VARS[provider];
      const credentials: Record<string, string> = {};
      for (const name of new Set([...spec.credentials, spec.webhookSecret])) {
        const value = env[prefix + name];
        if (!value)
          throw new ConfigError(`${prefix}${name} is required when ${prefix}BASE_URL is set`);
        credentials[camel(name)] = value;
      }
      out[provider][mode] = {
        baseUrl,
        credentials,
        webhookSecret: credentials[camel(spec.webhookSecret)] ?? '',
      };
    }
  }
  return out;
}

/** Publicly documented maxima do not exist; these sit well above the largest real bodies. */
const WEBHOOK_BODY_LIMIT_DEFAULTS: Record<ProviderSlug, number> = {
  idr_psp: 64 * 1024,
  card_psp: 256 * 1024,
  wallet_psp: 128 * 1024,
};

function loadHttpLimits(env: Env, providerTimeoutMs: number): HttpLimitsConfig {
  const http: HttpLimitsConfig = {
    headersTimeoutMs: intVar(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    requestTimeoutMs: intVar(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
    keepAliveTimeoutMs: intVar(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 72_000, 100, 3_600_000),
    idleTimeoutMs: intVar(
      env,
      'HTTP_IDLE_TIMEOUT_MS',
      Math.max(120_000, 4 * providerTimeoutMs),
      1000,
      3_600_000,
    ),
    connectionsCheckIntervalMs: intVar(env, 'HTTP_CONNECTIONS_CHECK_INTERVAL_MS', 1000, 10, 60_000),
    maxConnections: intVar(env, 'HTTP_MAX_CONNECTIONS', 10_000, 1, 1_000_000),
  };
  // Node refuses a headers timeout above the request timeout.
  if (http.headersTimeoutMs > http.requestTimeoutMs) {
    throw new ConfigError('HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS');
  }
  // A silent socket is one waiting on us too: an admin cancel can wait on two provider calls.
  if (http.idleTimeoutMs <= 2 * providerTimeoutMs) {
    throw new ConfigError('HTTP_IDLE_TIMEOUT_MS must be more than twice PROVIDER_TIMEOUT_MS');
  }
  return http;
}

function loadWebhookLimits(env: Env): WebhookLimitsConfig {
  const bodyLimitBytes = {} as Record<ProviderSlug, number>;
  for (const p of PROVIDERS) {
    bodyLimitBytes[p] = intVar(
      env,
      `WEBHOOK_BODY_LIMIT_${p.toUpperCase()}`,
      WEBHOOK_BODY_LIMIT_DEFAULTS[p],
      1024,
      1024 * 1024,
    );
  }
  return {
    bodyLimitBytes,
    rejectedBodyBytes: intVar(env, 'WEBHOOK_REJECTED_BODY_BYTES', 4096, 0, 1024 * 1024),
    unverifiedPerMinute: intVar(env, 'WEBHOOK_UNVERIFIED_PER_MINUTE', 60, 1, 1_000_000),
    unverifiedBurst: intVar(env, 'WEBHOOK_UNVERIFIED_BURST', 20, 1, 1_000_000),
    rejectedRetentionDays: intVar(env, 'WEBHOOK_REJECTED_RETENTION_DAYS', 7, 1, 3650),
  };
}

/**
 * Off by default: the rate limit keys on the socket address. Behind a proxy, a hop count or
 * the proxies' addresses make X-Forwarded-For the source; "true" (trust any sender) is
 * refused, since then every client could pick its own address.
 */
function trustProxyVar(env: Env): TrustProxy {
  const raw = (env.TRUST_PROXY ?? '').trim();
  if (raw === '' || ['false', 'off', 'no', '0'].includes(raw.toLowerCase())) return false;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops > 10) throw new ConfigError('TRUST_PROXY hop count must be between 0 and 10');
    return hops;
  }
  const entries = raw.split(',').map((e) => e.trim());
  for (const e of entries) {
    const [addr, bits, extra] = e.split('/');
    const family = isIP(addr ?? '');
    const maxBits = family === 6 ? 128 : 32;
    const bitsOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= maxBits);
    if (family === 0 || !bitsOk || extra !== undefined) {
      throw new ConfigError(
        `TRUST_PROXY must be off, a hop count, or proxy addresses/CIDRs separated by commas, got "${e}"`,
      );
    }
  }
  return entries.join(',');
}

/** A postgres:// URL with one or more hosts (db/connection.ts); the error never shows it. */
function checkDatabaseUrl(name: string, url: string): void {
  try {
    parseDatabaseUrl(url);
  } catch (err) {
    if (err instanceof DatabaseUrlError) throw new ConfigError(`${name} ${err.message}`);
    throw err;
  }
}

function loadDatabaseConfig(env: Env, databaseUrl: string | undefined): DatabaseConfig {
  if (databaseUrl) checkDatabaseUrl('DATABASE_URL', databaseUrl);
  const poolMode = (env.DATABASE_POOL_MODE || 'session').toLowerCase();
  if (poolMode !== 'session' && poolMode !== 'transaction') {
    throw new ConfigError(
      `DATABASE_POOL_MODE must be session or transaction, got "${env.DATABASE_POOL_MODE}"`,
    );
  }
  const directUrl = env.DATABASE_DIRECT_URL || undefined;
  if (directUrl) checkDatabaseUrl('DATABASE_DIRECT_URL', directUrl);
  if (poolMode === 'transaction') {
    if (!databaseUrl) {
      throw new ConfigError('DATABASE_POOL_MODE=transaction needs DATABASE_URL (the PgBouncer)');
    }
    if (!directUrl) {
      throw new ConfigError(
        'DATABASE_DIRECT_URL is required when DATABASE_POOL_MODE=transaction: LISTEN and migrations need a connection to PostgreSQL itself',
      );
    }
  }
  return { poolMode, directUrl };
}

/** The three OIDC_* variables together or none; an http issuer only on loopback (tests, development). */
function loadOperatorAuth(env: Env): OperatorAuthConfig {
  const issuer = urlVar(env, 'OIDC_ISSUER');
  const clientId = env.OIDC_CLIENT_ID || undefined;
  const clientSecret = env.OIDC_CLIENT_SECRET || undefined;
  const given = [issuer, clientId, clientSecret].filter((v) => v !== undefined).length;
  if (given !== 0 && given !== 3) {
    throw new ConfigError(
      'OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET go together: set all three or none',
    );
  }
  if (issuer && new URL(issuer).protocol === 'http:' && !isLoopbackHost(new URL(issuer).hostname)) {
    throw new ConfigError('OIDC_ISSUER must be an https URL (http only on loopback)');
  }
  return {
    oidc: issuer && clientId && clientSecret ? { issuer, clientId, clientSecret } : undefined,
    sessionIdleMinutes: intVar(env, 'SESSION_IDLE_MINUTES', 30, 1, 1440),
    sessionMaxHours: intVar(env, 'SESSION_MAX_HOURS', 12, 1, 720),
  };
}

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function camel(name: string): string {
  return name.toLowerCase().replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

export function loadConfig(env: Env = process.env): Config {
  const rawEnv = env.PAYGATE_ENV ?? 'development';
  if (rawEnv !== 'development' && rawEnv !== 'production') {
    throw new ConfigError('PAYGATE_ENV must be development or production');
  }
  const isProd = rawEnv === 'production';
  const dataDir = path.resolve(env.DATA_DIR || './data');
  const databaseUrl = env.DATABASE_URL || undefined;
  const database = loadDatabaseConfig(env, databaseUrl);
  const adminTokenVar = checkAdminTokenVar(env, isProd);
  if (isProd && !env.MASTER_KEY) {
    throw new ConfigError('MASTER_KEY is required when PAYGATE_ENV=production');
  }
  const maxAttempts = intVar(env, 'DELIVERY_MAX_ATTEMPTS', 16, 1, 100);
  const simulatorsUrl = urlVar(env, 'SIMULATORS_URL');
  const simulators = boolVar(env, 'SIMULATORS', !isProd && !simulatorsUrl);
  // The simulators' controls take no authentication (they stand in for a provider's pages).
  if (isProd && simulators) {
    throw new ConfigError('SIMULATORS cannot be on when PAYGATE_ENV=production');
  }
  if (isProd && simulatorsUrl) {
    throw new ConfigError('SIMULATORS_URL cannot be set when PAYGATE_ENV=production');
  }
  // One place answers test mode: two would each hold half of the simulated providers' state.
  if (simulatorsUrl && simulators) {
    throw new ConfigError(
      'SIMULATORS must be off when SIMULATORS_URL is set (test mode then uses the simulators at SIMULATORS_URL)',
    );
  }
  const providerTimeoutMs = intVar(env, 'PROVIDER_TIMEOUT_MS', 15_000, 100, 120_000);
  const settings: Omit<
    Config,
    'masterKey' | 'adminToken' | 'adminTokenGenerated' | 'adminTokenFile'
  > = {
    env: rawEnv,
    port: intVar(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '0.0.0.0',
    databaseUrl,
    database,
    dataDir,
    embeddedPgPort: intVar(env, 'EMBEDDED_PG_PORT', 54329, 1024, 65535),
    publicBaseUrl: urlVar(env, 'PUBLIC_BASE_URL'),
    simulators,
    simulatorsUrl,
    idrPspDirectQr: boolVar(env, 'IDR_PSP_DIRECT_QR', false),
    allowPrivateWebhookTargets: boolVar(env, 'ALLOW_PRIVATE_WEBHOOK_TARGETS', false),
    delivery: {
      maxAttempts,
      baseDelayMs: intVar(env, 'DELIVERY_BASE_DELAY_MS', 5000, 1, 86_400_000),
      maxDelayMs: intVar(env, 'DELIVERY_MAX_DELAY_MS', 3_600_000, 1, 86_400_000),
      timeoutMs: intVar(env, 'DELIVERY_TIMEOUT_MS', 10_000, 1, 600_000),
    },
    endpoints: {
      concurrency: intVar(env, 'DELIVERY_ENDPOINT_CONCURRENCY', 8, 1, 1000),
      disableAfterDays: intVar(env, 'ENDPOINT_DISABLE_AFTER_DAYS', 5, 1, 365),
    },
    providerTimeoutMs,
    providerEndpoints: loadProviderEndpoints(env),
    logLevel: env.LOG_LEVEL || 'info',
    workers: intVar(env, 'WORKERS', 1, 1, 64),
    http: loadHttpLimits(env, providerTimeoutMs),
    webhooks: loadWebhookLimits(env),
    adminAuth: {
      failuresBurst: intVar(env, 'ADMIN_AUTH_FAILURES_BURST', 10, 1, 1_000_000),
      failuresPerMinute: intVar(env, 'ADMIN_AUTH_FAILURES_PER_MINUTE', 10, 1, 1_000_000),
    },
    operatorAuth: loadOperatorAuth(env),
    retention: {
      inboundDays: intVar(env, 'INBOUND_RETENTION_DAYS', 400, 1, 36500),
      deliveryAttemptsDays: intVar(env, 'DELIVERY_ATTEMPTS_RETENTION_DAYS', 400, 1, 36500),
      simObjectsDays: intVar(env, 'SIM_OBJECTS_RETENTION_DAYS', 30, 1, 36500),
    },
    reconciliation: {
      daily: boolVar(env, 'RECONCILIATION_DAILY', true),
      dailyHourUtc: intVar(env, 'RECONCILIATION_DAILY_HOUR_UTC', 3, 0, 23),
      slackHours: intVar(env, 'RECONCILIATION_SLACK_HOURS', 24, 0, 72),
      importMaxBytes: intVar(
        env,
        'RECONCILIATION_IMPORT_MAX_BYTES',
        64 * 1024 * 1024,
        1024,
        1024 ** 3,
      ),
    },
    trustProxy: trustProxyVar(env),
  };
  // Secrets kept in DATA_DIR last: a configuration with an error writes nothing.
  const masterKey = loadMasterKey(env, isProd, dataDir);
  const admin = adminTokenVar ? { token: adminTokenVar, file: undefined } : keptAdminToken(dataDir);
  return {
    ...settings,
    masterKey,
    adminToken: admin.token,
    adminTokenGenerated: admin.file !== undefined,
    adminTokenFile: admin.file,
  };
}

/** The simulators run as their own process (`npm run simulators`, src/simulators/main.ts). */
export interface SimulatorsConfig {
  port: number;
  host: string;
  /** Where sim_objects lives: the gateway's database, or one of the simulators' own. */
  databaseUrl: string;
  /** The gateway's master key: the test-mode credentials both sides use derive from it. */
  masterKey: Buffer;
  /** The gateway the simulators send webhooks to (its /webhooks/<provider>). */
  gatewayUrl: string;
  /**
   * Where the gateway reaches the simulators: its SIMULATORS_URL, the providers' base URL
   * (wallet_psp's certificate URL must share its origin). Undefined: http://127.0.0.1:<port>.
   */
  selfUrl: string | undefined;
  /** Base of URLs a browser follows to the simulators' pages. Undefined: http://localhost:<port>. */
  publicBaseUrl: string | undefined;
  /** The gateway's PROVIDER_TIMEOUT_MS: a lost answer is held past it. */
  providerTimeoutMs: number;
  /** Their objects neither created nor changed for this many days are deleted. */
  simObjectsRetentionDays: number;
  logLevel: string;
}

export function loadSimulatorsConfig(env: Env = process.env): SimulatorsConfig {
  if ((env.PAYGATE_ENV ?? 'development') === 'production') {
    throw new ConfigError('the simulators cannot run when PAYGATE_ENV=production');
  }
  const databaseUrl = env.DATABASE_URL || undefined;
  if (!databaseUrl || !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError(
      "DATABASE_URL must be a postgres:// URL (the gateway's database, or one for the simulators)",
    );
  }
  const gatewayUrl = urlVar(env, 'GATEWAY_URL');
  if (!gatewayUrl) {
    throw new ConfigError("GATEWAY_URL is required: the gateway's base URL, where webhooks go");
  }
  const port = env.SIMULATORS_PORT ? 'SIMULATORS_PORT' : 'PORT';
  const settings = {
    port: intVar(env, port, 8090, 0, 65535),
    host: env.HOST || '127.0.0.1',
    databaseUrl,
    gatewayUrl,
    selfUrl: urlVar(env, 'SIMULATORS_URL'),
    publicBaseUrl: urlVar(env, 'SIMULATORS_PUBLIC_URL'),
    providerTimeoutMs: intVar(env, 'PROVIDER_TIMEOUT_MS', 15_000, 100, 120_000),
    simObjectsRetentionDays: intVar(env, 'SIM_OBJECTS_RETENTION_DAYS', 30, 1, 36500),
    logLevel: env.LOG_LEVEL || 'info',
  };
  // Never generated here: a key of our own would give credentials the gateway does not know.
  const dataDir = path.resolve(env.DATA_DIR || './data');
  const keyFile = path.join(dataDir, 'master.key');
  let masterKey: Buffer;
  if (env.MASTER_KEY) {
    masterKey = parseMasterKey(env.MASTER_KEY);
  } else if (existsSync(keyFile)) {
    masterKey = Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'hex');
    if (masterKey.length !== 32) throw new ConfigError(`${keyFile} is damaged: set MASTER_KEY`);
  } else {
    throw new ConfigError(
      `MASTER_KEY is required (the gateway's), or DATA_DIR holding the gateway's master.key (${keyFile} does not exist)`,
    );
  }
  return { ...settings, masterKey };
}

/**
 * Test-mode credentials of the built-in simulators, derived from the master key so that every
 * instance sharing a master key (and a simulator run as its own process) agrees on them.
 */
export function simulatorSecret(masterKey: Buffer, label: string): string {
  return createHmac('sha256', masterKey).update(`simulator:${label}`).digest('hex');
}

/** One row of a configuration table in docs/operations.md (`npm run docs:config` writes them). */
export interface SettingDoc {
  /** As the table shows it: `NAME` in backticks, or a pattern with words. */
  variable: string;
  default: string;
  meaning: string;
}

/**
 * The gateway's variables as docs/operations.md#configuration shows them, kept beside the code
 * that reads them: test/unit/config.docs.test.ts fails when a variable loadConfig reads is
 * missing here, when a single-value default here is not the code's, or when the doc's table
 * is not this one.
 */
export const GATEWAY_SETTINGS: readonly SettingDoc[] = [
  {
    variable: '`PAYGATE_ENV`',
    default: '`development`',
    meaning:
      '`production` requires `ADMIN_TOKEN` and `MASTER_KEY` and turns simulators off by default',
  },
  {
    variable: '`PORT`',
    default: '`8080`',
    meaning: 'HTTP port (`0`: any free port)',
  },
  {
    variable: '`HOST`',
    default: '`0.0.0.0`',
    meaning: 'listen address',
  },
  {
    variable: '`DATABASE_URL`',
    default: 'unset',
    meaning:
      'PostgreSQL server; several hosts (`postgres://u:p@db1:5432,db2:5432/paygate`) make the gateway find the primary, see [High availability](#high-availability). Unset: an embedded PostgreSQL under `DATA_DIR/pg`',
  },
  {
    variable: '`DATABASE_POOL_MODE`',
    default: '`session`',
    meaning:
      '`transaction` when `DATABASE_URL` is a PgBouncer in transaction pooling mode (see [PgBouncer](#pgbouncer))',
  },
  {
    variable: '`DATABASE_DIRECT_URL`',
    default: 'unset',
    meaning:
      'a connection to PostgreSQL itself, around the pooler, for LISTEN and migrations; required with `DATABASE_POOL_MODE=transaction`',
  },
  {
    variable: '`DATA_DIR`',
    default: '`./data`',
    meaning:
      'embedded database (`DATA_DIR/pg`), its password, and (development only) the generated master key and admin token',
  },
  {
    variable: '`EMBEDDED_PG_PORT`',
    default: '`54329`',
    meaning: 'port of the embedded PostgreSQL (127.0.0.1 only)',
  },
  {
    variable: '`ADMIN_TOKEN`',
    default: 'generated',
    meaning:
      "the operator's bearer token (min. 16 chars). Unset in development: generated once into `DATA_DIR/admin-token`, printed at each start",
  },
  {
    variable: '`MASTER_KEY`',
    default: 'generated',
    meaning:
      '32 bytes (64 hex chars or base64) that encrypt app secrets at rest (AES-256-GCM). Unset in development: generated once into `DATA_DIR/master.key`',
  },
  {
    variable: '`PUBLIC_BASE_URL`',
    default: '`http://localhost:<PORT>`',
    meaning: 'base of URLs a browser follows (simulator checkout pages)',
  },
  {
    variable: '`SIMULATORS`',
    default: '`on` (`off` in production)',
    meaning:
      'the built-in test-mode provider simulators under `/sim/`; `on` with `PAYGATE_ENV=production` is a configuration error',
  },
  {
    variable: '`SIMULATORS_URL`',
    default: 'unset',
    meaning:
      'base URL of the simulators run as their own process (`npm run simulators`, see "Simulators as their own process"): test-mode provider calls go there. `SIMULATORS` is then `off` by default, and `on` is a configuration error; refused in production',
  },
  {
    variable: '`IDR_PSP_DIRECT_QR`',
    default: '`false`',
    meaning: 'register QRIS charges directly and return `qr_string`/`qr_image_url`',
  },
  {
    variable: '`ALLOW_PRIVATE_WEBHOOK_TARGETS`',
    default: '`false`',
    meaning: 'let live-mode apps deliver to loopback/private addresses',
  },
  {
    variable: '`DELIVERY_MAX_ATTEMPTS`',
    default: '`16`',
    meaning: 'outbound webhook attempts before a delivery is dead',
  },
  {
    variable: '`DELIVERY_BASE_DELAY_MS`',
    default: '`5000`',
    meaning: 'delay before the first retry; doubles each retry',
  },
  {
    variable: '`DELIVERY_MAX_DELAY_MS`',
    default: '`3600000`',
    meaning: 'cap of a retry delay',
  },
  {
    variable: '`DELIVERY_TIMEOUT_MS`',
    default: '`10000`',
    meaning: 'timeout of one attempt',
  },
  {
    variable: '`DELIVERY_ENDPOINT_CONCURRENCY`',
    default: '`8`',
    meaning:
      'deliveries in flight per webhook endpoint (the default one included) across all instances, so a slow receiver never takes every worker slot (1..1000)',
  },
  {
    variable: '`ENDPOINT_DISABLE_AFTER_DAYS`',
    default: '`5`',
    meaning:
      'a webhook endpoint whose every attempt failed for this many days is disabled, with an audit entry, an error log line and a metric (1..365)',
  },
  {
    variable: '`PROVIDER_TIMEOUT_MS`',
    default: '`15000`',
    meaning: 'timeout of one provider call (an unknown outcome, resolved later)',
  },
  {
    variable: '`LOG_LEVEL`',
    default: '`info`',
    meaning: 'pino level',
  },
  {
    variable: '`WORKERS`',
    default: '`1`',
    meaning:
      'processes serving the port (node cluster); each is a full instance. With the embedded database the primary process runs it',
  },
  {
    variable: '`HTTP_HEADERS_TIMEOUT_MS`',
    default: '`10000`',
    meaning:
      "time to receive a request's headers; a connection that sends nothing is answered 408 `request timeout` and closed after it too, counted from the connect, within one `HTTP_CONNECTIONS_CHECK_INTERVAL_MS` (see [Hostile clients](#hostile-clients)). At most `HTTP_REQUEST_TIMEOUT_MS`",
  },
  {
    variable: '`HTTP_REQUEST_TIMEOUT_MS`',
    default: '`30000`',
    meaning:
      'time to receive a whole request, headers and body (408 `request timeout`); not the time the gateway takes to answer',
  },
  {
    variable: '`HTTP_KEEP_ALIVE_TIMEOUT_MS`',
    default: '`72000`',
    meaning:
      "an idle keep-alive connection is closed after this; keep it above your load balancer's idle timeout",
  },
  {
    variable: '`HTTP_IDLE_TIMEOUT_MS`',
    default: '`120000` (or 4 × `PROVIDER_TIMEOUT_MS`)',
    meaning:
      'a socket without traffic either way for this long is destroyed (a client that stops reading its answer). Must be more than 2 × `PROVIDER_TIMEOUT_MS`',
  },
  {
    variable: '`HTTP_CONNECTIONS_CHECK_INTERVAL_MS`',
    default: '`1000`',
    meaning: 'how often the header and request timeouts are checked (their precision)',
  },
  {
    variable: '`HTTP_MAX_CONNECTIONS`',
    default: '`10000`',
    meaning:
      'open connections per process; more are closed at accept (counted in `paygate_http_connections_dropped_total`)',
  },
  {
    variable: '`TRUST_PROXY`',
    default: '`off`',
    meaning:
      "whose address a request comes from: `off` (the socket's), a hop count (`1`: one proxy in front), or the proxies' addresses/CIDRs, comma-separated. `true` is refused",
  },
  {
    variable: '`WEBHOOK_BODY_LIMIT_IDR_PSP`',
    default: '`65536`',
    meaning: 'largest idr_psp webhook body in bytes (413 `body too large`; 1024..1048576)',
  },
  {
    variable: '`WEBHOOK_BODY_LIMIT_CARD_PSP`',
    default: '`262144`',
    meaning: 'the same for card_psp',
  },
  {
    variable: '`WEBHOOK_BODY_LIMIT_WALLET_PSP`',
    default: '`131072`',
    meaning: 'the same for wallet_psp',
  },
  {
    variable: '`WEBHOOK_REJECTED_BODY_BYTES`',
    default: '`4096`',
    meaning: 'bytes of a bad-signature body kept in the archive (with its full size and SHA-256)',
  },
  {
    variable: '`WEBHOOK_UNVERIFIED_PER_MINUTE`',
    default: '`60`',
    meaning: 'bad-signature webhooks one source address may send per minute, per instance',
  },
  {
    variable: '`WEBHOOK_UNVERIFIED_BURST`',
    default: '`20`',
    meaning: 'bad-signature webhooks one source address may send at once',
  },
  {
    variable: '`ADMIN_AUTH_FAILURES_BURST`',
    default: '`10`',
    meaning:
      'failed admin authentications one source address may make at once, per instance; then 429 `too many failed authentications`',
  },
  {
    variable: '`ADMIN_AUTH_FAILURES_PER_MINUTE`',
    default: '`10`',
    meaning:
      'failed admin authentications one source address may make per minute after the burst, per instance (one every 6 s)',
  },
  {
    variable: '`OIDC_ISSUER`',
    default: 'unset',
    meaning:
      'the identity provider for dashboard sign-in (its issuer URL; https, http only on loopback); with `OIDC_CLIENT_ID` and `OIDC_CLIENT_SECRET`, all three or none (see [Single sign-on](#single-sign-on))',
  },
  {
    variable: '`OIDC_CLIENT_ID`',
    default: 'unset',
    meaning: "the gateway's client id at the identity provider",
  },
  {
    variable: '`OIDC_CLIENT_SECRET`',
    default: 'unset',
    meaning: "the gateway's client secret at the identity provider",
  },
  {
    variable: '`SESSION_IDLE_MINUTES`',
    default: '`30`',
    meaning: 'a dashboard session unused for this long ends (1..1440)',
  },
  {
    variable: '`SESSION_MAX_HOURS`',
    default: '`12`',
    meaning: 'a dashboard session ends this long after sign-in, used or not (1..720)',
  },
  {
    variable: '`WEBHOOK_REJECTED_RETENTION_DAYS`',
    default: '`7`',
    meaning: 'archived bad-signature rows are deleted after this many days',
  },
  {
    variable: '`INBOUND_RETENTION_DAYS`',
    default: '`400`',
    meaning:
      'archived inbound webhooks of any outcome are deleted after this many days (1..36500; see [Retention](#retention))',
  },
  {
    variable: '`DELIVERY_ATTEMPTS_RETENTION_DAYS`',
    default: '`400`',
    meaning:
      'attempts of delivered or dead deliveries are deleted after this many days (1..36500); a pending delivery keeps all of its attempts',
  },
  {
    variable: '`SIM_OBJECTS_RETENTION_DAYS`',
    default: '`30`',
    meaning:
      "the simulators' objects (test mode) neither created nor changed for this many days are deleted (1..36500; see [Retention](#retention))",
  },
  {
    variable: '`RECONCILIATION_DAILY`',
    default: '`true`',
    meaning:
      'the daily job reconciles the previous UTC day of wallet_psp and card_psp in every configured mode, and of idr_psp where a settlement file of that day was imported (see [Reconciliation](#reconciliation))',
  },
  {
    variable: '`RECONCILIATION_DAILY_HOUR_UTC`',
    default: '`3`',
    meaning:
      'the hour (0..23, UTC) from which the daily job reconciles the previous day; once per day and provider across all instances',
  },
  {
    variable: '`RECONCILIATION_SLACK_HOURS`',
    default: '`24`',
    meaning:
      'both sides of a reconciliation are read this many hours (0..72) beyond each end of the day, so a movement the gateway and the provider put on either side of midnight still pairs',
  },
  {
    variable: '`RECONCILIATION_IMPORT_MAX_BYTES`',
    default: '`67108864`',
    meaning:
      'the largest settlement report file `POST /admin/reconciliation/imports` accepts (1024..1073741824 bytes); larger is 413 `body too large`',
  },
  {
    variable: '`<PROVIDER>_<MODE>_BASE_URL` and credentials',
    default: 'unset',
    meaning: 'sandbox/live endpoints, see `docs/providers.md`',
  },
];

/** The variables of loadSimulatorsConfig, as docs/operations.md "Simulators as their own process" shows them. */
export const SIMULATORS_SETTINGS: readonly SettingDoc[] = [
  {
    variable: '`PAYGATE_ENV`',
    default: '`development`',
    meaning: '`production` is refused: the simulators take no authentication',
  },
  {
    variable: '`DATABASE_URL`',
    default: 'required',
    meaning:
      "where the simulators keep their state (`sim_objects`): the gateway's database, or one of their own",
  },
  {
    variable: '`MASTER_KEY`',
    default: '`DATA_DIR/master.key`',
    meaning:
      "the gateway's master key: the test-mode credentials both sides use derive from it. Never generated here: without either, a configuration error",
  },
  {
    variable: '`DATA_DIR`',
    default: '`./data`',
    meaning: 'where the gateway keeps its generated `master.key` (development)',
  },
  {
    variable: '`GATEWAY_URL`',
    default: 'required',
    meaning: "the gateway's base URL; webhooks go to `GATEWAY_URL/webhooks/<provider>`",
  },
  {
    variable: '`SIMULATORS_PORT`',
    default: '`PORT`, else `8090`',
    meaning: 'HTTP port',
  },
  {
    variable: '`HOST`',
    default: '`127.0.0.1`',
    meaning:
      'listen address (the routes take no authentication: loopback unless you choose otherwise)',
  },
  {
    variable: '`SIMULATORS_URL`',
    default: '`http://127.0.0.1:<port>`',
    meaning:
      "where the gateway reaches them: the same value as the gateway's `SIMULATORS_URL` (wallet_psp's webhook certificate URL must have its origin)",
  },
  {
    variable: '`SIMULATORS_PUBLIC_URL`',
    default: '`http://localhost:<port>`',
    meaning: 'base of the checkout page URLs a browser follows',
  },
  {
    variable: '`PROVIDER_TIMEOUT_MS`',
    default: '`15000`',
    meaning:
      "the gateway's value: a lost answer (`registration_timeout`, `refund_timeout`) is held past it",
  },
  {
    variable: '`SIM_OBJECTS_RETENTION_DAYS`',
    default: '`30`',
    meaning:
      'their objects neither created nor changed for this many days are deleted, at start and every 10 minutes (1..36500; see [Retention](#retention))',
  },
  {
    variable: '`LOG_LEVEL`',
    default: '`info`',
    meaning: 'pino level',
  },
];

export const ALL_MODES = MODES;
