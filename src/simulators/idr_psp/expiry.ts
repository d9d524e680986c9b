import type { FastifyInstance } from 'fastify';
import { findDueIdrTransactionIds } from '../db/reads.js';
import type { SimulatorHost } from '../host.js';
import type { SimClock } from '../common.js';
import { simFor } from './context.js';
import { notify } from './notify.js';
import { expired, isDue } from './transactions.js';

const SWEEP_INTERVAL_MS = 5_000;

/**
 * Expires every pending transaction past its expiry (QR: 20 minutes of the sim clock) and
 * sends each one's expire notification. Safe on several instances at once: the row lock in
 * SimStore.update lets exactly one of them move a transaction, and only that one notifies.
 */
export async function expireDueIdrTransactions(
  gw: SimulatorHost,
  clock: SimClock,
): Promise<number> {
  const sim = simFor(gw, clock);
  const now = clock.now();
  const due = await findDueIdrTransactionIds(gw.pool, now, 100);
  let count = 0;
  for (const id of due) {
    let moved = false;
    const tx = await sim.transactions.update(id, (cur) => {
      if (!isDue(cur, now)) return null;
      moved = true;
      return expired(cur);
    });
    if (!moved || !tx) continue;
    count++;
    try {
      const res = await notify(sim, tx);
      gw.log.info(
        { order_id: tx.order_id, gateway_status: res.gateway_status },
        'idr_psp simulator sent expire notification',
      );
    } catch (err) {
      gw.log.warn({ err, order_id: tx.order_id }, 'idr_psp simulator: expire notification failed');
    }
  }
  return count;
}

/** Runs the expiry sweep every few seconds while the host is ready, until the app closes. */
export function startExpirySweep(app: FastifyInstance, gw: SimulatorHost, clock: SimClock): void {
  let sweeping = false;
  const timer = setInterval(() => {
    if (sweeping || gw.phase !== 'ready') return;
    sweeping = true;
    expireDueIdrTransactions(gw, clock)
      .catch((err: unknown) => gw.log.warn({ err }, 'idr_psp simulator: expiry sweep failed'))
      .finally(() => {
        sweeping = false;
      });
  }, SWEEP_INTERVAL_MS);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
}
