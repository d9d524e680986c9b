import type { Gateway } from '../gateway.js';
import type { ReconciliationDeps } from './reconciliation.js';

/** What reconciliation takes from the process. */
export function reconciliationDeps(gw: Gateway): ReconciliationDeps {
  return {
    pool: gw.pool,
    providers: gw.providers,
    providerTimeoutMs: gw.config.providerTimeoutMs,
    slackHours: gw.config.reconciliation.slackHours,
    log: gw.log,
    now: () => gw.now(),
  };
}
