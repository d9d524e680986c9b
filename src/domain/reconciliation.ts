/**
 * The matching of one reconciliation (docs/api.md#reconciliation): the gateway's ledger
 * movements against the provider's record of the same day, no I/O. Both sides are read over
 * the day widened by a slack on each side, so a movement the two sides put on either side of
 * midnight (a late notification) still finds its partner; only pairs with a side inside the
 * day count, and only rows inside the day can become items.
 */

export const RECONCILIATION_KINDS = [
  'missing_in_gateway',
  'missing_at_provider',
  'amount_mismatch',
  'status_mismatch',
] as const;
export type ReconciliationKind = (typeof RECONCILIATION_KINDS)[number];

/**
 * A dispute movement is money a provider took back from a payment (a chargeback, a reversal,
 * a hold for a case) or gave back (a case won): the ledger's dispute and dispute_reversal.
 */
export type MovementType = 'charge' | 'refund' | 'dispute';
/** What the provider says became of a movement: only completed moved money. */
export type ProviderMovementStatus = 'completed' | 'pending' | 'failed' | 'reversed';

/** One row of a provider's settlement report file, parsed. */
export interface FileMovement {
  line: number;
  type: MovementType;
  providerRef: string;
  /** What the file names the payment by (idr_psp: the order_id, our payment id). */
  paymentRef: string;
  status: ProviderMovementStatus;
  currency: string;
  amountMinor: number;
  feeMinor: number | null;
  occurredAt: Date;
}

export interface ProviderRow {
  type: MovementType;
  /** The provider's id of this movement (capture, refund, order or transaction id). */
  providerRef: string;
  /** The gateway payment it belongs to, when the gateway knows one. */
  paymentId: string | null;
  status: ProviderMovementStatus;
  currency: string;
  /** Signed like the ledger: money in positive, money out negative. */
  amountMinor: number;
  feeMinor: number | null;
  inDay: boolean;
}

export interface GatewayRow {
  type: MovementType;
  paymentId: string;
  /** The provider's reference: the refund's where it has one, else the payment's. */
  providerRef: string | null;
  /**
   * A refund's own provider reference (null for charges and refunds without one). A
   * dispute's providerRef is its case or transaction id at the provider.
   */
  refundRef: string | null;
  currency: string;
  amountMinor: number;
  inDay: boolean;
}

export interface ReconciliationItem {
  kind: ReconciliationKind;
  movement: MovementType;
  providerRef: string;
  paymentId: string | null;
  currency: string;
  gatewayAmountMinor: number | null;
  providerAmountMinor: number | null;
  providerStatus: ProviderMovementStatus | null;
}

export interface CurrencyTotals {
  gatewayNetMinor: bigint;
  providerNetMinor: bigint;
  feesMinor: bigint;
}

export interface MatchResult {
  matchedCount: number;
  /** Per currency: sums never add amounts of two currencies. */
  totals: Map<string, CurrencyTotals>;
  items: ReconciliationItem[];
}

function totalsOf(map: Map<string, CurrencyTotals>, currency: string): CurrencyTotals {
  let t = map.get(currency);
  if (!t) {
    t = { gatewayNetMinor: 0n, providerNetMinor: 0n, feesMinor: 0n };
    map.set(currency, t);
  }
  return t;
}

function push<K, V>(map: Map<K, V[]>, key: K, v: V): void {
  const list = map.get(key);
  if (list) list.push(v);
  else map.set(key, [v]);
}

/** Index of the gateway's movements; each can be taken by one provider row only. */
class GatewayIndex {
  private readonly used = new Set<GatewayRow>();
  private readonly charges = new Map<string, GatewayRow[]>();
  private readonly refundsByRef = new Map<string, GatewayRow[]>();
  private readonly refundsByPayment = new Map<string, GatewayRow[]>();

  constructor(readonly rows: GatewayRow[]) {
    for (const g of rows) {
      if (g.type === 'charge') push(this.charges, g.paymentId, g);
      else {
        if (g.refundRef !== null) push(this.refundsByRef, g.refundRef, g);
        push(this.refundsByPayment, g.paymentId, g);
      }
    }
  }

  private take(list: GatewayRow[] | undefined, ok: (g: GatewayRow) => boolean = () => true) {
    const g = list?.find((c) => !this.used.has(c) && ok(c));
    if (g) this.used.add(g);
    return g ?? null;
  }

  /** By the movement's identity: a payment's charge, a refund's own reference. */
  exact(p: ProviderRow): GatewayRow | null {
    if (p.type === 'charge')
      return p.paymentId === null ? null : this.take(this.charges.get(p.paymentId));
    return this.take(this.refundsByRef.get(p.providerRef));
  }

  /** A refund whose reference the two sides spell differently: same payment, same amount first. */
  loose(p: ProviderRow): GatewayRow | null {
    if (p.type !== 'refund' || p.paymentId === null) return null;
    const list = this.refundsByPayment.get(p.paymentId);
    return this.take(list, (g) => g.amountMinor === p.amountMinor) ?? this.take(list);
  }

  unused(): GatewayRow[] {
    return this.rows.filter((g) => !this.used.has(g));
  }
}

type ItemOf = (
  kind: ReconciliationKind,
  p: ProviderRow | null,
  g: GatewayRow | null,
) => ReconciliationItem;

const sumOf = (rows: { amountMinor: number }[]) => rows.reduce((a, r) => a + r.amountMinor, 0);

