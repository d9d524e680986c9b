import type { AuthenticatedApp } from './auth/appAuth.js';
import { APP_CHANGED_CHANNEL, AppKeyCache, SettledPaymentCache } from './cache.js';
import type { Config } from './config.js';
import { systemNetwork, type WebhookNetwork } from './delivery/network.js';
import { findAppByApiKey, findAppByPreviousApiKey, notifyAppChanged } from './db/apps.js';
import { decryptSecret } from './auth/crypto.js';
import { AutovacuumWatch } from './db/autovacuum.js';
import { PaymentReadBatcher } from './db/payments.js';
import { creationBatchers, type CreationBatchers } from './db/paymentCreation.js';
import type { Listener } from './db/listener.js';
import type { Pool } from './db/pool.js';
import type { Logger } from './logger.js';
import { ProviderRegistry, type GatewayUrls } from './providers/registry.js';
import { appSigningSecret } from './services/apps.js';
import type { ReconciliationDeps } from './services/reconciliation.js';
import { ExportSlots } from './services/exportSlots.js';
import { SourceRateLimiter } from './services/sourceRateLimit.js';

export type Phase = 'starting' | 'ready' | 'draining';

/** Everything a request or worker needs, built once per process. */
export interface Gateway {
  config: Config;
  pool: Pool;
  /**
   * Commits wait for the disk: for the last write of a request, which then needs no
   * separate durability barrier (db/pool.ts).
   */
  durablePool: Pool;
  /**
   * CSV exports only (db/cursor.ts): a reader holds its connection as long as it reads, so
   * exports get their own few connections and can never starve payments of the main pool's.
   */
  exportPool: Pool;
  /**
   * The delivery worker's claims and records (delivery/worker.ts), on connections that plan
   * each statement once, generically: a claim's custom plan took longer to make (about
   * 1.5 ms) than the claim took to run. Commits as the main pool's.
   */
  deliveryPool: Pool;
  /** Exports streaming now in this process, at most one per export connection. */
  exportSlots: ExportSlots;
  log: Logger;
  urls: GatewayUrls;
  providers: ProviderRegistry;
  phase: Phase;
  /** One LISTEN connection for the process (delivery wake-ups, cache invalidation). */
  listener: Listener;
  /** A cached key is answered without a promise. */
  lookupAppKey(apiKey: string): AuthenticatedApp | null | Promise<AuthenticatedApp | null>;
  /** Drops an app's cached keys here and, through NOTIFY, on every other instance. */
  appChanged(appId: string): Promise<void>;
  settledPayments: SettledPaymentCache;
  paymentReads: PaymentReadBatcher;
  /** The common create path's statements, shared by the requests that reach them together. */
  creations: CreationBatchers;
  now(): number;
  /** How webhook hosts are resolved and connected to (checked for live apps). */
  webhookNetwork: WebhookNetwork;
  /** Bad-signature webhooks per source address, this process only (docs/operations.md). */
  unverifiedWebhooks: SourceRateLimiter;
  /** Failed admin authentications per source address, this process only (docs/operations.md). */
  adminAuthFailures: SourceRateLimiter;
  /** Whether autovacuum can clean the gateway's tables; warned at start and in /readyz. */
  autovacuum: AutovacuumWatch;
}

/** Connections of the exports' own pool, and so exports streaming at once per process. */
export const EXPORT_POOL_SIZE = 2;
/**
 * Connections of the delivery worker's pool: its claims run one after another, and a batch
 * whose record failed is written again beside them.
 */
export const DELIVERY_POOL_SIZE = 2;

export function createGateway(
  config: Config,
  {
    pool,
    durablePool,
    exportPool,
    deliveryPool,
  }: { pool: Pool; durablePool: Pool; exportPool: Pool; deliveryPool: Pool },
  log: Logger,
  listener: Listener,
  webhookNetwork: WebhookNetwork = systemNetwork,
): Gateway {
  const base = `http://127.0.0.1:${config.port}`;
  const urls: GatewayUrls = {
    internal: base,
    public: config.publicBaseUrl ?? `http://localhost:${config.port}`,
  };
  const appKeys = new AppKeyCache(async (apiKey) => {
    const app = await findAppByApiKey(pool, apiKey);
    if (app) return { app, signingSecret: appSigningSecret(config.masterKey, app) };
    // A key replaced with grace (docs/api.md#regenerate-keys) pairs with its own old secret.
    const old = await findAppByPreviousApiKey(pool, apiKey);
    if (!old?.previous_signing_secret_enc || !old.keys_rotate_at) return null;
    return {
      app: old,
      signingSecret: decryptSecret(config.masterKey, old.previous_signing_secret_enc),
      validUntil: old.keys_rotate_at.getTime(),
    };
  });
  listener.on(APP_CHANGED_CHANNEL, (appId) => appKeys.invalidateApp(appId));
  listener.onReset(() => appKeys.clear());
  // A cached previous key stops when its window ends, on the gateway's clock.
  const inWindow = (found: AuthenticatedApp | null): AuthenticatedApp | null =>
    found?.validUntil !== undefined && found.validUntil <= gateway.now() ? null : found;
  const gateway: Gateway = {
    config,
    pool,
    durablePool,
    exportPool,
    deliveryPool,
    exportSlots: new ExportSlots(EXPORT_POOL_SIZE),
    log,
    urls,
    providers: new ProviderRegistry(config, urls),
    phase: 'starting',
    listener,
    lookupAppKey(apiKey) {
      const found = appKeys.get(apiKey);
      return found instanceof Promise ? found.then(inWindow) : inWindow(found);
    },
    async appChanged(appId) {
      appKeys.invalidateApp(appId);
      await notifyAppChanged(pool, APP_CHANGED_CHANNEL, appId);
    },
    settledPayments: new SettledPaymentCache(),
    paymentReads: new PaymentReadBatcher(pool),
    creations: creationBatchers(pool, durablePool),
    now: () => Date.now(),
    webhookNetwork,
    unverifiedWebhooks: new SourceRateLimiter(
      config.webhooks.unverifiedPerMinute,
      config.webhooks.unverifiedBurst,
    ),
    // On the gateway's clock, which tests move, so that a limit can be seen to expire.
    adminAuthFailures: new SourceRateLimiter(
      config.adminAuth.failuresPerMinute,
      config.adminAuth.failuresBurst,
      () => gateway.now(),
    ),
    autovacuum: new AutovacuumWatch(pool, () => gateway.now()),
  };
  return gateway;
}

/** What the payment, refund and webhook use cases take from the process. */
export function serviceDeps(gw: Gateway) {
  return {
    pool: gw.pool,
    durablePool: gw.durablePool,
    providers: gw.providers,
    providerTimeoutMs: gw.config.providerTimeoutMs,
    log: gw.log,
    // Read at each call: a test that moves gw.now moves the use cases' time too.
    now: () => gw.now(),
  };
}

/** Once listening on an OS-chosen port, point self-addressed URLs at it. */
export function setBoundPort(gw: Gateway, port: number): void {
  gw.urls.internal = `http://127.0.0.1:${port}`;
  if (!gw.config.publicBaseUrl) gw.urls.public = `http://localhost:${port}`;
}

/** What reconciliation (runs, the daily job) takes from the process. */
export function reconciliationDeps(gw: Gateway): ReconciliationDeps {
  return {
    pool: gw.pool,
    providers: gw.providers,
    providerTimeoutMs: gw.config.providerTimeoutMs,
    slackHours: gw.config.reconciliation.slackHours,
    log: gw.log,
    now: () => gw.now(),
  };
}
