import { startGateway } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger } from './logger.js';

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
const running = await startGateway(config, log).catch((err: unknown) => {
  log.fatal({ err }, 'gateway failed to start');
  process.exit(1);
});

const lines = [
  '',
  `Paygate is running at ${running.gw.urls.public}`,
  `  database: ${running.embedded ? `embedded PostgreSQL under ${config.dataDir}` : 'DATABASE_URL'}`,
  `  simulators (test mode): ${config.simulators ? `on, under ${running.gw.urls.public}/sim/` : 'off'}`,
];
if (config.adminTokenGenerated) {
  lines.push(
    `  admin token (generated for this run; set ADMIN_TOKEN to fix it): ${config.adminToken}`,
  );
}
process.stdout.write(lines.join('\n') + '\n\n');

let signals = 0;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (++signals > 1) process.exit(1);
    log.info({ signal: sig }, 'draining');
    running.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