/**
 * Disputes, per payment. The provider books a case's money in steps of its own (PayPal: a
 * hold T1110, its release T1111, a chargeback T1201, a reversal T1106; Midtrans: a
 * chargeback row) and the gateway one entry per change of the dispute, under references
 * the two sides do not share. Movements of the same amount pair first, in order; what is
 * left on each side must then net to the same sum (a hold released and charged back nets to
 * the one entry of a lost dispute). One item per payment and currency whose dispute money
 * differs.
 * Answers how many pairs or nets agree.
 */
function matchDisputes(
  provider: ProviderRow[],
  gateway: GatewayRow[],
  item: ItemOf,
  items: ReconciliationItem[],
): number {
  let matched = 0;
  const byPayment = new Map<string, { p: ProviderRow[]; g: GatewayRow[] }>();
  const entry = (id: string) => {
    let e = byPayment.get(id);
    if (!e) byPayment.set(id, (e = { p: [], g: [] }));
    return e;
  };
  for (const p of provider) {
    // Only money that moved: a hold still pending at the provider is no movement yet.
    if (p.status !== 'completed') continue;
    if (p.paymentId === null) {
      if (p.inDay) items.push(item('missing_in_gateway', p, null));
    } else entry(`${p.paymentId} ${p.currency}`).p.push(p);
  }
  // Per payment and currency: amounts of two currencies are never netted together.
  for (const g of gateway) entry(`${g.paymentId} ${g.currency}`).g.push(g);
  for (const { p: ps, g: gs } of byPayment.values()) {
    const used = new Set<GatewayRow>();
    const leftP: ProviderRow[] = [];
    for (const p of ps) {
      const g = gs.find((c) => !used.has(c) && c.amountMinor === p.amountMinor);
      if (!g) leftP.push(p);
      else {
        used.add(g);
        if (p.inDay || g.inDay) matched++;
      }
    }
    const leftG = gs.filter((g) => !used.has(g));
    if (![...leftP, ...leftG].some((r) => r.inDay)) continue;
    const sumP = sumOf(leftP);
    const sumG = sumOf(leftG);
    const p0 = leftP.find((r) => r.inDay) ?? leftP[0] ?? null;
    const g0 = leftG.find((r) => r.inDay) ?? leftG[0] ?? null;
    const withSums = (i: ReconciliationItem) => ({
      ...i,
      gatewayAmountMinor: g0 ? sumG : null,
      providerAmountMinor: p0 ? sumP : null,
    });
    if (sumP === sumG) {
      if (p0 && g0) matched++;
      // Steps on one side that net to nothing moved no money: no item.
    } else if (!g0) items.push(withSums(item('missing_in_gateway', p0, null)));
    else if (!p0) items.push(withSums(item('missing_at_provider', null, g0)));
    else items.push(withSums(item('amount_mismatch', p0, g0)));
  }
  return matched;
}

export function matchMovements(allProvider: ProviderRow[], allGateway: GatewayRow[]): MatchResult {
  const provider = allProvider.filter((p) => p.type !== 'dispute');
  const gateway = allGateway.filter((g) => g.type !== 'dispute');
  const index = new GatewayIndex(gateway);
  const totals = new Map<string, CurrencyTotals>();
  const items: ReconciliationItem[] = [];
  let matchedCount = 0;

  for (const g of allGateway) {
    if (g.inDay) totalsOf(totals, g.currency).gatewayNetMinor += BigInt(g.amountMinor);
  }
  for (const p of allProvider) {
    if (!p.inDay || p.status !== 'completed') continue;
    const t = totalsOf(totals, p.currency);
    t.providerNetMinor += BigInt(p.amountMinor);
    if (p.feeMinor !== null) t.feesMinor += BigInt(p.feeMinor);
  }

  const item: ItemOf = (kind, p, g) => ({
    kind,
    movement: (p ?? g)!.type,
    providerRef: p?.providerRef ?? g?.providerRef ?? g?.paymentId ?? '',
    paymentId: p?.paymentId ?? g?.paymentId ?? null,
    currency: (p ?? g)!.currency,
    gatewayAmountMinor: g?.amountMinor ?? null,
    providerAmountMinor: p?.amountMinor ?? null,
    providerStatus: p?.status ?? null,
  });

  const pair = (p: ProviderRow, g: GatewayRow) => {
    if (!p.inDay && !g.inDay) return;
    if (p.status !== 'completed') items.push(item('status_mismatch', p, g));
    else if (p.amountMinor !== g.amountMinor || p.currency !== g.currency) {
      items.push(item('amount_mismatch', p, g));
    } else matchedCount++;
  };

  // Exact identities first, so a loose match never takes another row's partner.
  const leftover: ProviderRow[] = [];
  for (const p of provider) {
    const g = index.exact(p);
    if (g) pair(p, g);
    else leftover.push(p);
  }
  for (const p of leftover) {
    const g = index.loose(p);
    if (g) pair(p, g);
    // Nothing moved for a pending or failed movement the gateway does not have either.
    else if (p.inDay && p.status === 'completed') items.push(item('missing_in_gateway', p, null));
  }
  for (const g of index.unused()) {
    if (g.inDay) items.push(item('missing_at_provider', null, g));
  }
  matchedCount += matchDisputes(
    allProvider.filter((p) => p.type === 'dispute'),
    allGateway.filter((g) => g.type === 'dispute'),
    item,
    items,
  );
  return { matchedCount, totals, items };
}

/** The item's identity across runs of one day (its exception's key). */
export function itemKey(i: ReconciliationItem): string {
  return `${i.kind}|${i.movement}|${i.providerRef}|${i.paymentId ?? ''}`;
}
