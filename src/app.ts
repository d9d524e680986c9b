import type { AddressInfo } from 'node:net';
import type { Config } from './config.js';
import type { WebhookNetwork } from './delivery/network.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.js';
import { migrate } from './db/migrate.js';
import { Listener } from './db/listener.js';
import { createPool } from './db/pool.js';
import { createGateway, setBoundPort, type Gateway } from './gateway.js';
import { buildHttpServer, type HttpServer, type Mount } from './http/server.js';
import type { Logger } from './logger.js';
import { registerSimulators } from './simulators/index.js';
import { startWorkers, type Workers } from './workers.js';

export interface RunningGateway {
  gw: Gateway;
  http: HttpServer;
  /** Base URL this process listens on. */
  url: string;
  embedded: boolean;
  /** Graceful: refuse new requests, finish in-flight ones, stop workers, close the database. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Skip background workers (tests that drive them by hand). */
  workers?: boolean;
  poolMax?: number;
  /**
   * Tests only (never set from configuration): a resolver and a socket redirect for outbound
   * webhooks, so that live-mode deliveries are tested without traffic beyond loopback.
   */
  webhookNetwork?: WebhookNetwork;
}

export async function startGateway(
  config: Config,
  log: Logger,
  opts: StartOptions = {},
): Promise<RunningGateway> {
  let embedded: EmbeddedDatabase | undefined;
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    embedded = await startEmbeddedPostgres(config.dataDir, config.embeddedPgPort, log);
    databaseUrl = embedded.url;
  }
  const pool = createPool(databaseUrl, opts.poolMax ?? 20);
  const durablePool = createPool(databaseUrl, 10, true);
  const listener = new Listener(databaseUrl, log);
  const gw = createGateway(config, pool, durablePool, log, listener, opts.webhookNetwork);
  const http = buildHttpServer(gw, simulatorMounts(config, gw));
  let workers: Workers | undefined;
  try {
    // Listen first: while migrations run, requests get 503 with Retry-After (docs/api.md#health-and-metrics).
    await http.listen({ port: config.port, host: config.host });
    const port = (http.server.address() as AddressInfo).port;
    setBoundPort(gw, port);
    const applied = await migrate(pool);
    if (applied.length > 0) log.info({ applied }, 'migrations applied');
    if (opts.workers !== false) workers = await startWorkers(gw);
    await listener.start();
    gw.phase = 'ready';
  } catch (err) {
    await http.close().catch(() => undefined);
    await workers?.stop().catch(() => undefined);
    await listener.stop();
    await pool.end().catch(() => undefined);
    await durablePool.end().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw err;
  }
  let stopping: Promise<void> | undefined;
  return {
    gw,
    http,
    url: gw.urls.internal,
    embedded: embedded !== undefined,
    stop() {
      stopping ??= (async () => {
        gw.phase = 'draining';
        await http.close();
        await workers?.stop();
        await listener.stop();
        await pool.end();
        await durablePool.end();
        await embedded?.stop();
      })();
      return stopping;
    },
  };
}

/**
 * The test-mode provider simulators, mounted beside the gateway under /sim. Their controls
 * take no authentication: never part of a production deployment.
 */
function simulatorMounts(config: Config, gw: Gateway): Mount[] {
  if (!config.simulators || config.env === 'production') return [];
  return [{ prefix: '/sim', routes: registerSimulators(gw), ownState: true }];
}
