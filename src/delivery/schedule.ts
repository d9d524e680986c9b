import type { DeliveryConfig } from '../config.js';

/**
 * docs/api.md#delivery-and-retries: the delay before retry n (n = 1 after the first failed attempt) is
 * min(base * 2^(n-1), max), plus up to 10 % jitter so that a burst of failures does not
 * retry in lockstep.
 */
export function retryDelayMs(
  cfg: DeliveryConfig,
  retry: number,
  random: () => number = Math.random,
): number {
  const exp = Math.min(cfg.baseDelayMs * 2 ** Math.min(retry - 1, 40), cfg.maxDelayMs);
  return Math.round(exp * (1 + 0.1 * random()));
}

export type AttemptVerdict = 'delivered' | 'dead' | 'retry';

/** 2xx delivered; 4xx dead at once (a broken handler); anything else retried until the last attempt. */
export function verdict(
  statusCode: number | null,
  attempt: number,
  maxAttempts: number,
): AttemptVerdict {
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) return 'delivered';
  if (statusCode !== null && statusCode >= 400 && statusCode < 500) return 'dead';
  return attempt >= maxAttempts ? 'dead' : 'retry';
}
