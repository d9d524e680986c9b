import type pg from 'pg';
import {
  checkPrimary,
  clientClass,
  CONNECTION_SETTINGS,
  locatorFor,
  type PrimaryLocator,
} from './connection.js';

type Handler = (payload: string) => void;

interface Log {
  warn(obj: object, msg: string): void;
}

/**
 * One LISTEN connection per process, shared by every subscriber (delivery wake-ups, cache
 * invalidation). A notification sent while the connection was down is lost, so after a
 * reconnect every subscriber's onReset runs (caches drop everything, workers poll).
 */
export class Listener {
  private client: pg.Client | null = null;
  private readonly handlers = new Map<string, Handler[]>();
  private readonly resets: (() => void)[] = [];
  private closed = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private readonly Client: typeof pg.Client;
  private readonly locator: PrimaryLocator;

  /**
   * connection: a URL, or the locator of the primary. Never through PgBouncer's transaction
   * pooling, where a LISTEN would stay on a server connection other clients then use.
   */
  constructor(
    connection: string | PrimaryLocator,
    private readonly log: Log,
  ) {
    this.locator = locatorFor(connection);
    this.Client = clientClass(this.locator, CONNECTION_SETTINGS);
  }

  on(channel: string, handler: Handler): void {
    if (!/^[a-z_]+$/.test(channel)) throw new Error(`bad channel name ${channel}`);
    const list = this.handlers.get(channel) ?? [];
    list.push(handler);
    this.handlers.set(channel, list);
  }

  onReset(fn: () => void): void {
    this.resets.push(fn);
  }

  async start(): Promise<void> {
    await this.connect();
  }

  private async connect(): Promise<void> {
    const client = new this.Client();
    client.on('notification', (msg) => {
      for (const h of this.handlers.get(msg.channel) ?? []) h(msg.payload ?? '');
    });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    try {
      await client.connect();
      // A standby (or a demoted primary) never sees the NOTIFYs the primary's commits send.
      await checkPrimary(client, this.locator);
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${channel}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    this.client = client;
  }

  private lost(client: pg.Client, err: Error): void {
    if (this.client !== client || this.closed) return;
    this.client = null;
    this.log.warn({ err }, 'LISTEN connection lost; reconnecting');
    for (const r of this.resets) r();
    const retry = () => {
      this.retryTimer = null;
      if (this.closed) return;
      this.connect().then(
        () => {
          for (const r of this.resets) r();
        },
        () => {
          this.retryTimer = setTimeout(retry, 1000);
        },
      );
    };
    this.retryTimer = setTimeout(retry, 100);
  }

  async stop(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => undefined);
  }
}
