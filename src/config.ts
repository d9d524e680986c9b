/**
 * The gateway's configuration. The variables are declared once in config/schema.ts (type,
 * default, bounds, description, secret or not); this module reads them, applies the rules
 * that tie several together, and shapes the result for the code. The secrets and the data
 * folder's side effects live apart (config/secrets.ts, config/dataDir.ts), and run last so
 * that a configuration with an error writes nothing. The simulators' own settings are in
 * src/simulators/settings.ts.
 */
import path from 'node:path';
import { PROVIDERS, type ProviderSlug } from './domain/types.js';
import { loadProviderEndpoints, PROVIDER_ROW, type ProviderEndpoints } from './config/providers.js';
import {
  GATEWAY_VARS,
  type GatewayValues,
  type PoolMode,
  type TrustProxy,
} from './config/schema.js';
import { adminTokenOrKept, masterKeyOrKept, requireProductionSecrets } from './config/secrets.js';
import { ConfigError, docRows, readAll, type Env, type SettingDoc } from './config/vars.js';

export { ConfigError, type SettingDoc } from './config/vars.js';
export { simulatorSecret } from './config/secrets.js';
export type { ProviderEndpointConfig, ProviderEndpoints } from './config/providers.js';
export type { TrustProxy } from './config/schema.js';

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
  poolMode: PoolMode;
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

/**
 * The gateway's variables as docs/operations.md#configuration shows them, rendered from the
 * schema: test/unit/config.docs.test.ts fails when a variable loadConfig reads is missing
 * here, when a single-value default here is not the code's, or when the doc's table is not
 * this one.
 */
export const GATEWAY_SETTINGS: readonly SettingDoc[] = [...docRows(GATEWAY_VARS), PROVIDER_ROW];

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The rules that tie several variables together, in the order they are reported. */
function checkTogether(v: GatewayValues): void {
  const isProd = v.PAYGATE_ENV === 'production';
  if (v.DATABASE_POOL_MODE === 'transaction') {
    if (!v.DATABASE_URL) {
      throw new ConfigError('DATABASE_POOL_MODE=transaction needs DATABASE_URL (the PgBouncer)');
    }
    if (!v.DATABASE_DIRECT_URL) {
      throw new ConfigError(
        'DATABASE_DIRECT_URL is required when DATABASE_POOL_MODE=transaction: LISTEN and migrations need a connection to PostgreSQL itself',
      );
    }
  }
  requireProductionSecrets(isProd, { adminToken: v.ADMIN_TOKEN, masterKey: v.MASTER_KEY });
  // The simulators' controls take no authentication (they stand in for a provider's pages).
  if (isProd && v.SIMULATORS) {
    throw new ConfigError('SIMULATORS cannot be on when PAYGATE_ENV=production');
  }
  if (isProd && v.SIMULATORS_URL) {
    throw new ConfigError('SIMULATORS_URL cannot be set when PAYGATE_ENV=production');
  }
  // One place answers test mode: two would each hold half of the simulated providers' state.
  if (v.SIMULATORS_URL && v.SIMULATORS) {
    throw new ConfigError(
      'SIMULATORS must be off when SIMULATORS_URL is set (test mode then uses the simulators at SIMULATORS_URL)',
    );
  }
  // Node refuses a headers timeout above the request timeout.
  if (v.HTTP_HEADERS_TIMEOUT_MS > v.HTTP_REQUEST_TIMEOUT_MS) {
    throw new ConfigError('HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS');
  }
  // A silent socket is one waiting on us too: an admin cancel can wait on two provider calls.
  if (v.HTTP_IDLE_TIMEOUT_MS <= 2 * v.PROVIDER_TIMEOUT_MS) {
    throw new ConfigError('HTTP_IDLE_TIMEOUT_MS must be more than twice PROVIDER_TIMEOUT_MS');
  }
  // The three OIDC_* variables together or none; an http issuer only on loopback.
  const oidc = [v.OIDC_ISSUER, v.OIDC_CLIENT_ID, v.OIDC_CLIENT_SECRET];
  const given = oidc.filter((x) => x !== undefined).length;
  if (given !== 0 && given !== 3) {
    throw new ConfigError(
      'OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET go together: set all three or none',
    );
  }
  const issuer = v.OIDC_ISSUER ? new URL(v.OIDC_ISSUER) : undefined;
  if (issuer && issuer.protocol === 'http:' && !isLoopbackHost(issuer.hostname)) {
    throw new ConfigError('OIDC_ISSUER must be an https URL (http only on loopback)');
  }
}

