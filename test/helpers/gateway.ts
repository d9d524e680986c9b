import { randomBytes } from 'node:crypto';
import { startGateway, type RunningGateway, type StartOptions } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger, type Logger } from '../../src/logger.js';
import type { AppWithSecrets } from './contract.js';
import type { SimClock } from '../../src/simulators/index.js';
import { createTestDatabase } from './db.js';
import { signedFetch, type HttpResult } from './http.js';
import { TestNetwork } from './network.js';
import { stopWatching, watchGateway } from './openapiCheck.js';
import { Receiver } from './receiver.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

export interface TestGateway {
  running: RunningGateway;
  url: string;
  config: Config;
  databaseUrl: string;
  /** Resolves webhook hosts and points their sockets at loopback (helpers/network.ts). */
  network: TestNetwork;
  /** The clock of the simulators this gateway mounts (test mode); throws when it mounts none. */
  readonly simClock: SimClock;
  admin(method: string, path: string, body?: unknown, token?: string): Promise<HttpResult>;
  createApp(body?: Record<string, unknown>): Promise<AppWithSecrets>;
  /** Signed /v1 request as the given app (docs/api.md#request-signing). */
  v1(
    app: AppWithSecrets,
    method: string,
    path: string,
    body?: string | object,
    headers?: Record<string, string>,
  ): Promise<HttpResult>;
  stop(): Promise<void>;
}

/**
 * A real gateway over real HTTP on an OS-chosen port, on its own database cloned from
 * the migrated template. env entries override the defaults (as environment variables).
 * With `sharing`, a second instance on the first one's database and master key.
 */
export async function startTestGateway(
  env: Record<string, string> = {},
  opts: Omit<StartOptions, 'webhookNetwork'> & {
    network?: TestNetwork;
    /** A database the test made itself (dropped at stop); env may reach it another way. */
    database?: { url: string; drop(): Promise<void> };
    /** Where the gateway logs (a test that checks log lines); default: TEST_LOG_LEVEL. */
    log?: Logger;
  } = {},
  sharing?: TestGateway,
): Promise<TestGateway> {
  const network = opts.network ?? sharing?.network ?? new TestNetwork();
  const db = sharing
    ? { url: sharing.databaseUrl, drop: async () => undefined }
    : (opts.database ?? (await createTestDatabase()));
  const config = loadConfig({
    DATABASE_URL: db.url,
    PORT: '0',
    HOST: '127.0.0.1',
    ADMIN_TOKEN,
    MASTER_KEY: sharing
      ? sharing.config.masterKey.toString('hex')
      : randomBytes(32).toString('hex'),
    DATA_DIR: '/nonexistent-test-data-dir',
    DELIVERY_BASE_DELAY_MS: '50',
    DELIVERY_MAX_DELAY_MS: '200',
    DELIVERY_TIMEOUT_MS: '2000',
    ...env,
  });
  const { log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'), ...startOpts } = opts;
  const running = await startGateway(config, log, { ...startOpts, webhookNetwork: network });
  const url = running.url;
  // Every answer of this gateway that the test process receives must be one the OpenAPI
  // document describes (test/helpers/openapiCheck.ts).
  watchGateway(url);
  const admin = async (method: string, path: string, body?: unknown, token = ADMIN_TOKEN) => {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(url + path, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text, headers: res.headers, json: <T>() => JSON.parse(text) as T };
  };
  return {
    running,
    url,
    config,
    databaseUrl: db.url,
    network,
    get simClock() {
      if (!running.simulators) throw new Error('this gateway mounts no simulators');
      return running.simulators.clock;
    },
    admin,
    async createApp(body = {}) {
      const res = await admin('POST', '/admin/apps', { name: 'Test shop', ...body });
      if (res.status !== 201) throw new Error(`createApp: ${res.status} ${res.text}`);
      return res.json<AppWithSecrets>();
    },
    v1: (app, method, path, body, headers) => signedFetch(url, app, method, path, body, headers),
    async stop() {
      await running.stop();
      await db.drop();
      stopWatching(url);
    },
  };
}

export interface GatewayWithReceiver {
  gw: TestGateway;
  receiver: Receiver;
  app: AppWithSecrets;
  stop(): Promise<void>;
}

/** A test gateway, a receiver for its outbound webhooks, and an app that delivers there. */
export async function startWithReceiver(
  env: Record<string, string> = {},
  appBody: Record<string, unknown> = {},
): Promise<GatewayWithReceiver> {
  const gw = await startTestGateway(env);
  const receiver = new Receiver();
  await receiver.start();
  const app = await gw.createApp({ ...appBody, webhook_url: receiver.url });
  receiver.secret = app.webhook_secret;
  return {
    gw,
    receiver,
    app,
    async stop() {
      await receiver.stop();
      await gw.stop();
    },
  };
}
