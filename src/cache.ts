import type { AuthenticatedApp } from './auth/appAuth.js';

export const APP_CHANGED_CHANNEL = 'paygate_app_changed';

interface Entry {
  value: AuthenticatedApp | null;
  expires: number;
  cost: number;
}

/**
 * App keys by public key, with the signing secret already decrypted. Every change to an
 * app drops its entries here at once and on other instances through NOTIFY (a lost LISTEN
 * connection clears everything). The TTL bounds the damage of anything missed; unknown
 * keys are remembered briefly so a flood of bad keys does not reach the database.
 *
 * Bounded by bytes, not entries (issue 29): the key is whatever a request's header carried,
 * up to Node's 16 KiB of headers, so 50,000 remembered bad keys could hold 800 MB. An entry
 * is charged its key (twice for characters beyond Latin-1), the fixed overhead of the
 * settled-payment cache's entries and, for a known key, the app row as JSON plus
 * APP_VALUE_BYTES for the objects around it; the oldest insertions go first.
 */
export class AppKeyCache {
  private readonly entries = new Map<string, Entry>();
  /** Loads under way, each with the generation it started in (see miss). */
  private readonly loading = new Map<
    string,
    { generation: number; promise: Promise<AuthenticatedApp | null> }
  >();
  private generation = 0;
  private bytes = 0;

  constructor(
    private readonly load: (apiKey: string) => Promise<AuthenticatedApp | null>,
    private readonly ttlMs = 60_000,
    private readonly negativeTtlMs = 2_000,
    private readonly maxBytes = 8 * 2 ** 20,
  ) {}

  /** Bytes currently charged to the entries. */
  get size(): number {
    return this.bytes;
  }

  /**
   * The app of a key; a fresh entry is answered as it is, without a promise (every signed
   * request asks, almost always for a cached key), anything else through the load.
   */
  get(
    apiKey: string,
    now = Date.now(),
  ): AuthenticatedApp | null | Promise<AuthenticatedApp | null> {
    const hit = this.entries.get(apiKey);
    if (hit && hit.expires > now) return hit.value;
    return this.miss(apiKey, now);
  }

  private async miss(apiKey: string, now: number): Promise<AuthenticatedApp | null> {
    // A request joins a load under way only if no invalidation came since it started: that
    // load may have read the row before the change (a rotated key would still pass).
    const pending = this.loading.get(apiKey);
    if (pending && pending.generation === this.generation) return pending.promise;
    const generation = this.generation;
    const entry = {
      generation,
      promise: this.load(apiKey).finally(() => {
        if (this.loading.get(apiKey) === entry) this.loading.delete(apiKey);
      }),
    };
    this.loading.set(apiKey, entry);
    const value = await entry.promise;
    // An invalidation during the load may concern this very row: do not keep it.
    if (generation === this.generation) this.remember(apiKey, value, now);
    return value;
  }

  private remember(apiKey: string, value: AuthenticatedApp | null, now: number): void {
    const cost =
      ENTRY_OVERHEAD_BYTES +
      charged(apiKey) +
      (value ? APP_VALUE_BYTES + charged(JSON.stringify(value.app)) : 0);
    this.drop(apiKey);
    if (cost > this.maxBytes) return;
    for (const [key, e] of this.entries) {
      if (this.bytes + cost <= this.maxBytes) break;
      this.entries.delete(key);
      this.bytes -= e.cost;
    }
    this.entries.set(apiKey, {
      value,
      expires: now + (value ? this.ttlMs : this.negativeTtlMs),
      cost,
    });
    this.bytes += cost;
  }

  private drop(apiKey: string): void {
    const old = this.entries.get(apiKey);
    if (!old) return;
    this.entries.delete(apiKey);
    this.bytes -= old.cost;
  }

  invalidateApp(appId: string): void {
    this.generation++;
    for (const [key, e] of this.entries) if (e.value?.app.id === appId) this.drop(key);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.bytes = 0;
  }
}

/** A string's bytes in V8: one a character in one-byte form, two when any is beyond Latin-1. */
function charged(text: string): number {
  // eslint-disable-next-line no-control-regex
  return /[^\x00-\xff]/.test(text) ? text.length * 2 : text.length;
}

/** The objects around a known key's app row (the record, the parsed row, the secret): rounded up. */
const APP_VALUE_BYTES = 1024;

/**
 * GET /v1/payments/{id} bodies of payments that can no longer change: terminal status and a
 * stored provider reference. Nothing updates such a row (every status change is guarded by
 * status = 'initiated', the provider reference is written once), so the entry can never be
 * stale. Initiated payments are always read from the database.
 *
 * Bounded by bytes, not entries (issue 28): a body carries the app's metadata (up to the
 * request body limit), so a count alone bounds nothing. An entry is charged its body and
 * id (one byte a character: V8 keeps ASCII strings in one-byte form; a body with other
 * characters is charged twice) plus a fixed overhead for the Map slot and the record.
 */
export class SettledPaymentCache {
  private readonly entries = new Map<string, { appId: string; body: string; cost: number }>();
  private bytes = 0;

  constructor(private readonly maxBytes = 32 * 2 ** 20) {}

  /** Bytes currently charged to the entries. */
  get size(): number {
    return this.bytes;
  }

  get(paymentId: string, appId: string): string | undefined {
    const e = this.entries.get(paymentId);
    return e && e.appId === appId ? e.body : undefined;
  }

  set(paymentId: string, appId: string, body: string): void {
    const cost = ENTRY_OVERHEAD_BYTES + paymentId.length + charged(body);
    if (cost > this.maxBytes) return;
    const old = this.entries.get(paymentId);
    if (old) {
      this.bytes -= old.cost;
      this.entries.delete(paymentId);
    }
    // Evict the oldest insertions (a Map keeps insertion order) until the new entry fits.
    for (const [id, e] of this.entries) {
      if (this.bytes + cost <= this.maxBytes) break;
      this.entries.delete(id);
      this.bytes -= e.cost;
    }
    this.entries.set(paymentId, { appId, body, cost });
    this.bytes += cost;
  }
}

/** The Map slot, the record and the strings' headers: about 95 bytes measured on Node 20 (heap growth over 100,000 entries), rounded up. */
const ENTRY_OVERHEAD_BYTES = 128;
