import type { Gateway } from '../../src/gateway.js';
import { reconcileDue } from '../../src/services/reconciler.js';

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

/**
 * The reconciler run once a payment's provider deadline has passed on the gateway's clock
 * (moved just past it, then back): what a backdated provider_deadline did, without rewriting
 * the row. Payments due earlier are due too, as they would be once that time had come.
 */
export async function reconcileOnceDue(gw: Gateway, paymentId: string): Promise<number> {
  const res = await gw.pool.query<{ deadline: Date | null }>(
    'SELECT provider_deadline AS deadline FROM payments WHERE id = $1',
    [paymentId],
  );
  const deadline = res.rows[0]?.deadline;
  if (!deadline) throw new Error(`payment ${paymentId} has no provider deadline`);
  const ahead = Math.max(0, deadline.getTime() - gw.now() + 1000);
  return withClockAhead(gw, ahead, () => reconcileDue(gw));
}
