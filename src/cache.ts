import type { AuthenticatedApp } from './auth/appAuth.js';
import { isPaymentId } from './domain/ids.js';

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
 * is charged its key (twice for characters beyond Latin-1), a fixed overhead for the Map
 * slot and the record (ENTRY_OVERHEAD_BYTES) and, for a known key, the app row as JSON plus
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
 * Bounded by bytes (issue 28) and kept outside V8's heap (issue 29): the bodies live in one
 * ring buffer of the budget's size, allocated once, written front to back and wrapping to its
 * start, so the oldest entries are the ones overwritten (first in, first out). Kept as strings
 * in the heap, a full cache's churn of ~650-byte bodies fragmented the old generation until
 * the committed heap was about 1.9× the live one (docs/performance.md, "Resident memory under
 * a soak"). An entry in the ring is
 *
 *   key (u32) | body length (u32) | app id length (u8) | payment id (16 bytes) | app id | body
 *
 * with the payment id as its 16 bytes, the app id and the body as UTF-8. The index maps a
 * 30-bit hash of the payment id (a small integer, which V8 keeps in the Map's table without
 * an object) to the entry's offset (another small integer): no string or record per entry in
 * the heap. Two ids with the same hash share one slot, the later one displacing the earlier
 * (a miss), and every hit checks the payment id and the app id stored in the entry. A hit
 * decodes the body to a new string: the caller never holds a view into the ring, which a
 * later write may overwrite before a socket has sent it. The bytes sent are the same as the
 * cached string's (both are its UTF-8 encoding).
 *
 * Only payment ids (32 lowercase hex characters) and app ids of at most 255 bytes are cached;
 * anything else is a miss. An entry costs its body, its app id and 25 bytes; `size` counts
 * the live entries (a replaced or hash-displaced entry's bytes stay in the ring until it
 * wraps over them, uncounted).
 */
export class SettledPaymentCache {
  private readonly ring: Buffer;
  /** Hash of the payment id → offset of its newest entry in the ring. */
  private readonly index = new Map<number, number>();
  /** The payment id's 16 bytes and the app id of a lookup, to compare with an entry's. */
  private readonly probe = Buffer.allocUnsafeSlow(ID_BYTES + MAX_APP_BYTES * 3);
  /** Where the next entry goes. */
  private head = 0;
  /** The oldest entry still in the ring (live or not). */
  private tail = 0;
  /** Entries between tail and head, the ones no longer indexed included. */
  private count = 0;
  /** Whether the entries run from tail to wrapEnd and then from the ring's start to head. */
  private wrapped = false;
  /** The end of the entries before the ring's start, when wrapped. */
  private wrapEnd = 0;
  private bytes = 0;

  constructor(maxBytes = 32 * 2 ** 20) {
    if (!(maxBytes >= 0 && maxBytes < 2 ** 30)) throw new RangeError(`budget ${maxBytes} bytes`);
    // Allocated once, outside the heap, and written through at once (about 50 ms for 32 MiB)
    // so that all of it is resident from the start: the process's resident set then holds
    // the whole budget from the first request instead of growing by it while the ring first
    // fills, and a resident set that grows later is something else.
    this.ring = Buffer.allocUnsafeSlow(maxBytes).fill(0);
  }

  /** Bytes of the entries a lookup can find, headers included. */
  get size(): number {
    return this.bytes;
  }

  get(paymentId: string, appId: string): string | undefined {
    if (!isPaymentId(paymentId)) return undefined;
    const at = this.index.get(paymentIdKey(paymentId));
    if (at === undefined) return undefined;
    const n = this.stamp(paymentId, appId);
    const ring = this.ring;
    if (n < 0 || ring.readUInt8(at + 8) !== n - ID_BYTES) return undefined;
    const start = at + HEADER_BYTES - ID_BYTES;
    if (this.probe.compare(ring, start, start + n, 0, n) !== 0) return undefined;
    const bodyStart = start + n;
    return ring.toString('utf8', bodyStart, bodyStart + ring.readUInt32LE(at + 4));
  }

  set(paymentId: string, appId: string, body: string): void {
    if (!isPaymentId(paymentId)) return;
    const appBytes = appId.length > MAX_APP_BYTES ? MAX_APP_BYTES + 1 : Buffer.byteLength(appId);
    if (appBytes > MAX_APP_BYTES) return;
    const bodyBytes = Buffer.byteLength(body);
    const size = HEADER_BYTES + appBytes + bodyBytes;
    if (size > this.ring.length) return;
    const key = paymentIdKey(paymentId);
    const old = this.index.get(key);
    if (old !== undefined) {
      this.index.delete(key);
      this.bytes -= this.sizeAt(old);
    }
    const at = this.reserve(size);
    const ring = this.ring;
    ring.writeUInt32LE(key, at);
    ring.writeUInt32LE(bodyBytes, at + 4);
    ring[at + 8] = appBytes;
    ring.write(paymentId, at + 9, ID_BYTES, 'hex');
    ring.write(appId, at + HEADER_BYTES, appBytes, 'utf8');
    ring.write(body, at + HEADER_BYTES + appBytes, bodyBytes, 'utf8');
    this.index.set(key, at);
    this.bytes += size;
  }

  /** The offset of `size` free bytes at head, overwriting the oldest entries as needed. */
  private reserve(size: number): number {
    for (;;) {
      if (this.count === 0) {
        this.head = this.tail = 0;
        this.wrapped = false;
        break;
      }
      if (!this.wrapped) {
        if (this.head + size <= this.ring.length) break;
        // The rest of the ring is too short: the entries end here, the next starts at 0.
        this.wrapEnd = this.head;
        this.head = 0;
        this.wrapped = true;
      }
      if (this.head + size <= this.tail) break;
      this.evictOldest();
    }
    const at = this.head;
    this.head += size;
    this.count++;
    return at;
  }

  private evictOldest(): void {
    const at = this.tail;
    const size = this.sizeAt(at);
    const key = this.ring.readUInt32LE(at);
    // The index may already point at a newer entry of this id (or of another with its hash).
    if (this.index.get(key) === at) {
      this.index.delete(key);
      this.bytes -= size;
    }
    this.count--;
    this.tail = at + size;
    if (this.wrapped && this.tail === this.wrapEnd) {
      this.tail = 0;
      this.wrapped = false;
    }
  }

  private sizeAt(at: number): number {
    return HEADER_BYTES + this.ring.readUInt8(at + 8) + this.ring.readUInt32LE(at + 4);
  }

  /** Writes a lookup's payment id and app id into probe; their length, or -1 if too long. */
  private stamp(paymentId: string, appId: string): number {
    if (appId.length > MAX_APP_BYTES) return -1;
    this.probe.write(paymentId, 0, ID_BYTES, 'hex');
    const n = this.probe.write(appId, ID_BYTES, 'utf8');
    return n > MAX_APP_BYTES ? -1 : ID_BYTES + n;
  }
}

/** A payment id's bytes (32 hex characters). */
const ID_BYTES = 16;
/** Key, body length, app id length, payment id. */
const HEADER_BYTES = 4 + 4 + 1 + ID_BYTES;
const MAX_APP_BYTES = 255;

/**
 * A payment id's index key: FNV-1a over its characters, folded to 30 bits so that it is a
 * small integer (V8 stores those in a Map's table as they are).
 */
export function paymentIdKey(paymentId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < paymentId.length; i++) {
    h = Math.imul(h ^ paymentId.charCodeAt(i), 0x01000193);
  }
  return (h ^ (h >>> 30)) & 0x3fffffff;
}

/**
 * An app-key cache entry's Map slot, record and string headers: about 95 bytes measured on
 * Node 20 for a Map of string keys to small records (heap growth over 100,000 entries), rounded up.
 */
const ENTRY_OVERHEAD_BYTES = 128;
