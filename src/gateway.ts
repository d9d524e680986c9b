import type { AuthenticatedApp } from './auth/appAuth.js';
import type { Config } from './config.js';
import { findAppByApiKey } from './db/apps.js';
import type { Pool } from './db/pool.js';
import type { Logger } from './logger.js';
import { ProviderRegistry, type GatewayUrls } from './providers/registry.js';
import { appSigningSecret } from './services/apps.js';
import { SimClock } from './simulators/common.js';

export type Phase = 'starting' | 'ready' | 'draining';

/** Everything a request or worker needs, built once per process. */
export interface Gateway {
  config: Config;
  pool: Pool;
  log: Logger;
  urls: GatewayUrls;
  providers: ProviderRegistry;
  phase: Phase;
  lookupAppKey(apiKey: string): Promise<AuthenticatedApp | null>;
  now(): number;
  /** The simulators' clock, movable by tests; never the gateway's own time. */
  simClock: SimClock;
}

export function createGateway(config: Config, pool: Pool, log: Logger): Gateway {
  const base = `http://127.0.0.1:${config.port}`;
  const urls: GatewayUrls = {
    internal: base,
    public: config.publicBaseUrl ?? `http://localhost:${config.port}`,
  };
  return {
    config,
    pool,
    log,
    urls,
    providers: new ProviderRegistry(config, urls),
    phase: 'starting',
    async lookupAppKey(apiKey) {
      const app = await findAppByApiKey(pool, apiKey);
      return app ? { app, signingSecret: appSigningSecret(config.masterKey, app) } : null;
    },
    now: () => Date.now(),
    simClock: new SimClock(),
  };
}

/** Once listening on an OS-chosen port, point self-addressed URLs at it. */
export function setBoundPort(gw: Gateway, port: number): void {
  gw.urls.internal = `http://127.0.0.1:${port}`;
  if (!gw.config.publicBaseUrl) gw.urls.public = `http://localhost:${port}`;
}
