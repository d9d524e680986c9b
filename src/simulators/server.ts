import type { AddressInfo } from 'node:net';
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import type { SimulatorsConfig } from './settings.js';
import { createPool } from '../db/pool.js';
import { purgeOldSimObjects } from './db/objects.js';
import { lazyChildLogger, type Logger } from '../logger.js';
import type { SimulatorHost } from './host.js';
import { createSimulators } from './index.js';
import { sendText } from './reply.js';

/** Largest body the simulators read, as the gateway they are otherwise mounted in. */
const BODY_LIMIT = 1024 * 1024;

/** PostgreSQL's character_not_in_repertoire and untranslatable_character: the client's text. */
const UNSTORABLE_TEXT = new Set(['22021', '22P05']);

export interface RunningSimulators {
  /** Where this process listens. */
  url: string;
  stop(): Promise<void>;
}

/**
 * The simulators as their own process (`npm run simulators`): the same routes the gateway
 * mounts in test mode, under /sim on a server of their own, with their state in the
 * database at DATABASE_URL and their webhooks sent to GATEWAY_URL.
 */
export async function startSimulators(
  config: SimulatorsConfig,
  log: Logger,
): Promise<RunningSimulators> {
  const pool = createPool(config.databaseUrl, 10);
  let purgeTimer: NodeJS.Timeout | undefined;
  const host: SimulatorHost & { phase: string } = {
    pool,
    config: { masterKey: config.masterKey, providerTimeoutMs: config.providerTimeoutMs },
    // Completed once the port is known.
    urls: { internal: '', public: '', gateway: config.gatewayUrl },
    log,
    phase: 'starting',
  };
  const app = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    // Each request's logger is made only if it logs, as the gateway's (logger.ts): pino's
    // child costs about 5 µs, on every status call (issue 28).
    childLoggerFactory: (logger, bindings, options) =>
      lazyChildLogger(logger as Logger, bindings, options) as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT,
    logController: new LogController({ disableRequestLogging: true }),
  });
  // Provider signatures cover exact bytes: every body is kept raw, as in the gateway.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  app.setErrorHandler((err: { statusCode?: number; code?: unknown }, req, reply) => {
    if (UNSTORABLE_TEXT.has(String(err.code))) return sendText(reply, 400, 'bad request');
    if (err.statusCode === 413) return sendText(reply, 413, 'body too large');
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      return sendText(reply, err.statusCode, 'request error');
    }
    req.log.error({ err, url: req.url.split('?')[0] }, 'simulators: unhandled error');
    return sendText(reply, 500, 'internal error');
  });
  app.setNotFoundHandler((_req, reply) => sendText(reply, 404, 'not found'));
  app.get('/healthz', async (_req, reply) =>
    host.phase === 'ready' ? sendText(reply, 200, 'ok') : sendText(reply, 503, host.phase),
  );
  const simulators = createSimulators(host);
  app.register(simulators.routes, { prefix: '/sim' });
  // Their state in a database of their own is purged here, as the gateway's retention job
  // purges its database's (docs/operations.md#retention): at start, then every 10 minutes.
  const purge = async () => {
    let deleted = 0;
    for (let n = -1; n !== 0 && host.phase !== 'draining'; deleted += n) {
      n = await purgeOldSimObjects(pool, config.simObjectsRetentionDays);
    }
    if (deleted > 0) log.info({ deleted }, 'simulators: old objects deleted');
  };
  const startPurging = () => {
    const run = () => void purge().catch((err: unknown) => log.warn({ err }, 'purge failed'));
    run();
    return setInterval(run, 10 * 60_000).unref();
  };
  try {
    await app.listen({ port: config.port, host: config.host });
    const port = (app.server.address() as AddressInfo).port;
    host.urls.internal = config.selfUrl ?? `http://127.0.0.1:${port}`;
    host.urls.public = config.publicBaseUrl ?? `http://localhost:${port}`;
    // Their own migrator and schema (db/migrate.ts), on the gateway's database or their own.
    const applied = await simulators.start();
    if (applied.length > 0) log.info({ applied }, 'simulators: migrations applied');
    host.phase = 'ready';
    purgeTimer = startPurging();
  } catch (err) {
    await app.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
    throw err;
  }
  let stopping: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    stop() {
      stopping ??= (async () => {
        host.phase = 'draining';
        clearInterval(purgeTimer);
        await app.close();
        await pool.end();
      })();
      return stopping;
    },
  };
}
