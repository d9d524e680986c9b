import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  signatureValid: boolean;
  at: number;
}

export type Behaviour = (
  index: number,
  req: Received,
) => {
  status: number;
  delayMs?: number;
  body?: string | Buffer;
  /** The answer waits for this too (a receiver held until the test lets it go). */
  heldUntil?: Promise<unknown>;
};

/**
 * An app's webhook endpoint for tests. It checks X-PAY-Signature with its own HMAC code
 * (docs/api.md#webhook-signing: `<timestamp>.<raw_body>` under the webhook secret), independent of the gateway.
 */
export class Receiver {
  readonly received: Received[] = [];
  secret = '';
  behaviour: Behaviour = () => ({ status: 200 });
  private server: http.Server | null = null;
  port = 0;

  async start(port = 0): Promise<string> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const entry: Received = {
          headers: req.headers,
          body,
          signatureValid: this.check(req.headers, body),
          at: Date.now(),
        };
        const index = this.received.length;
        this.received.push(entry);
        const { status, delayMs, body: answer, heldUntil } = this.behaviour(index, entry);
        const reply = () =>
          setTimeout(() => {
            if (!res.destroyed) res.writeHead(status).end(answer);
          }, delayMs ?? 0);
        if (heldUntil) void heldUntil.then(reply);
        else reply();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this.url;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  private check(headers: http.IncomingHttpHeaders, body: string): boolean {
    const ts = headers['x-pay-timestamp'];
    const sig = headers['x-pay-signature'];
    if (typeof ts !== 'string' || typeof sig !== 'string' || !this.secret) return false;
    const expected = createHmac('sha256', this.secret).update(`${ts}.${body}`).digest('hex');
    return (
      expected.length === sig.length && timingSafeEqual(Buffer.from(expected), Buffer.from(sig))
    );
  }

  /** Waits (bounded) until n requests arrived. */
  async waitFor(n: number, timeoutMs = 15_000): Promise<Received[]> {
    const until = Date.now() + timeoutMs;
    while (this.received.length < n) {
      if (Date.now() > until)
        throw new Error(`receiver got ${this.received.length} of ${n} requests`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.received;
  }
}
