/**
 * card_psp HTTP calls (Polar API shape): Bearer access token, JSON in and out. Failures are
 * sorted once here: a 4xx is the provider saying no (its text verbatim); a timeout, a broken
 * connection, 429 or 5xx leaves the outcome unknown.
 */
import { providerExchange, type ProviderAnswer } from '../http.js';
import { ProviderError, type ProviderContext } from '../types.js';
import type { Checkout, CheckoutCreate, Subscription } from './wire.js';

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The provider's own words from an error body: validation details (`detail[].msg`), an
 * OAuth-style `error_description`, a string `detail`, or the raw text.
 */
export function providerErrorText(status: number, text: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text.trim() || `card_psp answered ${status}`;
  }
  if (isObj(body)) {
    if (Array.isArray(body.detail)) {
      const msgs = body.detail
        .map((d) => (isObj(d) && typeof d.msg === 'string' ? d.msg : ''))
        .filter((m) => m !== '');
      if (msgs.length > 0) return msgs.join('; ');
    }
    if (typeof body.error_description === 'string') return body.error_description;
    if (typeof body.detail === 'string') return body.detail;
  }
  return text.trim() || `card_psp answered ${status}`;
}

async function call(
  ctx: ProviderContext,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  extraHeaders: Record<string, string> = {},
): Promise<unknown> {
  const token = ctx.endpoint.credentials.accessToken ?? '';
  let res: ProviderAnswer;
  try {
    res = await providerExchange(`${ctx.endpoint.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...extraHeaders,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: ctx.timeoutMs,
    });
  } catch (err) {
    const name = err instanceof Error ? err.name : '';
    if (name === 'TimeoutError' || name === 'AbortError') {
      throw new ProviderError('indeterminate', `card_psp timed out after ${ctx.timeoutMs} ms`);
    }
    throw new ProviderError('indeterminate', 'card_psp unreachable');
  }
  const text = res.text;
  if (res.status === 429 || res.status >= 500) {
    throw new ProviderError('indeterminate', `card_psp answered ${res.status}`);
  }
  if (res.status >= 400) throw new ProviderError('rejected', providerErrorText(res.status, text));
  try {
    return JSON.parse(text);
  } catch {
    // A 2xx we cannot read: the provider may well have acted on it.
    throw new ProviderError(
      'indeterminate',
      `card_psp answered ${res.status} with an unreadable body`,
    );
  }
}

function requireFields<T>(v: unknown, fields: string[], what: string): T {
  if (!isObj(v) || fields.some((f) => typeof v[f] !== 'string' || v[f] === '')) {
    throw new ProviderError(
      'indeterminate',
      `card_psp ${what} response is missing ${fields.join(', ')}`,
    );
  }
  return v as T;
}

/**
 * POST /v1/checkouts/. The Idempotency-Key (our payment id, also in metadata.payment_id) lets
 * a retried registration get the original checkout back instead of a second one.
 */
export async function createCheckout(
  ctx: ProviderContext,
  idempotencyKey: string,
  body: CheckoutCreate,
): Promise<Checkout> {
  const res = await call(ctx, 'POST', '/v1/checkouts/', body, {
    'idempotency-key': idempotencyKey,
  });
  return requireFields<Checkout>(res, ['id', 'url', 'status'], 'checkout');
}

export async function getCheckout(ctx: ProviderContext, id: string): Promise<Checkout> {
  const res = await call(ctx, 'GET', `/v1/checkouts/${encodeURIComponent(id)}`);
  return requireFields<Checkout>(res, ['id', 'status'], 'checkout');
}

/** A GET of the provider's API, answered as parsed JSON (the list endpoints of reconciliation). */
export function getJson(ctx: ProviderContext, path: string): Promise<unknown> {
  return call(ctx, 'GET', path);
}

export async function getSubscription(ctx: ProviderContext, id: string): Promise<Subscription> {
  const res = await call(ctx, 'GET', `/v1/subscriptions/${encodeURIComponent(id)}`);
  return requireFields<Subscription>(res, ['id', 'status'], 'subscription');
}
