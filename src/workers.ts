import { purgeExpired } from './db/idempotency.js';
import type { Gateway } from './gateway.js';

export interface Workers {
  stop(): Promise<void>;
}

const PURGE_EVERY_MS = 10 * 60_000;

/** Background loops every instance runs; each is safe to run on many instances at once. */
export function startWorkers(gw: Gateway): Workers {
  const timers: NodeJS.Timeout[] = [];
  const purge = async () => {
    try {
      let n: number;
      do n = await purgeExpired(gw.pool);
      while (n > 0 && gw.phase === 'ready');
    } catch (err) {
      gw.log.warn({ err }, 'idempotency key purge failed');
    }
  };
  timers.push(setInterval(purge, PURGE_EVERY_MS).unref());
  return {
    async stop() {
      for (const t of timers) clearInterval(t);
    },
  };
}
