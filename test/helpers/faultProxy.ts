import http from 'node:http';
import type { AddressInfo } from 'node:net';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding']);

/**
 * What the proxy does with one request: pass it on, cut the connection before the gateway
 * sees it, pass it on and cut the connection before the answer reaches the client, or answer
 * by itself.
 */
export type ProxyStep =
  | 'forward'
  | 'drop'
  | 'forward-then-drop'
  | { status: number; body: string; headers?: Record<string, string> };

export interface Seen {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** performance.now() when the request arrived. */
  at: number;
}

/**
 * A real HTTP proxy on loopback in front of a gateway, for testing client retries against
 * real connection failures and real 5xx answers. Steps in `plan` apply to the next requests
 * in order; once the plan is used up every request is forwarded.
 */
export class FaultProxy {
  readonly seen: Seen[] = [];
  plan: ProxyStep[] = [];
  private server: http.Server | null = null;

  constructor(private readonly target: string) {}

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        this.seen.push({
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body: body.toString('utf8'),
          at: performance.now(),
        });
        const step = this.plan.shift() ?? 'forward';
        if (step === 'drop') return req.socket.destroy();
        if (typeof step === 'object') {
          res.writeHead(step.status, {
            'content-type': 'text/plain; charset=utf-8',
            ...step.headers,
          });
          return res.end(step.body);
        }
        this.forward(req, body).then(
          (upstream) => {
            if (step === 'forward-then-drop') return req.socket.destroy();
            res.writeHead(upstream.status, upstream.headers);
            res.end(upstream.body);
          },
          () => req.socket.destroy(),
        );
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return this.url;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
  }

  requests(method: string, pathPrefix: string): Seen[] {
    return this.seen.filter((s) => s.method === method && s.path.startsWith(pathPrefix));
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  private forward(
    req: http.IncomingMessage,
    body: Buffer,
  ): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
    const url = new URL(req.url ?? '/', this.target);
    return new Promise((resolve, reject) => {
      const headers = { ...req.headers, host: url.host };
      const out = http.request(url, { method: req.method, headers }, (up) => {
        const parts: Buffer[] = [];
        up.on('data', (c: Buffer) => parts.push(c));
        up.on('end', () => {
          const h: Record<string, string> = {};
          for (const [k, v] of Object.entries(up.headers)) {
            if (typeof v === 'string' && !HOP_BY_HOP.has(k)) h[k] = v;
          }
          resolve({ status: up.statusCode ?? 502, headers: h, body: Buffer.concat(parts) });
        });
        up.on('error', reject);
      });
      out.on('error', reject);
      out.end(body);
    });
  }
}
