import { connect, type Socket } from 'node:net';
import { checkRawAnswer } from './openapiCheck.js';

/**
 * One raw TCP connection to the gateway, so a test can send malformed or half-finished
 * requests and see the exact bytes the server answers.
 */
export class RawSocket {
  readonly sock: Socket;
  private chunks: Buffer[] = [];
  private readonly closedPromise: Promise<void>;
  closed = false;

  constructor(url: string) {
    const u = new URL(url);
    this.sock = connect(Number(u.port), u.hostname);
    this.sock.on('data', (d: Buffer) => this.chunks.push(d));
    this.sock.on('error', () => undefined);
    this.closedPromise = new Promise((resolve) =>
      this.sock.on('close', () => {
        this.closed = true;
        resolve();
      }),
    );
  }

  connected(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.sock.connecting) return resolve();
      this.sock.once('connect', () => resolve());
    });
  }

  write(data: string | Buffer): void {
    if (!this.closed && this.sock.writable) this.sock.write(data);
  }

  received(): string {
    return Buffer.concat(this.chunks).toString('latin1');
  }

  /**
   * Resolves 'closed' once the server has closed the connection, or 'open' if it is still
   * open after guardMs (a guard against hanging on a server that never closes it).
   */
  async closedOrStillOpenAfter(guardMs: number): Promise<'closed' | 'open'> {
    let timer: NodeJS.Timeout | undefined;
    const guard = new Promise<'open'>((resolve) => {
      timer = setTimeout(() => resolve('open'), guardMs);
    });
    const result = await Promise.race([this.closedPromise.then(() => 'closed' as const), guard]);
    clearTimeout(timer);
    return result;
  }

  destroy(): void {
    this.sock.destroy();
  }
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Parses one complete HTTP/1.1 response with a Content-Length; null if there is none yet. */
export function parseResponse(raw: string): RawResponse | null {
  const end = raw.indexOf('\r\n\r\n');
  if (end === -1) return null;
  const [statusLine = '', ...lines] = raw.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  const body = Buffer.from(raw.slice(end + 4), 'latin1');
  if (body.length < length) return null;
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: body.subarray(0, length).toString('utf8'),
  };
}

/** Sends bytes on a fresh connection and returns what came back once the server closed it. */
export async function rawExchange(url: string, data: string | Buffer, guardMs = 10_000) {
  const s = new RawSocket(url);
  await s.connected();
  s.write(data);
  const state = await s.closedOrStillOpenAfter(guardMs);
  s.destroy();
  const response = parseResponse(s.received());
  // Checked against the OpenAPI document when the URL is a watched test gateway.
  if (response) checkRawAnswer(url, data.toString('latin1'), response);
  return { state, raw: s.received(), response };
}

/** Sends one request with Connection: close and returns the parsed response. */
export async function rawRequest(url: string, data: string | Buffer): Promise<RawResponse> {
  const { raw, response } = await rawExchange(url, data);
  if (!response) throw new Error(`no complete response; received ${JSON.stringify(raw)}`);
  return response;
}
