/**
 * The gateway's configuration variables, each declared once: type, default, bounds,
 * description, secret or not. loadConfig (src/config.ts) reads them with these rules, the
 * values' type is derived from them, and docs/operations.md's table is rendered from them
 * (`npm run docs:config`). The order here is the table's and the reading's.
 */
import { isIP } from 'node:net';
import { DatabaseUrlError, parseDatabaseUrl } from '../db/connection.js';
import { checkAdminToken, parseMasterKey } from './secrets.js';
import { boolean, ConfigError, custom, integer, text, url, type Values } from './vars.js';

/** Fastify's trustProxy: false (the socket address), a hop count, or trusted proxy addresses. */
export type TrustProxy = false | number | string;
export type PoolMode = 'session' | 'transaction';

function parseEnvName(raw: string): 'development' | 'production' {
  if (raw !== 'development' && raw !== 'production') {
    throw new ConfigError('PAYGATE_ENV must be development or production');
  }
  return raw;
}

function parsePoolMode(raw: string, name: string): PoolMode {
  const mode = raw.toLowerCase();
  if (mode !== 'session' && mode !== 'transaction') {
    throw new ConfigError(`${name} must be session or transaction, got "${raw}"`);
  }
  return mode;
}

/** A postgres:// URL with one or more hosts (db/connection.ts); the error never shows it. */
function checkDatabaseUrl(raw: string, name: string): void {
  try {
    parseDatabaseUrl(raw);
  } catch (err) {
    if (err instanceof DatabaseUrlError) throw new ConfigError(`${name} ${err.message}`);
    throw err;
  }
}

/**
 * Off by default: the rate limit keys on the socket address. Behind a proxy, a hop count or
 * the proxies' addresses make X-Forwarded-For the source; "true" (trust any sender) is
 * refused, since then every client could pick its own address.
 */
