import pino from 'pino';

export type Logger = pino.Logger;

/** Paths that may carry secrets anywhere in a log object; pino replaces them. */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-pay-signature"]',
  'headers.authorization',
  '*.signing_secret',
  '*.webhook_secret',
  '*.signingSecret',
  '*.webhookSecret',
  '*.password',
  '*.serverKey',
  '*.accessToken',
  '*.clientSecret',
  'signing_secret',
  'webhook_secret',
  'adminToken',
  'masterKey',
  'databaseUrl',
];

/** destination: stdout unless given (tests capture the output to check what is logged). */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options = { level, redact: { paths: REDACT, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}
