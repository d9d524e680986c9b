/**
 * `paygate listen`: the developer's loop without a public URL. Follows GET /v1/events with an
 * app's key and forwards each new event to a local URL, signed like a real delivery
 * (X-PAY-Timestamp, X-PAY-Signature, X-PAY-Event-Id) with a secret of its own, so the
 * handler's verification code runs unchanged with that secret.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { sleep, Transport } from './transport.js';

export interface ListenOptions {
  baseUrl: string;
  apiKey: string;
  signingSecret: string;
  /** Where each event is POSTed, e.g. http://localhost:3000/hook. */
  forwardTo: string;
  /** The secret the forwarded deliveries are signed with; default: a fresh whsec_... */
  secret?: string;
  /** Pause between polls when nothing new came; default 1000 ms. */
  intervalMs?: number;
  /** Per forward; default 10 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** One line per event and per problem; default: stdout. */
  print?: (line: string) => void;
}

interface FeedEvent {
  id: string;
  event: string;
  payload: unknown;
}
interface FeedPage {
  events: FeedEvent[];
  has_more: boolean;
}

export function newForwardingSecret(): string {
  return 'whsec_' + randomBytes(32).toString('hex');
}

/** Same rule as the gateway's deliveries: HMAC-SHA256 of `<timestamp>.<body>`, lowercase hex. */
export function signDelivery(secret: string, timestamp: string, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

async function forward(o: ListenOptions, secret: string, e: FeedEvent): Promise<string> {
  const body = JSON.stringify(e.payload);
  const ts = String(Math.floor(Date.now() / 1000));
  try {
    const res = await fetch(o.forwardTo, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-pay-timestamp': ts,
        'x-pay-signature': signDelivery(secret, ts, body),
        'x-pay-event-id': e.id,
        'user-agent': 'Paygate-Listen/1',
      },
      body,
      signal: AbortSignal.timeout(o.timeoutMs ?? 10_000),
    });
    await res.arrayBuffer();
    return String(res.status);
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return `failed (${cause ?? (err as Error).message})`;
  }
}

/**
 * Runs until the signal aborts. Events that exist when it starts are skipped: it forwards
 * only what happens from then on. Returns the forwarding secret through `print` first.
 */
export async function listen(o: ListenOptions): Promise<void> {
  const print = o.print ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const secret = o.secret ?? newForwardingSecret();
  const t = new Transport({ baseUrl: o.baseUrl, apiKey: o.apiKey, signingSecret: o.signingSecret });
  const page = (after: string | null) =>
    t.request<FeedPage>(
      'GET',
      `/v1/events?limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`,
      undefined,
      { signal: o.signal },
    );
  // Catch up to the end of the feed without forwarding.
  let cursor: string | null = null;
  for (;;) {
    const p = await page(cursor);
    cursor = p.events.at(-1)?.id ?? cursor;
    if (!p.has_more) break;
  }
  print(`Forwarding new events to ${o.forwardTo}`);
  print(`Webhook secret for this session: ${secret}`);
  print('Ready. Ctrl-C to stop.');
  while (!o.signal?.aborted) {
    let p: FeedPage;
    try {
      p = await page(cursor);
    } catch (err) {
      if (o.signal?.aborted) return;
      print(`events feed: ${(err as Error).message}; retrying`);
      await sleep(o.intervalMs ?? 1000, o.signal).catch(() => undefined);
      continue;
    }
    for (const e of p.events) {
      const outcome = await forward(o, secret, e);
      print(`${new Date().toISOString()} ${e.event} ${e.id} -> ${outcome}`);
      cursor = e.id;
    }
    if (!p.has_more) await sleep(o.intervalMs ?? 1000, o.signal).catch(() => undefined);
  }
}
