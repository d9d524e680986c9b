import { createHash, createHmac } from 'node:crypto';

/** Signed-request headers (docs/api.md#request-signing) for a request, computed by the load generator per request. */
export function signedHeaders(
  app: { api_key: string; signing_secret: string },
  method: string,
  path: string,
  body: string,
): Record<string, string> {
  const ts = String(Math.floor(Date.now() / 1000));
  const hash = createHash('sha256').update(body).digest('hex');
  return {
    'x-pay-key': app.api_key,
    'x-pay-timestamp': ts,
    'x-pay-signature': createHmac('sha256', app.signing_secret)
      .update(`${ts}.${method}.${path}.${hash}`)
      .digest('hex'),
  };
}
