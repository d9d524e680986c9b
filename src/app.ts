import type { AddressInfo } from 'node:net';
import type { Config } from './config.js';
import type { WebhookNetwork } from './delivery/network.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.js';
import { migrate } from './db/migrate.js';
import { checkMasterKey } from './auth/masterKeyCheck.js';
import { Listener } from './db/listener.js';
import { checkDatabaseReachable, parseDatabaseUrl, PrimaryLocator } from './db/connection.js';
import { createPool, type Pool } from './db/pool.js';
import {
  createGateway,
  DELIVERY_POOL_SIZE,
  EXPORT_POOL_SIZE,
  setBoundPort,
  type Gateway,
} from './gateway.js';
import { buildHttpServer, type HttpServer } from './http/server.js';
import type { Logger } from './logger.js';
import { createSimulators, type Simulators } from './simulators/index.js';
import { startWorkers, type Workers } from './workers.js';

export interface RunningGateway {
  gw: Gateway;
  http: HttpServer;
  /** Base URL this process listens on. */
  url: string;
  /** The simulators mounted in this process (test mode), or undefined; tests move their clock. */
  simulators: Simulators | undefined;
  /** The embedded PostgreSQL this process runs, if any (where its cluster lives). */
  embedded: Pick<EmbeddedDatabase, 'clusterDir' | 'relocated'> | undefined;
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

/** Migrations hold a session advisory lock: through PgBouncer, on a direct connection of their own. */
async function migrateOver(main: Pool, direct: PrimaryLocator | undefined): Promise<string[]> {
  if (!direct) return migrate(main);
  const pool = createPool(direct, 1, true);
  try {
    return await migrate(pool);
  } finally {
    await pool.end();
  }
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
  // One locator of the primary for the process (db/connection.ts); LISTEN and migrations go
  // around a PgBouncer in transaction pooling mode, straight to PostgreSQL.
  const transactionPooling = config.database.poolMode === 'transaction';
  const locator = new PrimaryLocator(parseDatabaseUrl(databaseUrl, transactionPooling), log);
  const direct = config.database.directUrl
    ? new PrimaryLocator(parseDatabaseUrl(config.database.directUrl), log)
    : locator;
  const pool = createPool(locator, opts.poolMax ?? 20);
  const durablePool = createPool(locator, 10, true);
  const pools = {
    pool,
    durablePool,
    // CSV exports hold a connection while a reader reads: never the main pool's (gateway.ts).
    exportPool: createPool(locator, EXPORT_POOL_SIZE),
    deliveryPool: createPool(locator, DELIVERY_POOL_SIZE, false, { genericPlans: true }),
  };
  const listener = new Listener(direct, log);
  const gw = createGateway(config, pools, log, listener, opts.webhookNetwork);
  const simulators = mountedSimulators(config, gw);
  const http = buildHttpServer(
    gw,
    simulators ? [{ prefix: '/sim', routes: simulators.routes, ownState: true }] : [],
  );
  let workers: Workers | undefined;
  try {
    // Before listening: an unreachable database is one line at start, not a server that says
    // it listens and dies a moment later.
    await checkDatabaseReachable(durablePool, 'DATABASE_URL', locator);
    if (direct !== locator) {
      const probe = createPool(direct, 1, true);
      try {
        await checkDatabaseReachable(probe, 'DATABASE_DIRECT_URL', direct);
      } finally {
        await probe.end().catch(() => undefined);
      }
    }
    // Listen first: while migrations run, requests get 503 with Retry-After (docs/api.md#health-and-metrics).
    await http.listen({ port: config.port, host: config.host });
    const port = (http.server.address() as AddressInfo).port;
    setBoundPort(gw, port);
    // Synchronous commits: a failover right after start must not lose part of the schema.
    const applied = await migrateOver(durablePool, direct === locator ? undefined : direct);
    if (applied.length > 0) log.info({ applied }, 'migrations applied');
    // The simulators' own schema and migrations (simulators/db/migrate.ts), after the gateway's.
    const simApplied = (await simulators?.start()) ?? [];
    if (simApplied.length > 0) log.info({ applied: simApplied }, 'simulators: migrations applied');
    await checkMasterKey(pool, config.masterKey);
    await warnIfAutovacuumCannotRun(gw);
    if (opts.workers !== false) workers = await startWorkers(gw, simulators?.purgeOld);
    await listener.start();
    gw.phase = 'ready';
  } catch (err) {
    await http.close().catch(() => undefined);
    await workers?.stop().catch(() => undefined);
    await listener.stop();
    for (const p of Object.values(pools)) await p.end().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw err;
  }
  let stopping: Promise<void> | undefined;
  return {
    gw,
    http,
    url: gw.urls.internal,
    simulators,
    embedded: embedded && { clusterDir: embedded.clusterDir, relocated: embedded.relocated },
    stop() {
      stopping ??= (async () => {
        gw.phase = 'draining';
        await http.close();
        await workers?.stop();
        await listener.stop();
        for (const p of Object.values(pools)) await p.end();
        await embedded?.stop();
      })();
      return stopping;
    },
  };
}

/** One warning line at start when autovacuum cannot clean the tables (db/autovacuum.ts). */
async function warnIfAutovacuumCannotRun(gw: Gateway): Promise<void> {
  const problems = await gw.autovacuum.problems();
  if (problems.length === 0) return;
  gw.log.warn(
    { problems },
    `the database will slow down over time: ${problems.join('; ')} (docs/operations.md, "Autovacuum")`,
  );
}

/**
 * The test-mode provider simulators, mounted beside the gateway under /sim. Their controls
 * take no authentication: never part of a production deployment.
 */
function mountedSimulators(config: Config, gw: Gateway): Simulators | undefined {
  if (!config.simulators || config.env === 'production') return undefined;
  return createSimulators(gw);
}
