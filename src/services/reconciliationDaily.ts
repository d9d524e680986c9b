/**
 * The daily reconciliation job (docs/operations.md#reconciliation): once the configured hour
 * (UTC) has passed, the previous UTC day of each provider with a report API is reconciled in
 * every mode it has an endpoint for; idr_psp's where a settlement file of that day was
 * imported. A claim in the database makes one instance run each (provider, mode, day); a
 * claim left by a process that died is taken over after the lease.
 */
import { claimDaily, finishDaily } from '../db/reconciliation.js';
import { latestImports } from '../db/reconciliationImports.js';
import { ApiError } from '../domain/errors.js';
import { PROVIDERS } from '../domain/types.js';
import { runReconciliation, type ReconciliationDeps } from './reconciliation.js';

const DAY_MS = 86_400_000;
/** Longer than a run of a busy day takes; a claim older than this was abandoned. */
const LEASE_SECONDS = 3600;

export async function dailyReconciliation(
  deps: ReconciliationDeps,
  hourUtc: number,
): Promise<number> {
  const now = deps.now();
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  if (now < today + hourUtc * 3_600_000) return 0;
  const date = new Date(today - DAY_MS).toISOString().slice(0, 10);
  let runs = 0;
  for (const provider of PROVIDERS) {
    const byApi = deps.providers.get(provider).listMovements !== undefined;
    for (const { mode } of deps.providers.configuredModes(provider)) {
      if (!byApi && (await latestImports(deps.pool, provider, mode, [date])).length === 0) continue;
      if (!(await claimDaily(deps.pool, provider, mode, date, LEASE_SECONDS))) continue;
      try {
        await runReconciliation(deps, { provider, mode, date }, 'daily');
        runs++;
      } catch (err) {
        // The provider could not answer: the claim lapses and a later tick tries again.
        deps.log.error(
          { provider, mode, date, err: err instanceof ApiError ? err.body : err },
          'daily reconciliation failed',
        );
        continue;
      }
      await finishDaily(deps.pool, provider, mode, date);
    }
  }
  return runs;
}
