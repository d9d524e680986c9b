/**
 * The simulators' own settings, when they run as their own process (`npm run simulators`,
 * src/simulators/main.ts): one schema of variables (src/config/vars.ts) from which reading,
 * the type and docs/operations.md's "Simulators as their own process" table derive.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseMasterKey } from '../config/secrets.js';
import {
  ConfigError,
  custom,
  docRows,
  integer,
  parseHttpUrl,
  parseInteger,
  readAll,
  text,
  url,
  type Env,
  type SettingDoc,
} from '../config/vars.js';

/** The one error class of configuration, for main.ts to tell it from a crash. */
export { ConfigError } from '../config/vars.js';

function required(message: string): () => never {
  return () => {
    throw new ConfigError(message);
  };
}

const DATABASE_URL_TEXT =
  "DATABASE_URL must be a postgres:// URL (the gateway's database, or one for the simulators)";

export const SIMULATORS_VARS = {
  PAYGATE_ENV: custom({
    type: 'choice',
    default: 'development',
    emptyIsValue: true,
    parse: (raw) => {
      if (raw === 'production') {
        throw new ConfigError('the simulators cannot run when PAYGATE_ENV=production');
      }
      return raw;
    },
    description: '`production` is refused: the simulators take no authentication',
  }),
  DATABASE_URL: custom<string>({
    type: 'text',
    default: required(DATABASE_URL_TEXT),
    shownDefault: 'required',
    parse: (raw) => {
      if (!/^postgres(ql)?:\/\//.test(raw)) throw new ConfigError(DATABASE_URL_TEXT);
      return raw;
    },
    description:
      "where the simulators keep their state (their own schema `paygate_sim`, made at their start): the gateway's database, or one of their own",
  }),
  MASTER_KEY: custom({
    type: 'key',
    secret: true,
    default: undefined as Buffer | undefined,
    shownDefault: '`DATA_DIR/master.key`',
    parse: parseMasterKey,
    description:
      "the gateway's master key: the test-mode credentials both sides use derive from it. Never generated here: without either, a configuration error",
  }),
  DATA_DIR: text({
    default: './data',
    description: 'where the gateway keeps its generated `master.key` (development)',
  }),
  GATEWAY_URL: custom<string>({
    type: 'url',
    default: required("GATEWAY_URL is required: the gateway's base URL, where webhooks go"),
    shownDefault: 'required',
    parse: parseHttpUrl,
    description: "the gateway's base URL; webhooks go to `GATEWAY_URL/webhooks/<provider>`",
  }),
  SIMULATORS_PORT: integer({
    default: (_read, env) => (env.PORT ? parseInteger(env.PORT, 'PORT', 0, 65535) : 8090),
    min: 0,
    max: 65535,
    shownDefault: '`PORT`, else `8090`',
    description: 'HTTP port',
  }),
  HOST: text({
    default: '127.0.0.1',
    description:
      'listen address (the routes take no authentication: loopback unless you choose otherwise)',
  }),
  SIMULATORS_URL: url({
    shownDefault: '`http://127.0.0.1:<port>`',
    description:
      "where the gateway reaches them: the same value as the gateway's `SIMULATORS_URL` (wallet_psp's webhook certificate URL must have its origin)",
  }),
  SIMULATORS_PUBLIC_URL: url({
    shownDefault: '`http://localhost:<port>`',
    description: 'base of the checkout page URLs a browser follows',
  }),
  PROVIDER_TIMEOUT_MS: integer({
    default: 15_000,
    min: 100,
    max: 120_000,
    description:
      "the gateway's value: a lost answer (`registration_timeout`, `refund_timeout`) is held past it",
  }),
  SIM_OBJECTS_RETENTION_DAYS: integer({
    default: 30,
    min: 1,
    max: 36500,
    description:
      'their objects neither created nor changed for this many days are deleted, at start and every 10 minutes (1..36500; see [Retention](#retention))',
  }),
  LOG_LEVEL: text({ default: 'info', description: 'pino level' }),
};

/** The rows of docs/operations.md "Simulators as their own process". */
export const SIMULATORS_SETTINGS: readonly SettingDoc[] = docRows(SIMULATORS_VARS);

export interface SimulatorsConfig {
  port: number;
  host: string;
  /** Where their schema (paygate_sim) lives: the gateway's database, or one of their own. */
  databaseUrl: string;
  /** The gateway's master key: the test-mode credentials both sides use derive from it. */
  masterKey: Buffer;
  /** The gateway the simulators send webhooks to (its /webhooks/<provider>). */
  gatewayUrl: string;
  /**
   * Where the gateway reaches the simulators: its SIMULATORS_URL, the providers' base URL
   * (wallet_psp's certificate URL must share its origin). Undefined: http://127.0.0.1:<port>.
   */
  selfUrl: string | undefined;
  /** Base of URLs a browser follows to the simulators' pages. Undefined: http://localhost:<port>. */
  publicBaseUrl: string | undefined;
  /** The gateway's PROVIDER_TIMEOUT_MS: a lost answer is held past it. */
  providerTimeoutMs: number;
  /** Their objects neither created nor changed for this many days are deleted. */
  simObjectsRetentionDays: number;
  logLevel: string;
}

export function loadSimulatorsConfig(env: Env = process.env): SimulatorsConfig {
  const v = readAll(SIMULATORS_VARS, env);
  return {
    port: v.SIMULATORS_PORT,
    host: v.HOST,
    databaseUrl: v.DATABASE_URL,
    gatewayUrl: v.GATEWAY_URL,
    selfUrl: v.SIMULATORS_URL,
    publicBaseUrl: v.SIMULATORS_PUBLIC_URL,
    providerTimeoutMs: v.PROVIDER_TIMEOUT_MS,
    simObjectsRetentionDays: v.SIM_OBJECTS_RETENTION_DAYS,
    logLevel: v.LOG_LEVEL,
    masterKey: v.MASTER_KEY ?? keptMasterKey(path.resolve(v.DATA_DIR)),
  };
}

/** The gateway's key from its DATA_DIR; never generated here, or the two would disagree. */
function keptMasterKey(dataDir: string): Buffer {
  const keyFile = path.join(dataDir, 'master.key');
  if (!existsSync(keyFile)) {
    throw new ConfigError(
      `MASTER_KEY is required (the gateway's), or DATA_DIR holding the gateway's master.key (${keyFile} does not exist)`,
    );
  }
  const key = Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'hex');
  if (key.length !== 32) throw new ConfigError(`${keyFile} is damaged: set MASTER_KEY`);
  return key;
}
