import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { Duplex } from 'node:stream';
import { storableText } from '../domain/storableText.js';
import { dialAddresses, type WebhookNetwork } from './network.js';

export interface SendResult {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** The first RESPONSE_BODY_LIMIT bytes of the receiver's answer as storable text; null without an answer. */
  responseBody: string | null;
}

/** How much of a receiver's answer an attempt keeps (docs/api.md#delivery-and-retries): 1 KiB, as svix does. */
export const RESPONSE_BODY_LIMIT = 1024;

/**
 * The first RESPONSE_BODY_LIMIT bytes of an answer as text that PostgreSQL can hold. Bytes
 * that are not UTF-8 become U+FFFD (a receiver's answer is what it said, never a reason to
 * lose the attempt); a character cut by the limit is dropped rather than shown as U+FFFD,
 * since it was valid and only the cut broke it. NUL becomes U+FFFD (storableText).
 */
export function responseBodyText(head: Buffer, truncated: boolean): string {
  const kept = head.subarray(0, RESPONSE_BODY_LIMIT);
  // stream: true holds back an incomplete sequence at the end instead of replacing it.
  const text = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(kept, {
    stream: truncated || head.length > RESPONSE_BODY_LIMIT,
  });
  return storableText(text);
}

type ConnectionOptions = http.ClientRequestArgs;
type ConnectionCallback = (err: Error | null, stream: Duplex) => void;
type Dial = (options: ConnectionOptions) => Promise<ConnectionOptions>;

/** A lookup that answers with addresses already checked, whatever name it is asked for. */
function fixedLookup(addresses: LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const first = addresses[0] as LookupAddress;
    if (options.all)
      return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    callback(null, first.address, first.family);
  };
}

/**
 * Every new socket of the agent first passes `dial`: the host is resolved and checked once,
 * and the socket connects only to the checked addresses (no second resolution, so no
 * DNS-rebinding window). A kept-alive socket stays with the agent that checked it.
 */
function connectThroughDial(
  dial: Dial,
  options: ConnectionOptions,
  callback: ConnectionCallback | undefined,
  create: (options: ConnectionOptions) => Duplex | null | undefined,
): undefined {
  dial(options).then(
    (checked) => {
      try {
        const socket = create(checked);
        if (socket) callback?.(null, socket);
      } catch (err) {
        callback?.(err as Error, undefined as unknown as Duplex);
      }
    },
    (err: Error) => callback?.(err, undefined as unknown as Duplex),
  );
  return undefined;
}

class DialingHttpAgent extends http.Agent {
  constructor(private readonly dial: Dial) {
    super({ keepAlive: true, maxSockets: 64 });
  }

  override createConnection(options: ConnectionOptions, callback?: ConnectionCallback) {
    return connectThroughDial(this.dial, options, callback, (o) => super.createConnection(o));
  }
}

class DialingHttpsAgent extends https.Agent {
  constructor(private readonly dial: Dial) {
    super({ keepAlive: true, maxSockets: 64 });
  }

  override createConnection(options: https.RequestOptions, callback?: ConnectionCallback) {
    return connectThroughDial(this.dial, options, callback, (o) => super.createConnection(o));
  }
}

interface AgentPair {
  http: http.Agent;
  https: https.Agent;
}

/**
 * Sends outbound webhooks. Public-only deliveries (live apps) and local-allowed ones (test
 * and sandbox apps) use separate keep-alive agents, so a socket one kind opened is never
 * reused by the other.
 */
export class WebhookSender {
  private readonly publicOnly: AgentPair;
  private readonly localAllowed: AgentPair;

  constructor(private readonly network: WebhookNetwork) {
    this.publicOnly = this.agents(true);
    this.localAllowed = this.agents(false);
  }

  private agents(publicOnly: boolean): AgentPair {
    const dial: Dial = async (options) => {
      const host = options.host ?? options.hostname ?? 'localhost';
      const addresses = await dialAddresses(this.network, host, publicOnly);
      // A literal never goes through lookup, so the socket is pointed at the checked address.
      if (isIP(host.replace(/^\[|\]$/g, '')) !== 0) {
        return { ...options, host: (addresses[0] as LookupAddress).address };
      }
      return { ...options, lookup: fixedLookup(addresses) };
    };
    return { http: new DialingHttpAgent(dial), https: new DialingHttpsAgent(dial) };
  }

  /** Closes kept-alive sockets (at shutdown). */
  close(): void {
    for (const pair of [this.publicOnly, this.localAllowed]) {
      pair.http.destroy();
      pair.https.destroy();
    }
  }

  /** One POST with a hard timeout; the answer's first 1 KiB is kept, the rest drained. */
  post(
    url: string,
    headers: Record<string, string>,
    body: string,
    timeoutMs: number,
    publicOnly: boolean,
  ): Promise<SendResult> {
    const started = performance.now();
    const done = (
      statusCode: number | null,
      error: string | null,
      responseBody: string | null = null,
    ): SendResult => ({
      statusCode,
      error,
      durationMs: Math.round(performance.now() - started),
      responseBody,
    });
    return new Promise((resolve) => {
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        return resolve(done(null, 'invalid webhook_url'));
      }
      const isHttps = target.protocol === 'https:';
      const agents = publicOnly ? this.publicOnly : this.localAllowed;
      const payload = Buffer.from(body, 'utf8');
      const req = (isHttps ? https : http).request(
        target,
        {
          method: 'POST',
          agent: isHttps ? agents.https : agents.http,
          headers: { ...headers, 'content-length': String(payload.length) },
        },
        (res) => {
          const head: Buffer[] = [];
          let kept = 0;
          let truncated = false;
          res.on('data', (chunk: Buffer) => {
            if (kept >= RESPONSE_BODY_LIMIT) {
              truncated = true;
              return;
            }
            head.push(chunk);
            kept += chunk.length;
          });
          const answer = () => responseBodyText(Buffer.concat(head), truncated);
          res.on('end', () => resolve(done(res.statusCode ?? null, null, answer())));
          // The status arrived, so the attempt is judged by it; the body is what came.
          res.on('error', () => resolve(done(res.statusCode ?? null, null, answer())));
        },
      );
      // One timer bounds the whole attempt (connect, send, answer); no socket idle timer
      // besides, which would be re-armed on every chunk.
      const timer = setTimeout(
        () => req.destroy(new Error(`timeout after ${timeoutMs} ms`)),
        timeoutMs,
      );
      req.on('error', (err) => resolve(done(null, err.message)));
      req.on('close', () => clearTimeout(timer));
      req.end(payload);
    });
  }
}
