import type { Gateway } from '../../src/gateway.js';

/**
 * Runs fn with the gateway's clock (Gateway.now, which the use cases, the reconciler and the
 * refund worker read) moved `ms` ahead, then puts it back: a test moves time instead of
 * backdating rows with SQL.
 */
export async function withClockAhead<T>(gw: Gateway, ms: number, fn: () => Promise<T>): Promise<T> {
  const before = gw.now;
  gw.now = () => before() + ms;
  try {
    return await fn();
  } finally {
    gw.now = before;
  }
}
