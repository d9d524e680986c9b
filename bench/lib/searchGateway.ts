/**
 * The gateway's HTTP server for the search benchmark (bench/search10m.ts), read-only: on a
 * seeded database that must not change (the ten-million-payment one), it serves every route
 * as `npm start` does, but runs no migration, no background worker (reconciler, retention,
 * partitions, plan guard: each of them writes) and no LISTEN, and every connection is
 * `default_transaction_read_only = on`, so a request that tried to write would fail (a 500,
 * which the benchmark reports) instead of writing; a statement over 10 s fails the same way. It refuses to start unless every
 * migration of this version is already applied (read with one SELECT).
 *
 * Beside the routes, GET /__bench/db answers the time each request spent waiting for
 * PostgreSQL (wall time with at least one statement in flight, round trips included), one
 * number per request since the previous call, oldest first: the share of a request's time that
 * is the database's, measured in the same run as the HTTP time.
 *
 *   DATABASE_URL=<url> ADMIN_TOKEN=... MASTER_KEY=... PORT=... tsx bench/lib/searchGateway.ts
 */
import type pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { parseDatabaseUrl, PrimaryLocator } from '../../src/db/connection.js';
import { Listener } from '../../src/db/listener.js';
import { migrationsApplied } from '../../src/db/migrate.js';
import { createPool } from '../../src/db/pool.js';
import { createGateway, EXPORT_POOL_SIZE, setBoundPort } from '../../src/gateway.js';
import { buildHttpServer } from '../../src/http/server.js';
import { createLogger } from '../../src/logger.js';

const config = loadConfig();
const log = createLogger(config.logLevel);
if (!config.databaseUrl) throw new Error('searchGateway: DATABASE_URL is required');

// Wall time with at least one statement in flight, for the current request (requests are
// sent one after the other by the benchmark).
let inFlight = 0;
let since = 0;
let dbMs = 0;
const begin = () => {
  if (inFlight++ === 0) since = performance.now();
};
const end = () => {
  if (--inFlight === 0) dbMs += performance.now() - since;
};

/** Every connection read-only, and its statements timed. */
function readOnly(pool: pg.Pool): pg.Pool {
  pool.on('connect', (client) => {
    // A statement over 10 s fails (a 500 the benchmark reports) rather than holding the run.
    void client
      .query("SET default_transaction_read_only = on; SET statement_timeout = '10s'")
      .catch(() => undefined);
    const query = client.query.bind(client) as (...a: unknown[]) => unknown;
    (client as unknown as { query: (...a: unknown[]) => unknown }).query = (...args) => {
      const last = args[args.length - 1];
      if (typeof last === 'function') {
        begin();
        args[args.length - 1] = (...r: unknown[]) => {
          end();
          (last as (...r: unknown[]) => void)(...r);
        };
        return query(...args);
      }
      const out = query(...args);
      if (out instanceof Promise) {
        begin();
        out.then(end, end);
      }
      return out;
    };
  });
  return pool;
}

const locator = new PrimaryLocator(parseDatabaseUrl(config.databaseUrl), log);
const pool = readOnly(createPool(locator, 20));
const durablePool = readOnly(createPool(locator, 10, true));
const exportPool = readOnly(createPool(locator, EXPORT_POOL_SIZE));
// No workers run here: the delivery worker's pool is never used.
const deliveryPool = readOnly(createPool(locator, 1));
const gw = createGateway(
  config,
  { pool, durablePool, exportPool, deliveryPool },
  log,
  new Listener(locator, log),
);
if (!(await migrationsApplied(pool))) {
  process.stderr.write(
    'searchGateway: the database lacks migrations of this version; it is read-only here, migrate it elsewhere first\n',
  );
  process.exit(1);
}
const http = buildHttpServer(gw, []);
const perRequest: number[] = [];
http.addHook('onRequest', (_req, _reply, done) => {
  dbMs = 0;
  done();
});
http.addHook('onResponse', (req, _reply, done) => {
  if (!req.url.startsWith('/__bench/')) perRequest.push(Math.round(dbMs * 100) / 100);
  done();
});
http.get('/__bench/db', (_req, reply) => {
  const out = perRequest.splice(0);
  void reply.type('application/json').send(JSON.stringify(out));
});
await http.listen({ port: config.port, host: config.host });
setBoundPort(gw, config.port);
gw.phase = 'ready';
for (const sig of ['SIGTERM', 'SIGINT'] as const) {
  process.on(sig, () => {
    gw.phase = 'draining';
    void http
      .close()
      .then(() => Promise.all([pool.end(), durablePool.end(), exportPool.end()]))
      .finally(() => process.exit(0));
  });
}
