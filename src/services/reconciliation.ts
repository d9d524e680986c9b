/**
 * Reconciliation (docs/api.md#reconciliation): per provider, mode and UTC day, the gateway's
 * ledger against the provider's record (its report API, or the settlement file an operator
 * uploaded). A run stores its figures and items in one transaction; each item is an
 * exception of kind reconciliation until a later run finds it matched or an operator
 * resolves it.
 */
import { withTransaction, type Pool } from '../db/pool.js';
import * as db from '../db/reconciliation.js';
import { latestImports } from '../db/reconciliationImports.js';
import { apiError, notConfigured } from '../domain/errors.js';
import { itemKey } from '../domain/reconciliation.js';
import { isMode, isProvider, type Mode, type ProviderSlug } from '../domain/types.js';
import { paymentExceptions } from '../metrics.js';
import type { ProviderRegistry } from '../providers/registry.js';
import { ProviderError, type ProviderMovement } from '../providers/types.js';
import type { Audit } from './audit.js';
import { pairDay, type ProviderSource } from './reconciliationPairing.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

export interface ReconciliationDeps {
  pool: Pool;
  providers: ProviderRegistry;
  providerTimeoutMs: number;
  slackHours: number;
  log: { error(obj: object, msg: string): void; info(obj: object, msg: string): void };
  now(): number;
}

