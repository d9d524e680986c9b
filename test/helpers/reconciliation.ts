import assert from 'node:assert/strict';
import type { TestGateway } from './gateway.js';

export interface Item {
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

export interface Reconciliation {
  provider: string;
  mode: string;
  date: string;
  status: string;
  run_id: string | null;
  ran_at: string | null;
  import_id: string | null;
  matched_count: number;
  /** The day's sums when it moved one currency; null when several. */
  gateway_net_minor: number | null;
  provider_net_minor: number | null;
  fees_minor: number | null;
  by_currency: CurrencyTotals[];
  items: Item[];
}

export interface CurrencyTotals {
  currency: string;
  gateway_net_minor: number;
  provider_net_minor: number;
  fees_minor: number;
}

/** The day's sums in one currency; asserts that the day has no other currency. */
export function onlyCurrency(
  r: Reconciliation,
  currency: string,
): Omit<CurrencyTotals, 'currency'> {
  assert.deepEqual(
    r.by_currency.map((c) => c.currency),
    [currency],
  );
  const c = r.by_currency[0]!;
  const sums = {
    gateway_net_minor: c.gateway_net_minor,
    provider_net_minor: c.provider_net_minor,
    fees_minor: c.fees_minor,
  };
  // One currency: the contract's top-level sums are that currency's.
  assert.deepEqual(
    {
      gateway_net_minor: r.gateway_net_minor,
      provider_net_minor: r.provider_net_minor,
      fees_minor: r.fees_minor,
    },
    sums,
  );
  return sums;
}

export interface ExceptionView {
  id: string;
  payment_id: string | null;
  app_id: string | null;
  kind: string;
  provider: string;
  provider_ref: string;
  amount_minor: number;
  currency: string;
  resolution: string;
  note: string | null;
}

/** Today's UTC date, the day the tests' payments happen on. */
export const today = () => new Date().toISOString().slice(0, 10);

/** POST /admin/reconciliation/runs for today in test mode; asserts 200. */
export async function reconcile(
  gw: TestGateway,
  provider: string,
  date = today(),
): Promise<Reconciliation> {
  const res = await gw.admin('POST', '/admin/reconciliation/runs', {
    provider,
    date,
    mode: 'test',
  });
  assert.equal(res.status, 200, res.text);
  return res.json<Reconciliation>();
}

export async function exceptionsOfKind(gw: TestGateway, kind: string): Promise<ExceptionView[]> {
  const res = await gw.admin('GET', '/admin/exceptions?limit=1000');
  assert.equal(res.status, 200, res.text);
  return res.json<{ exceptions: ExceptionView[] }>().exceptions.filter((e) => e.kind === kind);
}

/** A run's items as sorted "<kind>:<movement>" strings, to compare whole sets. */
export const kinds = (items: Item[]) => items.map((i) => `${i.kind}:${i.movement}`).sort();