function parseTrustProxy(given: string): TrustProxy {
  const raw = given.trim();
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

export const GATEWAY_VARS = {
  PAYGATE_ENV: custom({
    type: 'choice',
    default: 'development' as 'development' | 'production',
    emptyIsValue: true,
    parse: parseEnvName,
    description:
      '`production` requires `ADMIN_TOKEN` and `MASTER_KEY` and turns simulators off by default',
  }),
  PORT: integer({
    default: 8080,
    min: 0,
    max: 65535,
    description: 'HTTP port (`0`: any free port)',
  }),
  HOST: text({ default: '0.0.0.0', description: 'listen address' }),
  DATABASE_URL: text({
    default: undefined,
    check: checkDatabaseUrl,
    description:
      'PostgreSQL server; several hosts (`postgres://u:p@db1:5432,db2:5432/paygate`) make the gateway find the primary, see [High availability](#high-availability). Unset: an embedded PostgreSQL under `DATA_DIR/pg`',
  }),
  DATABASE_POOL_MODE: custom({
    type: 'choice',
    default: 'session' as PoolMode,
    parse: parsePoolMode,
    description:
      '`transaction` when `DATABASE_URL` is a PgBouncer in transaction pooling mode (see [PgBouncer](#pgbouncer))',
  }),
  DATABASE_DIRECT_URL: text({
    default: undefined,
    check: checkDatabaseUrl,
    description:
      'a connection to PostgreSQL itself, around the pooler, for LISTEN and migrations; required with `DATABASE_POOL_MODE=transaction`',
  }),
  DATA_DIR: text({
    default: './data',
    description:
      'embedded database (`DATA_DIR/pg`), its password, and (development only) the generated master key and admin token',
  }),
  EMBEDDED_PG_PORT: integer({
    default: 54329,
    min: 1024,
    max: 65535,
    description: 'port of the embedded PostgreSQL (127.0.0.1 only)',
  }),
  ADMIN_TOKEN: text({
    default: undefined,
    secret: true,
    check: checkAdminToken,
    shownDefault: 'generated',
    description:
      "the operator's bearer token (min. 16 chars). Unset in development: generated once into `DATA_DIR/admin-token`, printed at each start",
  }),
  MASTER_KEY: custom({
    type: 'key',
    default: undefined as Buffer | undefined,
    secret: true,
    parse: parseMasterKey,
    shownDefault: 'generated',
    description:
      '32 bytes (64 hex chars or base64) that encrypt app secrets at rest (AES-256-GCM). Unset in development: generated once into `DATA_DIR/master.key`',
  }),
  PUBLIC_BASE_URL: url({
    shownDefault: '`http://localhost:<PORT>`',
    description: 'base of URLs a browser follows (simulator checkout pages)',
  }),
  SIMULATORS: boolean({
    default: (read) => read('PAYGATE_ENV') !== 'production' && read('SIMULATORS_URL') === undefined,
    shownDefault: '`on` (`off` in production)',
    description:
      'the built-in test-mode provider simulators under `/sim/`; `on` with `PAYGATE_ENV=production` is a configuration error',
  }),
  SIMULATORS_URL: url({
    description:
      'base URL of the simulators run as their own process (`npm run simulators`, see "Simulators as their own process"): test-mode provider calls go there. `SIMULATORS` is then `off` by default, and `on` is a configuration error; refused in production',
  }),
  IDR_PSP_DIRECT_QR: boolean({
    default: false,
    description: 'register QRIS charges directly and return `qr_string`/`qr_image_url`',
  }),
  ALLOW_PRIVATE_WEBHOOK_TARGETS: boolean({
    default: false,
    description: 'let live-mode apps deliver to loopback/private addresses',
  }),
  DELIVERY_MAX_ATTEMPTS: integer({
    default: 16,
    min: 1,
    max: 100,
    description: 'outbound webhook attempts before a delivery is dead',
  }),
  DELIVERY_BASE_DELAY_MS: integer({
    default: 5000,
    min: 1,
    max: 86_400_000,
    description: 'delay before the first retry; doubles each retry',
  }),
  DELIVERY_MAX_DELAY_MS: integer({
    default: 3_600_000,
    min: 1,
    max: 86_400_000,
    description: 'cap of a retry delay',
  }),
  DELIVERY_TIMEOUT_MS: integer({
    default: 10_000,
    min: 1,
    max: 600_000,
    description: 'timeout of one attempt',
  }),
  DELIVERY_ENDPOINT_CONCURRENCY: integer({
    default: 8,
    min: 1,
    max: 1000,
    description:
      'deliveries in flight per webhook endpoint (the default one included) across all instances, so a slow receiver never takes every worker slot (1..1000)',
  }),
  ENDPOINT_DISABLE_AFTER_DAYS: integer({
    default: 5,
    min: 1,
    max: 365,
    description:
      'a webhook endpoint whose every attempt failed for this many days is disabled, with an audit entry, an error log line and a metric (1..365)',
  }),
  PROVIDER_TIMEOUT_MS: integer({
    default: 15_000,
    min: 100,
    max: 120_000,
    description: 'timeout of one provider call (an unknown outcome, resolved later)',
  }),
  LOG_LEVEL: text({ default: 'info', description: 'pino level' }),
  WORKERS: integer({
    default: 1,
    min: 1,
    max: 64,
    description:
      'processes serving the port (node cluster); each is a full instance. With the embedded database the primary process runs it',
  }),
  HTTP_HEADERS_TIMEOUT_MS: integer({
    default: 10_000,
    min: 100,
    max: 600_000,
    description:
      "time to receive a request's headers; a connection that sends nothing is answered 408 `request timeout` and closed after it too, counted from the connect, within one `HTTP_CONNECTIONS_CHECK_INTERVAL_MS` (see [Hostile clients](#hostile-clients)). At most `HTTP_REQUEST_TIMEOUT_MS`",
  }),
  HTTP_REQUEST_TIMEOUT_MS: integer({
    default: 30_000,
    min: 100,
    max: 3_600_000,
    description:
      'time to receive a whole request, headers and body (408 `request timeout`); not the time the gateway takes to answer',
  }),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: integer({
    default: 72_000,
    min: 100,
    max: 3_600_000,
    description:
      "an idle keep-alive connection is closed after this; keep it above your load balancer's idle timeout",
  }),
  HTTP_IDLE_TIMEOUT_MS: integer({
    default: (read) => Math.max(120_000, 4 * (read('PROVIDER_TIMEOUT_MS') as number)),
    min: 1000,
    max: 3_600_000,
    shownDefault: '`120000` (or 4 × `PROVIDER_TIMEOUT_MS`)',
    description:
      'a socket without traffic either way for this long is destroyed (a client that stops reading its answer). Must be more than 2 \u00d7 `PROVIDER_TIMEOUT_MS`',
  }),
  HTTP_CONNECTIONS_CHECK_INTERVAL_MS: integer({
    default: 1000,
    min: 10,
    max: 60_000,
    description: 'how often the header and request timeouts are checked (their precision)',
  }),
  HTTP_MAX_CONNECTIONS: integer({
    default: 10_000,
    min: 1,
    max: 1_000_000,
    description:
      'open connections per process; more are closed at accept (counted in `paygate_http_connections_dropped_total`)',
  }),
  TRUST_PROXY: custom({
    type: 'choice',
    default: false as TrustProxy,
    emptyIsValue: true,
    parse: parseTrustProxy,
    shownDefault: '`off`',
    description:
      "whose address a request comes from: `off` (the socket's), a hop count (`1`: one proxy in front), or the proxies' addresses/CIDRs, comma-separated. `true` is refused",
  }),
  WEBHOOK_BODY_LIMIT_IDR_PSP: integer({
    default: 64 * 1024,
    min: 1024,
    max: 1024 * 1024,
    description: 'largest idr_psp webhook body in bytes (413 `body too large`; 1024..1048576)',
  }),
  WEBHOOK_BODY_LIMIT_CARD_PSP: integer({
    default: 256 * 1024,
    min: 1024,
    max: 1024 * 1024,
    description: 'the same for card_psp',
  }),
  WEBHOOK_BODY_LIMIT_WALLET_PSP: integer({
    default: 128 * 1024,
    min: 1024,
    max: 1024 * 1024,
    description: 'the same for wallet_psp',
  }),
  WEBHOOK_REJECTED_BODY_BYTES: integer({
    default: 4096,
    min: 0,
    max: 1024 * 1024,
    description:
      'bytes of a bad-signature body kept in the archive (with its full size and SHA-256)',
  }),
  WEBHOOK_UNVERIFIED_PER_MINUTE: integer({
    default: 60,
    min: 1,
    max: 1_000_000,
    description: 'bad-signature webhooks one source address may send per minute, per instance',
  }),
  WEBHOOK_UNVERIFIED_BURST: integer({
    default: 20,
    min: 1,
    max: 1_000_000,
    description: 'bad-signature webhooks one source address may send at once',
  }),
  ADMIN_AUTH_FAILURES_BURST: integer({
    default: 10,
    min: 1,
    max: 1_000_000,
    description:
      'failed admin authentications one source address may make at once, per instance; then 429 `too many failed authentications`',
  }),
  ADMIN_AUTH_FAILURES_PER_MINUTE: integer({
    default: 10,
    min: 1,
    max: 1_000_000,
    description:
      'failed admin authentications one source address may make per minute after the burst, per instance (one every 6 s)',
  }),
  OIDC_ISSUER: url({
    description:
      'the identity provider for dashboard sign-in (its issuer URL; https, http only on loopback); with `OIDC_CLIENT_ID` and `OIDC_CLIENT_SECRET`, all three or none (see [Single sign-on](#single-sign-on))',
  }),
  OIDC_CLIENT_ID: text({
    default: undefined,
    description: "the gateway's client id at the identity provider",
  }),
  OIDC_CLIENT_SECRET: text({
    default: undefined,
    secret: true,
    description: "the gateway's client secret at the identity provider",
  }),
  SESSION_IDLE_MINUTES: integer({
    default: 30,
    min: 1,
    max: 1440,
    description: 'a dashboard session unused for this long ends (1..1440)',
  }),
  SESSION_MAX_HOURS: integer({
    default: 12,
    min: 1,
    max: 720,
    description: 'a dashboard session ends this long after sign-in, used or not (1..720)',
  }),
  WEBHOOK_REJECTED_RETENTION_DAYS: integer({
    default: 7,
    min: 1,
    max: 3650,
    description: 'archived bad-signature rows are deleted after this many days',
  }),
  INBOUND_RETENTION_DAYS: integer({
    default: 400,
    min: 1,
    max: 36500,
    description:
      'archived inbound webhooks of any outcome are deleted after this many days (1..36500; see [Retention](#retention))',
  }),
  DELIVERY_ATTEMPTS_RETENTION_DAYS: integer({
    default: 400,
    min: 1,
    max: 36500,
    description:
      'attempts of delivered or dead deliveries are deleted after this many days (1..36500); a pending delivery keeps all of its attempts',
  }),
  SIM_OBJECTS_RETENTION_DAYS: integer({
    default: 30,
    min: 1,
    max: 36500,
    description:
      "the simulators' objects (test mode) neither created nor changed for this many days are deleted (1..36500; see [Retention](#retention))",
  }),
  RECONCILIATION_DAILY: boolean({
    default: true,
    description:
      'the daily job reconciles the previous UTC day of wallet_psp and card_psp in every configured mode, and of idr_psp where a settlement file of that day was imported (see [Reconciliation](#reconciliation))',
  }),
  RECONCILIATION_DAILY_HOUR_UTC: integer({
    default: 3,
    min: 0,
    max: 23,
    description:
      'the hour (0..23, UTC) from which the daily job reconciles the previous day; once per day and provider across all instances',
  }),
  RECONCILIATION_SLACK_HOURS: integer({
    default: 24,
    min: 0,
    max: 72,
    description:
      'both sides of a reconciliation are read this many hours (0..72) beyond each end of the day, so a movement the gateway and the provider put on either side of midnight still pairs',
  }),
  RECONCILIATION_IMPORT_MAX_BYTES: integer({
    default: 64 * 1024 * 1024,
    min: 1024,
    max: 1024 ** 3,
    description:
      'the largest settlement report file `POST /admin/reconciliation/imports` accepts (1024..1073741824 bytes); larger is 413 `body too large`',
  }),
};

/** What the gateway's variables hold once read (before the cross-variable rules). */
export type GatewayValues = Values<typeof GATEWAY_VARS>;
