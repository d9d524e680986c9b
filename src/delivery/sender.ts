import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isPrivateAddress, isPrivateUrlHost } from '../domain/addresses.js';

export interface SendResult {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 64 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

/**
 * Resolves like dns.lookup but refuses private addresses. Used as the socket's lookup, the
 * check covers the address actually connected to (no DNS-rebinding window).
 */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 0);
    const bad = addresses.find((a) => isPrivateAddress(a.address));
    if (bad || addresses.length === 0) {
      return callback(
        new Error(`webhook_url resolves to a private address (${bad?.address ?? 'none'})`),
        '',
        0,
      );
    }
    if (options.all)
      return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    const first = addresses[0] as LookupAddress;
    callback(null, first.address, first.family);
  });
};

/** One POST with a hard timeout; the response body is not read beyond draining it. */
export function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  publicOnly: boolean,
): Promise<SendResult> {
  const started = performance.now();
  const done = (statusCode: number | null, error: string | null): SendResult => ({
    statusCode,
    error,
    durationMs: Math.round(performance.now() - started),
  });
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return resolve(done(null, 'invalid webhook_url'));
    }
    // An address literal never goes through lookup: check it here.
    if (publicOnly && isPrivateUrlHost(url))
      return resolve(done(null, 'webhook_url is not a public address'));
    const isHttps = target.protocol === 'https:';
    const payload = Buffer.from(body, 'utf8');
    const req = (isHttps ? https : http).request(
      target,
      {
        method: 'POST',
        agent: isHttps ? agents.https : agents.http,
        headers: { ...headers, 'content-length': String(payload.length) },
        lookup: publicOnly ? publicOnlyLookup : undefined,
        timeout: timeoutMs,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(done(res.statusCode ?? null, null)));
        res.on('error', () => resolve(done(res.statusCode ?? null, null)));
      },
    );
    const timer = setTimeout(
      () => req.destroy(new Error(`timeout after ${timeoutMs} ms`)),
      timeoutMs,
    );
    req.on('timeout', () => req.destroy(new Error(`timeout after ${timeoutMs} ms`)));
    req.on('error', (err) => resolve(done(null, err.message)));
    req.on('close', () => clearTimeout(timer));
    req.end(payload);
  });
}