export interface ReconciliationTarget {
  provider: ProviderSlug;
  mode: Mode;
  /** YYYY-MM-DD, a UTC day. */
  date: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** provider, date and mode of a request (query or body), or the 400 naming what is wrong. */
export function parseTarget(
  raw: { provider?: unknown; date?: unknown; mode?: unknown },
  nowMs: number,
): ReconciliationTarget {
  if (!isProvider(raw.provider)) {
    throw apiError('invalid', 'provider must be one of idr_psp, card_psp, wallet_psp');
  }
  const date = raw.date;
  const t = typeof date === 'string' && DATE.test(date) ? Date.parse(`${date}T00:00:00Z`) : NaN;
  if (Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== date) {
    throw apiError('invalid', 'date must be a day as YYYY-MM-DD');
  }
  if (t > nowMs) throw apiError('invalid', 'date must not be in the future');
  const mode = raw.mode === undefined || raw.mode === '' ? 'live' : raw.mode;
  if (!isMode(mode)) throw apiError('invalid', 'mode must be one of test, sandbox, live');
  return { provider: raw.provider, mode, date };
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The provider's movements over [since, until), from its API: 502/504 when it cannot answer. */
async function fromApi(
  deps: ReconciliationDeps,
  t: ReconciliationTarget,
  since: Date,
  until: Date,
): Promise<ProviderMovement[]> {
  const provider = deps.providers.get(t.provider);
  const endpoint = deps.providers.endpoint(t.provider, t.mode);
  if (!endpoint || !provider.listMovements) {
    throw apiError('reconciliation_failed', notConfigured(t.provider, t.mode));
  }
  try {
    return await provider.listMovements(
      { mode: t.mode, endpoint, timeoutMs: deps.providerTimeoutMs, now: () => deps.now() },
      since,
      until,
    );
  } catch (err) {
    if (err instanceof ProviderError) {
      throw apiError(
        err.kind === 'rejected' ? 'reconciliation_failed' : 'reconciliation_unknown',
        err.providerText,
      );
    }
    throw err;
  }
}

/** idr_psp: the last file of the day, with those of the days around it for the slack. */
async function fromFiles(
  deps: ReconciliationDeps,
  t: ReconciliationTarget,
  dayStart: number,
): Promise<{ importIds: string[]; importId: string }> {
  const days = [dayOf(dayStart - DAY_MS), t.date, dayOf(dayStart + DAY_MS)];
  const imports = await latestImports(deps.pool, t.provider, t.mode, days);
  const own = imports.find((i) => i.day === t.date);
  if (!own) throw apiError('no_settlement_file', t.provider, t.date);
  // A movement in two files is read from the nearest: the day's own file, then the next
  // day's (the provider's newer word on it), then the previous day's.
  const rank = (day: string) => [t.date, days[2], days[0]].indexOf(day);
  const ordered = [...imports].sort((a, b) => rank(a.day) - rank(b.day));
  return { importIds: ordered.map((i) => i.id), importId: own.id };
}

/** POST /admin/reconciliation/runs and the daily job: reconciles the day now. */
export async function runReconciliation(
  deps: ReconciliationDeps,
  t: ReconciliationTarget,
  trigger: 'operator' | 'daily',
  /** An operator's run is audited in its transaction; the daily job's is not a request. */
  audit?: Audit,
): Promise<ReconciliationView> {
  const startedAt = new Date(deps.now());
  const dayStart = Date.parse(`${t.date}T00:00:00Z`);
  const slack = deps.slackHours * HOUR_MS;
  let source: ProviderSource;
  let importId: string | null = null;
  if (deps.providers.get(t.provider).listMovements) {
    const until = Math.min(dayStart + DAY_MS + slack, deps.now());
    const movements = await fromApi(deps, t, new Date(dayStart - slack), new Date(until));
    source = { kind: 'api', movements };
  } else {
    const files = await fromFiles(deps, t, dayStart);
    source = { kind: 'files', importIds: files.importIds };
    importId = files.importId;
  }
  const result = await pairDay(deps.pool, source, {
    provider: t.provider,
    mode: t.mode,
    since: new Date(dayStart - slack),
    until: new Date(dayStart + DAY_MS + slack),
    dayStart: new Date(dayStart),
    dayEnd: new Date(dayStart + DAY_MS),
  });
  const totals = [...result.totals].map(([currency, x]) => ({ currency, ...x }));
  const stored = await withTransaction(deps.pool, async (tx) => {
    // Runs of one day take turns, so two never record the same item twice.
    await db.lockDay(tx, t.provider, t.mode, t.date);
    const stored = await db.insertRun(
      tx,
      {
        provider: t.provider,
        mode: t.mode,
        day: t.date,
        matchedCount: result.matchedCount,
        totals,
        importId,
        trigger,
        startedAt,
      },
      result.items,
      result.items.map(itemKey),
    );
    await audit?.(tx, {
      targetType: 'reconciliation_run',
      targetId: stored.run.id,
      outcome: stored.run.status,
      details: {
        provider: t.provider,
        mode: t.mode,
        date: t.date,
        matched: result.matchedCount,
        items: result.items.length,
        cleared: stored.cleared,
      },
    });
    return stored;
  });
  for (const id of stored.newExceptions) {
    paymentExceptions.inc({ kind: 'reconciliation' });
    deps.log.error(
      { exception_id: id, provider: t.provider, mode: t.mode, date: t.date, run_id: stored.run.id },
      'reconciliation found a difference with the provider: operator action needed',
    );
  }
  deps.log.info(
    {
      provider: t.provider,
      mode: t.mode,
      date: t.date,
      run_id: stored.run.id,
      matched: result.matchedCount,
      items: result.items.length,
      cleared: stored.cleared,
    },
    'reconciliation run',
  );
  return getReconciliation(deps.pool, t);
}

export interface ReconciliationItemView {
  kind: string;
  movement: string;
  provider_ref: string;
  payment_id: string | null;
  currency: string;
  gateway_amount_minor: number | null;
  provider_amount_minor: number | null;
  provider_status: string | null;
  exception_id: string | null;
}

/** One currency's sums of the day: amounts of two currencies are never added. */
export interface CurrencyTotalsView {
  currency: string;
  gateway_net_minor: bigint;
  provider_net_minor: bigint;
  fees_minor: bigint;
}

export interface ReconciliationView {
  provider: string;
  mode: string;
  date: string;
  status: 'matched' | 'mismatched' | 'pending';
  run_id: string | null;
  ran_at: string | null;
  import_id: string | null;
  matched_count: number;
  /** The day's sums when it moved one currency (0 when none); null when it moved several. */
  gateway_net_minor: bigint | null;
  provider_net_minor: bigint | null;
  fees_minor: bigint | null;
  by_currency: CurrencyTotalsView[];
  items: ReconciliationItemView[];
}

/**
 * The top-level sums the contract names: a day of one currency (every idr_psp day, most
 * others) has them; a day of several has null there, since amounts of two currencies are
 * never added, and its sums are in by_currency only. So has a run from before the sums were
 * kept per currency that kept none (its old total may have added currencies): unknown, never 0.
 */
function topLevelSums(
  byCurrency: CurrencyTotalsView[],
  summedBefore0025: boolean,
): Pick<ReconciliationView, 'gateway_net_minor' | 'provider_net_minor' | 'fees_minor'> {
  if (byCurrency.length > 1 || (byCurrency.length === 0 && summedBefore0025)) {
    return { gateway_net_minor: null, provider_net_minor: null, fees_minor: null };
  }
  const only = byCurrency[0];
  return {
    gateway_net_minor: only?.gateway_net_minor ?? 0n,
    provider_net_minor: only?.provider_net_minor ?? 0n,
    fees_minor: only?.fees_minor ?? 0n,
  };
}

/** GET /admin/reconciliation: the day's newest run, or pending when there is none yet. */
export async function getReconciliation(
  pool: Pool,
  t: ReconciliationTarget,
): Promise<ReconciliationView> {
  const run = await db.latestRun(pool, t.provider, t.mode, t.date);
  if (!run) {
    return {
      provider: t.provider,
      mode: t.mode,
      date: t.date,
      status: 'pending',
      run_id: null,
      ran_at: null,
      import_id: null,
      matched_count: 0,
      ...topLevelSums([], false),
      by_currency: [],
      items: [],
    };
  }
  const items = await db.runItems(pool, run.id);
  const totals = await db.runTotals(pool, run.id);
  const byCurrency = totals.map((x) => ({
    currency: x.currency,
    gateway_net_minor: x.gatewayNetMinor,
    provider_net_minor: x.providerNetMinor,
    fees_minor: x.feesMinor,
  }));
  return {
    provider: run.provider,
    mode: run.mode,
    date: run.day,
    status: run.status,
    run_id: run.id,
    ran_at: run.finished_at.toISOString(),
    import_id: run.import_id,
    matched_count: run.matched_count,
    ...topLevelSums(byCurrency, run.summed_before_0025),
    by_currency: byCurrency,
    items: items.map((i) => ({
      kind: i.kind,
      movement: i.movement,
      provider_ref: i.providerRef,
      payment_id: i.paymentId,
      currency: i.currency,
      gateway_amount_minor: i.gatewayAmountMinor,
      provider_amount_minor: i.providerAmountMinor,
      provider_status: i.providerStatus,
      exception_id: i.exceptionId,
    })),
  };
}
