import { purgeExpired } from './db/idempotency.js';
import { purgeRejectedInbound } from './db/inbound.js';
import { DeliveryWorker } from './delivery/worker.js';
import { serviceDeps, type Gateway } from './gateway.js';
import { reconcileDue } from './services/reconciler.js';
import { retryUnansweredRefunds } from './services/refunds.js';

export interface Workers {
  stop(): Promise<void>;
}

const PURGE_EVERY_MS = 10 * 60_000;
const RECONCILE_EVERY_MS = 10_000;

/** Background loops every instance runs; each is safe to run on many instances at once. */
export async function startWorkers(gw: Gateway): Promise<Workers> {
  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number, name: string, fn: () => Promise<unknown>) => {
    let busy = false;
    timers.push(
      setInterval(() => {
        if (busy || gw.phase === 'draining') return;
        busy = true;
        fn()
          .catch((err: unknown) => gw.log.warn({ err }, `${name} failed`))
          .finally(() => (busy = false));
      }, ms).unref(),
    );
  };
  every(PURGE_EVERY_MS, 'idempotency key purge', async () => {
    while ((await purgeExpired(gw.pool)) > 0 && gw.phase === 'ready');
  });
  every(PURGE_EVERY_MS, 'rejected webhook purge', async () => {
    const days = gw.config.webhooks.rejectedRetentionDays;
    while ((await purgeRejectedInbound(gw.pool, days)) > 0 && gw.phase === 'ready');
  });
  every(RECONCILE_EVERY_MS, 'reconciler', () => reconcileDue(gw));
  every(RECONCILE_EVERY_MS, 'refund retry', () => retryUnansweredRefunds(serviceDeps(gw)));
  const delivery = new DeliveryWorker(gw);
  delivery.start();
  return {
    async stop() {
      for (const t of timers) clearInterval(t);
      await delivery.stop();
    },
  };
}
