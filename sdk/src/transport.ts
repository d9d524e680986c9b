import { createHash, createHmac } from 'node:crypto';
import {
  errorForStatus,
  PaygateConnectionError,
  PaygateError,
  RETRYABLE_STATUSES,
} from './errors.js';

export interface RetryOptions {
  /** Retries after the first attempt; default 3. */
  maxRetries?: number;
  /** First backoff delay; it doubles each retry (with jitter). Default 500 ms. */
  baseDelayMs?: number;
  /** Largest backoff delay, and the cap on a Retry-After the gateway asks for. Default 10 s. */
  maxDelayMs?: number;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  signingSecret: string;
  /** Per attempt; default 30 s. */
  timeoutMs?: number;
  retry?: RetryOptions;
}

export interface RequestOptions {
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/**
 * Signs and sends /v1 requests. Network errors and 500, 503 and 504 answers are retried with
 * exponential backoff; a POST keeps the same raw body and Idempotency-Key on every attempt,
 * so the gateway replays the first success or resumes the payment it holds instead of
 * processing twice. 4xx and 502 (the provider refused) are final.
 */
export class Transport {
  private readonly base: URL;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(private readonly o: TransportOptions) {
    if (!o.baseUrl) throw new TypeError('Paygate: baseUrl is required');
    if (!o.apiKey) throw new TypeError('Paygate: apiKey is required');
    if (!o.signingSecret) throw new TypeError('Paygate: signingSecret is required');
    this.base = new URL(o.baseUrl);
    this.timeoutMs = o.timeoutMs ?? 30_000;
    this.maxRetries = o.retry?.maxRetries ?? 3;
    this.baseDelayMs = o.retry?.baseDelayMs ?? 500;
    this.maxDelayMs = o.retry?.maxDelayMs ?? 10_000;
  }

  async request<T>(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    options: RequestOptions = {},
  ): Promise<T> {
    // A base URL with a path (a gateway behind a path prefix) keeps it.
    const url = new URL(this.base.pathname.replace(/\/+$/, '') + path, this.base.origin);
    // Serialized once: retries must send the very same bytes for the idempotent replay.
    const raw = body === undefined ? '' : JSON.stringify(body);
    const bodyHash = createHash('sha256').update(raw, 'utf8').digest('hex');
    for (let attempt = 0; ; attempt++) {
      options.signal?.throwIfAborted();
      const timestamp = String(Math.floor(Date.now() / 1000));
      const signature = createHmac('sha256', this.o.signingSecret)
        .update(`${timestamp}.${method}.${url.pathname}.${bodyHash}`, 'utf8')
        .digest('hex');
      const headers: Record<string, string> = {
        'X-PAY-Key': this.o.apiKey,
        'X-PAY-Timestamp': timestamp,
        'X-PAY-Signature': signature,
        Accept: 'application/json',
      };
      if (raw !== '') headers['Content-Type'] = 'application/json';
      if (options.idempotencyKey !== undefined) headers['Idempotency-Key'] = options.idempotencyKey;

      const attemptSignal = withTimeout(options.signal, this.timeoutMs);
      let failure: PaygateError | PaygateConnectionError;
      let retryAfterMs: number | undefined;
      try {
        const res = await fetch(url, {
          method,
          headers,
          body: raw === '' ? undefined : raw,
          signal: attemptSignal.signal,
        });
        const text = await res.text();
        if (res.ok) return parseJson<T>(res.status, text);
        failure = errorForStatus(res.status, text);
        retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
      } catch (err) {
        // The caller's abort ends everything; anything else is a transport failure.
        options.signal?.throwIfAborted();
        if (err instanceof PaygateError) throw err;
        const why = attemptSignal.timedOut()
          ? `no answer within ${this.timeoutMs} ms`
          : errorText(err);
        failure = new PaygateConnectionError(`request to ${url.origin} failed: ${why}`, {
          cause: err,
        });
      } finally {
        attemptSignal.dispose();
      }
      const retryable =
        !(failure instanceof PaygateError) || RETRYABLE_STATUSES.has(failure.status);
      if (!retryable || attempt >= this.maxRetries) throw failure;
      await sleep(this.delay(attempt, retryAfterMs), options.signal);
    }
  }

  /** Exponential backoff with jitter; a Retry-After from the gateway wins when longer. */
  private delay(attempt: number, retryAfterMs: number | undefined): number {
    const backoff = Math.min(this.baseDelayMs * 2 ** attempt, this.maxDelayMs);
    const jittered = backoff / 2 + Math.random() * (backoff / 2);
    return Math.min(Math.max(jittered, retryAfterMs ?? 0), Math.max(this.maxDelayMs, 0));
  }
}

function parseJson<T>(status: number, text: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new PaygateError(status, `unexpected response body: ${text.slice(0, 200)}`);
  }
}

function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(at - Date.now(), 0);
}

function errorText(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return err instanceof Error ? err.message : String(err);
}

/** A signal that fires on the caller's abort or after timeoutMs, whichever comes first. */
function withTimeout(outer: AbortSignal | undefined, timeoutMs: number) {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`timed out after ${timeoutMs} ms`));
  }, timeoutMs);
  const onAbort = () => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose() {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
}

/** Waits ms, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
