import { createHash, createHmac } from 'node:crypto';

export interface HttpResult {
  status: number;
  text: string;
  headers: Headers;
  json<T = Record<string, unknown>>(): T;
}

/**
 * An independent implementation of docs/api.md#request-signing (not the gateway's own code), so a test
 * catches a gateway that signs or hashes the wrong thing.
 */
export function sign(
  secret: string,
  timestamp: string,
  method: string,
  path: string,
  body: string,
): string {
  const bodyHash = createHash('sha256').update(body, 'utf8').digest('hex');
  return createHmac('sha256', secret)
    .update(`${timestamp}.${method}.${path}.${bodyHash}`)
    .digest('hex');
}

export async function signedFetch(
  baseUrl: string,
  app: { api_key: string; signing_secret: string },
  method: string,
  path: string,
  body?: string | object,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  const raw = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  const ts = String(Math.floor(Date.now() / 1000));
  const signedPath = path.split('?')[0] as string;
  const h: Record<string, string> = {
    'X-PAY-Key': app.api_key,
    'X-PAY-Timestamp': ts,
    'X-PAY-Signature': sign(app.signing_secret, ts, method, signedPath, raw),
    ...headers,
  };
  if (raw !== '') h['Content-Type'] = 'application/json';
  for (const [k, v] of Object.entries(headers)) if (v === '') delete h[k];
  const res = await fetch(baseUrl + path, {
    method,
    headers: h,
    body: raw === '' ? undefined : raw,
  });
  const text = await res.text();
  return { status: res.status, text, headers: res.headers, json: <T>() => JSON.parse(text) as T };
}
