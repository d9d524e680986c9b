/**
 * The pairing of one reconciliation in bounded memory (docs/performance.md, reconciliation):
 * the provider's movements are staged in a temporary table (db/reconciliationStaging.ts),
 * then both sides are read back ordered by payment and merged, one payment at a time. Every
 * rule of matchMovements (domain/reconciliation.ts) pairs movements of one payment only, so
 * matching each payment's movements alone gives the day's result while memory holds one
 * payment's movements, the day's items and the per-currency sums.
 */
import { withTransaction, type Pool } from '../db/pool.js';
import {
  createStaging,
  ledgerReader,
  openCursors,
  resolveStaged,
  stageImports,
  stageMovements,
  stagedReader,
  type CursorReader,
  type PairingWindow,
} from '../db/reconciliationStaging.js';
import {
  matchMovements,
  type CurrencyTotals,
  type GatewayRow,
  type MatchResult,
  type ProviderRow,
} from '../domain/reconciliation.js';
import type { ProviderMovement } from '../providers/types.js';

/** Where the provider's side comes from: its API's answer, or uploaded files' rows. */
export type ProviderSource =
  { kind: 'api'; movements: ProviderMovement[] } | { kind: 'files'; importIds: string[] };

/** null (a movement naming no payment of the gateway) first, then bytewise. */
function compareKeys(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

/** The next rows of one payment (key) from a reader ordered by payment. */
async function rowsOf<T extends { paymentId: string | null }>(
  reader: CursorReader<T>,
  key: string | null,
): Promise<T[]> {
  const out: T[] = [];
  for (let r = await reader.peek(); r !== null && r.paymentId === key; r = await reader.peek()) {
    out.push(reader.take());
  }
  return out;
}

function addTotals(into: Map<string, CurrencyTotals>, from: Map<string, CurrencyTotals>): void {
  for (const [currency, t] of from) {
    const sum = into.get(currency);
    if (!sum) into.set(currency, { ...t });
    else {
      sum.gatewayNetMinor += t.gatewayNetMinor;
      sum.providerNetMinor += t.providerNetMinor;
      sum.feesMinor += t.feesMinor;
    }
  }
}

/** Both sides of the day, paired payment by payment. Consumes an API source's movements. */
export async function pairDay(
  pool: Pool,
  source: ProviderSource,
  w: PairingWindow,
): Promise<MatchResult> {
  return withTransaction(pool, async (tx) => {
    await createStaging(tx);
    if (source.kind === 'api') await stageMovements(tx, source.movements);
    else await stageImports(tx, source.importIds);
    await resolveStaged(tx, w.provider, w.mode);
    await openCursors(tx, w);
    const staged = stagedReader(tx);
    const ledger = ledgerReader(tx);
    const result: MatchResult = { matchedCount: 0, totals: new Map(), items: [] };
    for (;;) {
      const p: ProviderRow | null = await staged.peek();
      const g: GatewayRow | null = await ledger.peek();
      if (p === null && g === null) break;
      const key =
        p === null
          ? g!.paymentId
          : g === null
            ? p.paymentId
            : compareKeys(p.paymentId, g.paymentId) <= 0
              ? p.paymentId
              : g.paymentId;
      const one = matchMovements(await rowsOf(staged, key), await rowsOf(ledger, key));
      result.matchedCount += one.matchedCount;
      addTotals(result.totals, one.totals);
      for (const i of one.items) result.items.push(i);
    }
    return result;
  });
}
