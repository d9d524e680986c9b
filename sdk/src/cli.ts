#!/usr/bin/env node
/**
 * The `paygate` command of the SDK package. One subcommand:
 *   paygate listen --forward-to http://localhost:3000/hook
 * Credentials from --base-url/--api-key/--signing-secret or PAYGATE_URL, PAYGATE_API_KEY,
 * PAYGATE_SIGNING_SECRET; --secret fixes the forwarding secret (default: a fresh one).
 */
import { parseArgs } from 'node:util';
import { listen } from './listen.js';

const USAGE = `usage: paygate listen --forward-to <url> [--base-url <url>] [--api-key pk_...]
       [--signing-secret sk_...] [--secret whsec_...] [--interval-ms 1000]`;

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (command !== 'listen') fail(command ? `unknown command: ${command}` : 'no command');
  let values;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: {
        'forward-to': { type: 'string' },
        'base-url': { type: 'string' },
        'api-key': { type: 'string' },
        'signing-secret': { type: 'string' },
        secret: { type: 'string' },
        'interval-ms': { type: 'string' },
      },
    }));
  } catch (err) {
    fail((err as Error).message);
  }
  const forwardTo = values['forward-to'];
  if (!forwardTo) fail('--forward-to is required');
  const apiKey = values['api-key'] ?? process.env.PAYGATE_API_KEY;
  const signingSecret = values['signing-secret'] ?? process.env.PAYGATE_SIGNING_SECRET;
  if (!apiKey || !signingSecret) {
    fail('an api key and signing secret are required (--api-key/--signing-secret or env)');
  }
  const interval = Number(values['interval-ms'] ?? '1000');
  if (!Number.isInteger(interval) || interval < 100)
    fail('--interval-ms must be an integer >= 100');
  const controller = new AbortController();
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => controller.abort());
  }
  await listen({
    baseUrl: values['base-url'] ?? process.env.PAYGATE_URL ?? 'http://localhost:8080',
    apiKey,
    signingSecret,
    forwardTo,
    secret: values.secret,
    intervalMs: interval,
    signal: controller.signal,
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`paygate: ${(err as Error).message}\n`);
  process.exit(1);
});
