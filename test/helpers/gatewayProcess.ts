/**
 * The set-up of a test file that runs the real gateway as its own OS process, so that it can
 * kill it mid-work and see a crash as one: a database of the file's own, a pool on it for the
 * test's own reads and writes beside the gateway's, a webhook receiver, and gateway processes
 * on that database, started and restarted with one environment.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before } from 'node:test';
import pg from 'pg';
import type { AppWithSecrets } from './contract.js';
import { createTestDatabase } from './db.js';
import { kill, spawnGateway, type GatewayProcess } from './process.js';
import { Receiver } from './receiver.js';

export interface GatewayProcessHarness {
  /** On the file's database, beside the gateway's own connections. */
  readonly pool: pg.Pool;
  /** The webhook endpoint of the apps createApp makes; which app's secret it checks is the test's choice. */
  readonly receiver: Receiver;
  /** Every gateway of the file runs with it (hex), so a restarted one opens what an earlier one sealed. */
  readonly masterKeyHex: string;
  /** A gateway process on the file's database, ready (GET /readyz answered 200). */
  startGateway(): Promise<GatewayProcess>;
  /** Sends the signal and waits for the process to exit; its exit code (null when a signal ended it). */
  killGateway(gateway: GatewayProcess, signal: NodeJS.Signals): Promise<number | null>;
  /** An app (POST /admin/apps, 201) whose webhooks go to the receiver. */
  createApp(gateway: GatewayProcess, name: string): Promise<AppWithSecrets>;
}

/**
 * Registers the file's before and after hooks: call it at the file's top level and read its
 * fields inside tests. `env` is the gateways' environment beyond the database, admin token
 * and master key, which the harness sets. Gateways still running after the tests are
 * SIGKILLed.
 */
export function gatewayProcessHarness(env: Record<string, string> = {}): GatewayProcessHarness {
  const masterKeyHex = randomBytes(32).toString('hex');
  const adminToken = randomBytes(24).toString('hex');
  const running = new Set<GatewayProcess>();
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let pool: pg.Pool | undefined;
  let receiver: Receiver | undefined;

  before(async () => {
    db = await createTestDatabase();
    pool = new pg.Pool({ connectionString: db.url, max: 4 });
    // An idle client's error (its session ended by the server) shows at the next query;
    // unhandled it would end the test file's process.
    pool.on('error', () => undefined);
    receiver = new Receiver();
    await receiver.start();
  });
  after(async () => {
    // Every process is ended even when one's answers broke the OpenAPI document (kill throws
    // then): a leaked child keeps the test file's process alive for good.
    const killed = await Promise.allSettled([...running].map((g) => killGateway(g, 'SIGKILL')));
    await receiver?.stop();
    await pool?.end();
    await db?.drop();
    for (const k of killed) if (k.status === 'rejected') throw k.reason;
  });

  async function killGateway(gateway: GatewayProcess, signal: NodeJS.Signals) {
    running.delete(gateway);
    return kill(gateway, signal);
  }

  const ready = <T>(what: string, value: T | undefined): T => {
    assert.ok(value, `${what} is set up by the harness's before hook: read it inside a test`);
    return value;
  };

  return {
    get pool() {
      return ready('the pool', pool);
    },
    get receiver() {
      return ready('the receiver', receiver);
    },
    masterKeyHex,
    async startGateway() {
      const gateway = await spawnGateway({
        ...env,
        DATABASE_URL: ready('the database', db).url,
        ADMIN_TOKEN: adminToken,
        MASTER_KEY: masterKeyHex,
      });
      running.add(gateway);
      return gateway;
    },
    killGateway,
    async createApp(gateway, name) {
      const res = await fetch(`${gateway.url}/admin/apps`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name, webhook_url: ready('the receiver', receiver).url }),
      });
      assert.equal(res.status, 201, await res.clone().text());
      return (await res.json()) as AppWithSecrets;
    },
  };
}