function bodyLimits(v: GatewayValues): Record<ProviderSlug, number> {
  const out = {} as Record<ProviderSlug, number>;
  for (const p of PROVIDERS) {
    out[p] = v[`WEBHOOK_BODY_LIMIT_${p.toUpperCase() as Uppercase<ProviderSlug>}`];
  }
  return out;
}

export function loadConfig(env: Env = process.env): Config {
  const v = readAll(GATEWAY_VARS, env);
  const providerEndpoints = loadProviderEndpoints(env);
  checkTogether(v);
  const dataDir = path.resolve(v.DATA_DIR);
  const settings: Omit<
    Config,
    'masterKey' | 'adminToken' | 'adminTokenGenerated' | 'adminTokenFile'
  > = {
    env: v.PAYGATE_ENV,
    port: v.PORT,
    host: v.HOST,
    databaseUrl: v.DATABASE_URL,
    database: { poolMode: v.DATABASE_POOL_MODE, directUrl: v.DATABASE_DIRECT_URL },
    dataDir,
    embeddedPgPort: v.EMBEDDED_PG_PORT,
    publicBaseUrl: v.PUBLIC_BASE_URL,
    simulators: v.SIMULATORS,
    simulatorsUrl: v.SIMULATORS_URL,
    idrPspDirectQr: v.IDR_PSP_DIRECT_QR,
    allowPrivateWebhookTargets: v.ALLOW_PRIVATE_WEBHOOK_TARGETS,
    delivery: {
      maxAttempts: v.DELIVERY_MAX_ATTEMPTS,
      baseDelayMs: v.DELIVERY_BASE_DELAY_MS,
      maxDelayMs: v.DELIVERY_MAX_DELAY_MS,
      timeoutMs: v.DELIVERY_TIMEOUT_MS,
    },
    endpoints: {
      concurrency: v.DELIVERY_ENDPOINT_CONCURRENCY,
      disableAfterDays: v.ENDPOINT_DISABLE_AFTER_DAYS,
    },
    providerTimeoutMs: v.PROVIDER_TIMEOUT_MS,
    providerEndpoints,
    logLevel: v.LOG_LEVEL,
    workers: v.WORKERS,
    http: {
      headersTimeoutMs: v.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: v.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: v.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      idleTimeoutMs: v.HTTP_IDLE_TIMEOUT_MS,
      connectionsCheckIntervalMs: v.HTTP_CONNECTIONS_CHECK_INTERVAL_MS,
      maxConnections: v.HTTP_MAX_CONNECTIONS,
    },
    webhooks: {
      bodyLimitBytes: bodyLimits(v),
      rejectedBodyBytes: v.WEBHOOK_REJECTED_BODY_BYTES,
      unverifiedPerMinute: v.WEBHOOK_UNVERIFIED_PER_MINUTE,
      unverifiedBurst: v.WEBHOOK_UNVERIFIED_BURST,
      rejectedRetentionDays: v.WEBHOOK_REJECTED_RETENTION_DAYS,
    },
    adminAuth: {
      failuresBurst: v.ADMIN_AUTH_FAILURES_BURST,
      failuresPerMinute: v.ADMIN_AUTH_FAILURES_PER_MINUTE,
    },
    operatorAuth: {
      oidc:
        v.OIDC_ISSUER && v.OIDC_CLIENT_ID && v.OIDC_CLIENT_SECRET
          ? {
              issuer: v.OIDC_ISSUER,
              clientId: v.OIDC_CLIENT_ID,
              clientSecret: v.OIDC_CLIENT_SECRET,
            }
          : undefined,
      sessionIdleMinutes: v.SESSION_IDLE_MINUTES,
      sessionMaxHours: v.SESSION_MAX_HOURS,
    },
    retention: {
      inboundDays: v.INBOUND_RETENTION_DAYS,
      deliveryAttemptsDays: v.DELIVERY_ATTEMPTS_RETENTION_DAYS,
      simObjectsDays: v.SIM_OBJECTS_RETENTION_DAYS,
    },
    reconciliation: {
      daily: v.RECONCILIATION_DAILY,
      dailyHourUtc: v.RECONCILIATION_DAILY_HOUR_UTC,
      slackHours: v.RECONCILIATION_SLACK_HOURS,
      importMaxBytes: v.RECONCILIATION_IMPORT_MAX_BYTES,
    },
    trustProxy: v.TRUST_PROXY,
  };
  // Secrets kept in DATA_DIR last: a configuration with an error writes nothing.
  const masterKey = masterKeyOrKept(v.MASTER_KEY, dataDir);
  const admin = adminTokenOrKept(v.ADMIN_TOKEN, dataDir);
  return {
    ...settings,
    masterKey,
    adminToken: admin.token,
    adminTokenGenerated: admin.file !== undefined,
    adminTokenFile: admin.file,
  };
}
