/**
 * GET /admin/balances and GET /admin/payouts (docs/api.md#admin-api, #payouts, #balances). Money of different modes
 * lives in different provider accounts (test money is the simulator's), so every figure is
 * per mode and carries it; nothing is summed across modes.
 */
import type { Pool } from '../db/pool.js';
import { earliestActivity } from '../db/reports.js';
import { utcDayStart } from '../domain/adminQuery.js';
import { MODES, PROVIDERS, type Mode, type ProviderSlug } from '../domain/types.js';
import type { Logger } from '../logger.js';
import type { ProviderRegistry } from '../providers/registry.js';
import { ProviderError, type ProviderContext } from '../providers/types.js';
import { windowTotals } from './rollup.js';

export interface ReportDeps {
  pool: Pool;
  providers: ProviderRegistry;
  providerTimeoutMs: number;
  log: Logger;
  /** The gateway's clock: the end of the calculated window. */
  now(): number;
}

export interface BalanceEntry {
  provider: string;
  mode: Mode;
  source: 'real' | 'calculated';
  currency: string;
  available_minor: bigint;
  /** Only on real balances: when the provider computed them (docs/api.md#balances). */
  as_of?: string;
  /** Why a provider with a balance API shows a calculated figure. */
  error?: string;
}

export interface BalanceError {
  provider: string;
  mode: Mode;
  error: string;
}

function failureText(err: unknown): string {
  return err instanceof ProviderError ? err.providerText : 'internal error';
}

function context(deps: ReportDeps, slug: ProviderSlug, mode: Mode): ProviderContext | null {
  const endpoint = deps.providers.endpoint(slug, mode);
  return endpoint
    ? { mode, endpoint, timeoutMs: deps.providerTimeoutMs, now: () => deps.now() }
    : null;
}

/**
 * A provider with a balance API (wallet_psp) answers with its own figures, source real, for
 * every mode it is configured for. Everything else is calculated from the gateway's records:
 * the sum of the ledger (docs/api.md#ledger), all time, per provider, mode and currency. When
 * the provider call fails, or the provider has records in a mode it is not configured for,
 * the calculated figure is shown with `error` saying why; `errors` lists every failed call,
 * also those of a mode without records.
 */
export async function balances(
  deps: ReportDeps,
): Promise<{ balances: BalanceEntry[]; errors: BalanceError[] }> {
  const now = new Date(deps.now());
  const earliest = await earliestActivity(deps.pool);
  // From the start of the first day with money on record: nothing lies before it, and every
  // closed day is then read from the rollup, none from the rows.
  const totals = earliest
    ? await windowTotals(deps.pool, { since: utcDayStart(earliest), until: now }, null, now)
    : [];
  const calculated = new Map<string, Map<string, bigint>>();
  const key = (p: string, m: string) => `${p} ${m}`;
  for (const r of totals) {
    // The ledger's sum: every movement of money, late charges and disputes included (D16).
    if (r.status !== 'net') continue;
    let byCurrency = calculated.get(key(r.provider, r.mode));
    if (!byCurrency) {
      byCurrency = new Map();
      calculated.set(key(r.provider, r.mode), byCurrency);
    }
    byCurrency.set(r.currency, (byCurrency.get(r.currency) ?? 0n) + BigInt(r.minor));
  }
  const calculatedEntries = (provider: string, mode: Mode, error?: string): BalanceEntry[] =>
    [...(calculated.get(key(provider, mode)) ?? new Map<string, bigint>()).entries()].map(
      ([currency, available]) => ({
        provider,
        mode,
        source: 'calculated' as const,
        currency,
        available_minor: available,
        ...(error === undefined ? {} : { error }),
      }),
    );

  const errors: BalanceError[] = [];
  const providers = [
    ...new Set([...PROVIDERS, ...[...calculated.keys()].map((k) => k.split(' ')[0] as string)]),
  ];
  const groups = await Promise.all(
    providers.flatMap((provider) =>
      MODES.map(async (mode): Promise<BalanceEntry[]> => {
        const adapter = PROVIDERS.includes(provider as ProviderSlug)
          ? deps.providers.get(provider as ProviderSlug)
          : undefined;
        if (!adapter?.fetchBalances) return calculatedEntries(provider, mode);
        const ctx = context(deps, provider as ProviderSlug, mode);
        if (!ctx) {
          if (!calculated.has(key(provider, mode))) return [];
          const error = `${provider} is not configured for ${mode} mode`;
          errors.push({ provider, mode, error });
          return calculatedEntries(provider, mode, error);
        }
        try {
          const real = await adapter.fetchBalances(ctx);
          return real.balances.map((b) => ({
            provider,
            mode,
            source: 'real' as const,
            currency: b.currency,
            available_minor: BigInt(b.availableMinor),
            as_of: real.asOf.toISOString(),
          }));
        } catch (err) {
          const error = `balance request failed: ${failureText(err)}`;
          deps.log.warn({ err, provider, mode }, 'provider balance request failed');
          errors.push({ provider, mode, error });
          return calculatedEntries(provider, mode, error);
        }
      }),
    ),
  );
  const order = (e: { provider: string; mode: Mode }) => `${e.provider} ${MODES.indexOf(e.mode)}`;
  return {
    balances: groups
      .flat()
      .sort((a, b) => order(a).localeCompare(order(b)) || a.currency.localeCompare(b.currency)),
    errors: errors.sort((a, b) => order(a).localeCompare(order(b))),
  };
}

export interface PayoutItem {
  id: string;
  status: string;
  currency: string;
  amount_minor: number;
  initiated_at: string;
  updated_at: string;
}

export interface PayoutEntry {
  provider: string;
  /** Present on real entries: payouts come from the provider account of that mode. */
  mode?: Mode;
  source: 'real' | 'api_unavailable';
  items: PayoutItem[];
  error?: string;
}

/**
 * docs/api.md#payouts: per provider; one entry per configured mode of a provider with a payout reporting API
 * (wallet_psp, source real), one api_unavailable entry for each other provider. A failed
 * provider call keeps source real with no items and `error`.
 */
export async function payouts(
  deps: ReportDeps,
  since: Date,
  until: Date,
): Promise<{ since: string; until: string; payouts: PayoutEntry[] }> {
  const entries = await Promise.all(
    PROVIDERS.map(async (provider): Promise<PayoutEntry[]> => {
      const adapter = deps.providers.get(provider);
      if (!adapter.listPayouts) return [{ provider, source: 'api_unavailable', items: [] }];
      const list = adapter.listPayouts.bind(adapter);
      return Promise.all(
        MODES.filter((mode) => context(deps, provider, mode) !== null).map(
          async (mode): Promise<PayoutEntry> => {
            try {
              const items = await list(
                context(deps, provider, mode) as ProviderContext,
                since,
                until,
              );
              return {
                provider,
                mode,
                source: 'real',
                items: items.map((p) => ({
                  id: p.id,
                  status: p.status,
                  currency: p.currency,
                  amount_minor: p.amountMinor,
                  initiated_at: p.initiatedAt.toISOString(),
                  updated_at: p.updatedAt.toISOString(),
                })),
              };
            } catch (err) {
              deps.log.warn({ err, provider, mode }, 'provider payout request failed');
              return {
                provider,
                mode,
                source: 'real',
                items: [],
                error: `payout request failed: ${failureText(err)}`,
              };
            }
          },
        ),
      );
    }),
  );
  return { since: since.toISOString(), until: until.toISOString(), payouts: entries.flat() };
}
