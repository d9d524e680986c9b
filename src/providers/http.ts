/**
 * The provider clients' HTTP exchange (issue 28): undici's dispatcher over one pooled,
 * kept-alive agent per process, bounded by one plain timer per call.
 *
 * `fetch` with `AbortSignal.timeout` cost about 165 µs of CPU per call in the profile (the
 * timeout signal alone 78 µs: a weakly held timer and its finalization): most of a payment's
 * HTTP cost. undici is the engine under Node's fetch. Its `request` still wraps each call in
 * an AsyncResource, a Readable for the body, an AbortController for the timer and a fresh
 * `new URL` of the address (about 6 % of the gateway's CPU per create in the fourth pass's
 * profile, docs/performance.md); this goes one level lower, to the dispatcher's own handler
 * interface, which hands the status and the body's chunks straight to a callback, and gives
 * the call its abort function, so the timer needs no signal. The connections to a provider
 * are reused across calls. Redirects are not followed (undici's default): a provider API
 * answers, it does not send the gateway elsewhere with its credentials.
 */
import { Agent, type Dispatcher } from 'undici';

const agent = new Agent({ keepAliveTimeout: 30_000, connections: 128 });

/** No answer within the call's deadline (the exchange may still have reached the provider). */
export class ProviderTimeoutError extends Error {
  override name = 'TimeoutError';
}

export interface ProviderAnswer {
  status: number;
  text: string;
}

interface Target {
  origin: string;
  path: string;
}

/**
 * An address as undici's `request` splits it (`new URL`: origin, pathname and search; the
 * fragment dropped), kept per address: a provider's addresses repeat (the registration's is
 * the same for every payment). Bounded: cleared when full.
 */
const targets = new Map<string, Target>();
const MAX_TARGETS = 1024;

function target(url: string): Target {
  let t = targets.get(url);
  if (t === undefined) {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') {
      throw new TypeError('Invalid URL protocol: the URL must start with `http:` or `https:`.');
    }
    t = { origin: u.origin, path: u.search ? `${u.pathname}${u.search}` : u.pathname };
    if (targets.size >= MAX_TARGETS) targets.clear();
    targets.set(url, t);
  }
  return t;
}

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;

/**
 * The most of a provider's answer that is read (8 MiB): their answers are a few KiB, and a
 * broken or hostile endpoint streaming without end must not fill the gateway's memory. A
 * longer answer fails the exchange like a lost connection (the caller cannot know what the
 * provider did: an unknown outcome, D15's 504).
 */
export const MAX_PROVIDER_ANSWER_BYTES = 8 * 2 ** 20;

export class ProviderAnswerTooLargeError extends Error {
  override name = 'ProviderAnswerTooLargeError';
  constructor() {
    super(`provider answer over ${MAX_PROVIDER_ANSWER_BYTES} bytes`);
  }
}

/** The whole body as text, as undici's `body.text()` decodes it (UTF-8, a leading BOM dropped). */
function bodyText(chunks: Buffer[], length: number): string {
  const all = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
  const bom =
    all.length >= 3 && all[0] === UTF8_BOM[0] && all[1] === UTF8_BOM[1] && all[2] === UTF8_BOM[2];
  return all.toString('utf8', bom ? 3 : 0);
}

/**
 * One exchange; resolves with the status and the whole body, or rejects: a
 * ProviderTimeoutError when the deadline passed, the transport's error otherwise.
 */
export function providerExchange(
  url: string,
  init: {
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
    headers: Record<string, string>;
    body?: string;
    timeoutMs: number;
  },
): Promise<ProviderAnswer> {
  let t: Target;
  try {
    t = target(url);
  } catch (err) {
    return Promise.reject(err);
  }
  return new Promise<ProviderAnswer>((resolve, reject) => {
    let settled = false;
    let abort: ((err: Error) => void) | undefined;
    let status = 0;
    let chunks: Buffer[] = [];
    let length = 0;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      reject(new ProviderTimeoutError());
      // Not yet on a connection (queued): aborted as soon as it gets one.
      abort?.(new ProviderTimeoutError());
    }, init.timeoutMs);
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(err);
    };
    const handler: Dispatcher.DispatchHandler = {
      onConnect(abortCall) {
        if (settled) abortCall(new ProviderTimeoutError());
        else abort = abortCall;
      },
      onHeaders(statusCode) {
        // 1xx answers (100 Continue, 103 Early Hints) precede the real one.
        if (statusCode >= 200) status = statusCode;
        return true;
      },
      onData(chunk) {
        if (!settled) {
          chunks.push(chunk);
          length += chunk.length;
          if (length > MAX_PROVIDER_ANSWER_BYTES) {
            chunks = [];
            const err = new ProviderAnswerTooLargeError();
            fail(err);
            abort?.(err);
          }
        }
        return true;
      },
      onComplete() {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const text = bodyText(chunks, length);
        chunks = [];
        resolve({ status, text });
      },
      onError: fail,
    };
    try {
      agent.dispatch(
        {
          origin: t.origin,
          path: t.path,
          method: init.method,
          headers: init.headers,
          body: init.body,
        },
        handler,
      );
    } catch (err) {
      fail(err as Error);
    }
  });
}
