import { providerExchange, type ProviderAnswer } from '../http.js';
import type { ProviderContext } from '../types.js';
import { ProviderError } from '../types.js';
import { WP_HEADER, type WpError, type WpOAuthError, type WpTokenResponse } from './wire.js';

/** A token is renewed this long before the provider says it expires (clock skew, slow calls). */
const TOKEN_RENEW_MARGIN_MS = 5 * 60_000;

interface CachedToken {
  token: string;
  expiresAt: number;
}

/**
 * OAuth tokens per (baseUrl, clientId). A cache, never truth: any instance can fetch its own
 * token, and a 401 drops the entry. Concurrent callers share one in-flight token request.
 */
const tokens = new Map<string, CachedToken>();
const inflight = new Map<string, Promise<CachedToken>>();

/** Tests only: forget every cached token. */
export function clearTokenCache(): void {
  tokens.clear();
  inflight.clear();
}

/** What a REST call needs: the endpoint and a timeout (no payment mode is involved). */
export type CallContext = Pick<ProviderContext, 'endpoint' | 'timeoutMs'>;

export interface WpResponse {
  status: number;
  body: unknown;
}

function credentials(ctx: CallContext): { clientId: string; clientSecret: string } {
  const { clientId, clientSecret } = ctx.endpoint.credentials;
  if (!clientId || !clientSecret) {
    throw new ProviderError('rejected', 'wallet_psp credentials are not configured');
  }
  return { clientId, clientSecret };
}

function cacheKey(ctx: CallContext, clientId: string): string {
  return `${ctx.endpoint.baseUrl}\n${clientId}`;
}

function parseJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The provider's own words for an error answer, verbatim where it gave any. */
export function errorText(status: number, body: unknown): string {
  if (isObject(body)) {
    const err = body as Partial<WpError> & Partial<WpOAuthError>;
    const detail = Array.isArray(err.details) ? err.details[0] : undefined;
    if (detail && typeof detail.description === 'string' && detail.description) {
      return detail.description;
    }
    if (typeof err.message === 'string' && err.message) return err.message;
    if (typeof err.error_description === 'string' && err.error_description) {
      return err.error_description;
    }
    if (typeof err.error === 'string' && err.error) return err.error;
    if (detail && typeof detail.issue === 'string') return detail.issue;
  }
  if (typeof body === 'string' && body.trim()) return body.trim().slice(0, 500);
  return `wallet_psp answered HTTP ${status}`;
}

/** The provider's issue code of an error answer (ORDER_ALREADY_CAPTURED ...), if any. */
export function errorIssue(body: unknown): string | undefined {
  if (!isObject(body)) return undefined;
  const details = (body as Partial<WpError>).details;
  const issue = Array.isArray(details) ? details[0]?.issue : undefined;
  return typeof issue === 'string' ? issue : undefined;
}

/**
 * One HTTP exchange; transport failures are indeterminate (the call may have happened). A
 * redirect is not followed (the credentials stay with the configured host) and counts as
 * unreachable, as fetch's `redirect: 'error'` did.
 */
async function send(
  ctx: CallContext,
  path: string,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
): Promise<WpResponse> {
  let res: ProviderAnswer;
  try {
    res = await providerExchange(ctx.endpoint.baseUrl + path, {
      ...init,
      timeoutMs: ctx.timeoutMs,
    });
  } catch (err) {
    const name = err instanceof Error ? err.name : '';
    if (name === 'TimeoutError' || name === 'AbortError') {
      throw new ProviderError('indeterminate', `wallet_psp timed out after ${ctx.timeoutMs} ms`);
    }
    const cause = err instanceof Error ? err.message : String(err);
    throw new ProviderError('indeterminate', `wallet_psp unreachable: ${cause}`);
  }
  if (res.status >= 300 && res.status < 400) {
    throw new ProviderError('indeterminate', `wallet_psp unreachable: redirected (${res.status})`);
  }
  const body = parseJson(res.text);
  if (res.status >= 500) throw new ProviderError('indeterminate', errorText(res.status, body));
  return { status: res.status, body };
}

async function requestToken(ctx: CallContext): Promise<CachedToken> {
  const { clientId, clientSecret } = credentials(ctx);
  const basic = Buffer.from(`${clientId}:${clientSecret}`, 'utf8').toString('base64');
  const startedAt = Date.now();
  const res = await send(ctx, '/v1/oauth2/token', {
    method: 'POST',
    headers: {
      authorization: `Basic ${basic}`,
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    },
    body: 'grant_type=client_credentials',
  });
  if (res.status !== 200) throw new ProviderError('rejected', errorText(res.status, res.body));
  const body = res.body as Partial<WpTokenResponse> | null;
  if (!isObject(body) || typeof body.access_token !== 'string' || !body.access_token) {
    throw new ProviderError('indeterminate', 'wallet_psp token answer without access_token');
  }
  const lifetimeMs = (typeof body.expires_in === 'number' ? body.expires_in : 0) * 1000;
  const margin = Math.min(TOKEN_RENEW_MARGIN_MS, lifetimeMs / 2);
  return { token: body.access_token, expiresAt: startedAt + lifetimeMs - margin };
}

async function accessToken(ctx: CallContext): Promise<string> {
  const key = cacheKey(ctx, credentials(ctx).clientId);
  const cached = tokens.get(key);
  if (cached && cached.expiresAt > Date.now()) return cached.token;
  let pending = inflight.get(key);
  if (!pending) {
    pending = requestToken(ctx).then(
      (t) => {
        tokens.set(key, t);
        inflight.delete(key);
        return t;
      },
      (err: unknown) => {
        inflight.delete(key);
        throw err;
      },
    );
    inflight.set(key, pending);
  }
  return (await pending).token;
}

function dropToken(ctx: CallContext, token: string): void {
  const key = cacheKey(ctx, credentials(ctx).clientId);
  if (tokens.get(key)?.token === token) tokens.delete(key);
}

/**
 * An authenticated REST call. A 401 means the token was revoked or expired early: drop it,
 * fetch a fresh one and try once more. 4xx answers are returned for the caller to judge.
 */
export async function apiCall(
  ctx: CallContext,
  method: 'GET' | 'POST',
  path: string,
  opts: { body?: unknown; requestId?: string } = {},
): Promise<WpResponse> {
  for (let attempt = 0; ; attempt++) {
    const token = await accessToken(ctx);
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
    };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (opts.requestId) headers[WP_HEADER.requestId] = opts.requestId;
    const res = await send(ctx, path, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    if (res.status !== 401 || attempt > 0) return res;
    dropToken(ctx, token);
  }
}

/** A 4xx answer as the provider's refusal, its text verbatim. */
export function rejected(res: WpResponse): ProviderError {
  return new ProviderError('rejected', errorText(res.status, res.body));
}
