import path from 'node:path';
import cluster from 'node:cluster';
import { startGateway } from './app.js';
import { checkMasterKey, MasterKeyError } from './auth/masterKeyCheck.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import {
  checkDatabaseReachable,
  DatabaseStartError,
  parseDatabaseUrl,
  PrimaryLocator,
} from './db/connection.js';
import {
  EmbeddedPostgresError,
  startEmbeddedPostgres,
  type EmbeddedDatabase,
} from './db/embedded.js';
import { createPool } from './db/pool.js';
import { createLogger } from './logger.js';
import { boundHeapGrowth } from './memory.js';

// Before the heap grows: the resident set follows the live objects (src/memory.ts).
boundHeapGrowth();

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`configuration error: ${err.message}\n`);
    process.exit(1);
  }
  throw err;
}

const log = createLogger(config.logLevel);

type EmbeddedCluster = Pick<EmbeddedDatabase, 'clusterDir' | 'relocated'>;

/** Where the data is; as root the cluster may live outside DATA_DIR, and the operator must know. */
function databaseLine(embedded: EmbeddedCluster | undefined): string {
  if (!embedded) return 'DATABASE_URL';
  const where = `embedded PostgreSQL in ${embedded.clusterDir}`;
  if (!embedded.relocated) return where;
  return (
    `${where}, outside DATA_DIR (${path.join(config.dataDir, 'pg')} links there; ` +
    'removing it: docs/operations.md, "Running as root")'
  );
}

function banner(publicUrl: string, embedded: EmbeddedCluster | undefined): void {
  const lines = [
    '',
    `Paygate is running at ${publicUrl}`,
    // The bare URL only leads here; a newcomer's first stop is the dashboard.
    `  dashboard: ${publicUrl}/dashboard (sign in with ${
      config.adminTokenFile ? 'the admin token below' : 'your ADMIN_TOKEN'
    })`,
    `  database: ${databaseLine(embedded)}`,
    `  simulators (test mode): ${
      config.simulatorsUrl
        ? `at ${config.simulatorsUrl}/sim/ (SIMULATORS_URL)`
        : config.simulators
          ? `on, under ${publicUrl}/sim/`
          : 'off'
    }`,
  ];
  if (config.workers > 1) lines.push(`  processes: ${config.workers} (WORKERS)`);
  if (config.adminTokenFile) {
    lines.push(
      `  admin token (kept in ${config.adminTokenFile}; ADMIN_TOKEN overrides it): ${config.adminToken}`,
    );
  }
  process.stdout.write(lines.join('\n') + '\n\n');
}

/**
 * A start-up failure the operator can fix ends in one line naming the cause and the fix, and
 * exit code 1; anything else is a defect and is logged with its stack.
 */
function startupFailed(err: unknown): never {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (
    err instanceof EmbeddedPostgresError ||
    err instanceof DatabaseStartError ||
    err instanceof MasterKeyError
  ) {
    process.stderr.write(`startup error: ${err.message}\n`);
  } else if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
    const why =
      code === 'EADDRINUSE'
        ? 'is in use'
        : code === 'EACCES'
          ? 'is not allowed'
          : 'is not on this machine';
    process.stderr.write(
      `startup error: listening on ${config.host}:${config.port} ${why} (${code}): set PORT (or HOST) to a free one\n`,
    );
  } else {
    log.fatal({ err }, 'gateway failed to start');
  }
  process.exit(1);
}

function onSignals(stop: () => Promise<void>): void {
  let signals = 0;
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () => {
      if (++signals > 1) process.exit(1);
      log.info({ signal: sig }, 'draining');
      stop().then(
        () => process.exit(0),
        (err: unknown) => {
          log.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
}

async function reachable(url: string, checkUrl: boolean): Promise<void> {
  const locator = new PrimaryLocator(
    parseDatabaseUrl(url, config.database.poolMode === 'transaction'),
  );
  const pool = createPool(locator, 1, true);
  try {
    if (checkUrl) await checkDatabaseReachable(pool, 'DATABASE_URL', locator);
    await checkMasterKey(pool, config.masterKey);
  } finally {
    await pool.end().catch(() => undefined);
  }
}

/**
 * WORKERS > 1: this process owns the embedded database (if any) and forks workers that
 * share the port; each worker is a complete, stateless gateway instance.
 */
async function runPrimary(): Promise<void> {
  const embedded = config.databaseUrl
    ? undefined
    : await startEmbeddedPostgres(config.dataDir, config.embeddedPgPort, log).catch(startupFailed);
  // Checked once here: workers that each failed would be forked again without end.
  const env = { DATABASE_URL: embedded?.url ?? config.databaseUrl, ADMIN_TOKEN: config.adminToken };
  if (env.DATABASE_URL)
    await reachable(env.DATABASE_URL, config.databaseUrl !== undefined).catch(startupFailed);
  let stopping = false;
  let ready = 0;
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    log.error({ pid: worker.process.pid, code, signal }, 'worker died; starting another');
    cluster.fork(env);
  });
  cluster.on('message', (_worker, msg: unknown) => {
    if (msg === 'ready' && ++ready === config.workers) {
      banner(config.publicBaseUrl ?? `http://localhost:${config.port}`, embedded);
    }
  });
  for (let i = 0; i < config.workers; i++) cluster.fork(env);
  onSignals(async () => {
    stopping = true;
    const workers = Object.values(cluster.workers ?? {});
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve) => {
            if (!w || w.isDead()) return resolve();
            w.once('exit', () => resolve());
            w.process.kill('SIGTERM');
          }),
      ),
    );
    await embedded?.stop();
  });
}

async function runInstance(): Promise<void> {
  const running = await startGateway(config, log).catch(startupFailed);
  if (cluster.isWorker) process.send?.('ready');
  else banner(running.gw.urls.public, running.embedded);
  onSignals(() => running.stop());
}

if (config.workers > 1 && cluster.isPrimary) await runPrimary();
else await runInstance();
