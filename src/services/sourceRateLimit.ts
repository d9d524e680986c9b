import { isIP } from 'node:net';

/** What take() found: a token taken, or none left (first refusal of a run flagged for the log). */
export type TakeResult = 'taken' | 'limited' | 'newly_limited';

/** What check() found: a token left (none taken), or none left (first refusal of a run flagged). */
export type CheckResult = 'open' | 'limited' | 'newly_limited';

interface Bucket {
  tokens: number;
  at: number;
  limited: boolean;
}

/** More tracked sources than this and buckets that have refilled are forgotten. */
const MAX_TRACKED = 100_000;

/**
 * A token bucket per source address, in this process's memory. It bounds what one address
 * can make this instance archive (unverified webhooks) or how fast it can guess the admin
 * token; it is not shared between instances (N instances allow N times the rate), which is
 * acceptable for such a bound and costs no database round trip.
 */
export class SourceRateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;

  constructor(
    perMinute: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {
    this.perMs = perMinute / 60_000;
  }

  take(source: string): TakeResult {
    const key = sourceKey(source);
    const b = this.refilled(key);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      b.limited = false;
      return 'taken';
    }
    const first = !b.limited;
    b.limited = true;
    return first ? 'newly_limited' : 'limited';
  }

  /**
   * Whether the source has a token left, taking none: for limits that count only requests
   * that fail, and refuse every request (even one that would succeed) while none is left.
   */
  check(source: string): CheckResult {
    const b = this.refilled(sourceKey(source));
    if (b.tokens >= 1) return 'open';
    const first = !b.limited;
    b.limited = true;
    return first ? 'newly_limited' : 'limited';
  }

  /**
   * Takes a token for a request that failed, after check() found one. Unlike take(), the
   * source's run of refusals goes on until its bucket is full again, so a source that keeps
   * failing at the refill rate is flagged (logged) once, not once per refill.
   */
  spend(source: string): void {
    const b = this.refilled(sourceKey(source));
    b.tokens = Math.max(0, b.tokens - 1);
  }

  /** Gives back a token taken for a request that proved to come from the provider. */
  giveBack(source: string): void {
    const b = this.buckets.get(sourceKey(source));
    if (b) b.tokens = Math.min(this.burst, b.tokens + 1);
  }

  /** Whole seconds until the source has a token again (at least 1). */
  retryAfterSeconds(source: string): number {
    const b = this.refilled(sourceKey(source));
    return Math.max(1, Math.ceil((1 - b.tokens) / this.perMs / 1000));
  }

  private refilled(key: string): Bucket {
    const t = this.now();
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size >= MAX_TRACKED) this.forgetFull(t);
      b = { tokens: this.burst, at: t, limited: false };
      this.buckets.set(key, b);
      return b;
    }
    // A clock stepped back (NTP, or a test's clock) refills nothing rather than taking tokens.
    b.tokens = Math.min(this.burst, b.tokens + Math.max(0, t - b.at) * this.perMs);
    b.at = t;
    // Quiet for a whole refill: a later refusal starts a new run.
    if (b.tokens >= this.burst) b.limited = false;
    return b;
  }

  private forgetFull(t: number): void {
    for (const [key, b] of this.buckets) {
      if (b.tokens + (t - b.at) * this.perMs >= this.burst) this.buckets.delete(key);
    }
    // Still full of busy sources: forget the oldest half rather than grow without bound.
    let drop = this.buckets.size - MAX_TRACKED / 2;
    for (const key of this.buckets.keys()) {
      if (drop-- <= 0) break;
      this.buckets.delete(key);
    }
  }
}

/**
 * IPv4 addresses count one by one; an IPv6 client usually holds a whole /64, so its
 * addresses count together.
 */
export function sourceKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (isIP(address) !== 6) return address;
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') && tail ? tail.split(':') : [];
  const groups = address.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')
    .concat('::/64');
}
