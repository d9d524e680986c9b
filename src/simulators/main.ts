/**
 * `npm run simulators`: the test-mode provider simulators as their own process, for a gateway
 * started with SIMULATORS_URL pointing here (docs/operations.md, "Simulators as their own
 * process").
 */
import { ConfigError, loadSimulatorsConfig, type SimulatorsConfig } from './settings.js';
import { createLogger } from '../logger.js';
import { startSimulators } from './server.js';

let config: SimulatorsConfig;
try {
  config = loadSimulatorsConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`configuration error: ${err.message}\n`);
    process.exit(1);
  }
  throw err;
}

const log = createLogger(config.logLevel);

try {
  const running = await startSimulators(config, log);
  process.stdout.write(
    `\nPaygate simulators are running at ${running.url}/sim/ (webhooks to ${config.gatewayUrl})\n\n`,
  );
  let signals = 0;
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () => {
      if (++signals > 1) process.exit(1);
      running.stop().then(
        () => process.exit(0),
        (err: unknown) => {
          log.error({ err }, 'simulators: shutdown failed');
          process.exit(1);
        },
      );
    });
  }
} catch (err) {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
    process.stderr.write(
      `startup error: listening on ${config.host}:${config.port} failed (${code}): set SIMULATORS_PORT (or HOST) to a free one\n`,
    );
  } else {
    log.fatal({ err }, 'simulators failed to start');
  }
  process.exit(1);
}
