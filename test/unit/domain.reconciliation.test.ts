/**
 * The matching of reconciliation (src/domain/reconciliation.ts) and the idr_psp settlement
 * file parser, without I/O: each kind of item, the slack rules, refunds paired by reference or
 * by payment and amount, the per-currency sums; the documented sample parsed exactly.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  itemKey,
  matchMovements,
  type GatewayRow,
  type ProviderRow,
} from '../../src/domain/reconciliation.js';
import {
  parseSettlementFile,
  SettlementFileError,
} from '../../src/providers/idr_psp/settlementFile.js';

const p = (o: Partial<ProviderRow>): ProviderRow => ({
  type: 'charge',
  providerRef: 'tx-1',
  paymentId: 'pay-1',
  status: 'completed',
  currency: 'EUR',
  amountMinor: 1000,
  feeMinor: 30,
  inDay: true,
  ...o,
});
const g = (o: Partial<GatewayRow>): GatewayRow => ({
  type: 'charge',
  paymentId: 'pay-1',
  providerRef: 'order-1',
  refundRef: null,
  currency: 'EUR',
  amountMinor: 1000,
  inDay: true,
  ...o,
});

test('a charge and a refund that agree match; sums and fees per currency', () => {
  const r = matchMovements(
    [p({}), p({ type: 'refund', providerRef: 'rf-1', amountMinor: -400, feeMinor: null })],
    [g({}), g({ type: 'refund', refundRef: 'rf-1', providerRef: 'rf-1', amountMinor: -400 })],
  );
  assert.equal(r.matchedCount, 2);
  assert.deepEqual(r.items, []);
  assert.deepEqual(r.totals.get('EUR'), {
    gatewayNetMinor: 600n,
    providerNetMinor: 600n,
    feesMinor: 30n,
  });
});

test('each kind of difference', () => {
  const r = matchMovements(
    [
      p({ paymentId: 'a', amountMinor: 1100 }),
      p({ paymentId: 'b', status: 'pending' }),
      p({ paymentId: null, providerRef: 'stranger' }),
      p({ paymentId: 'lost', providerRef: 'tx-lost' }),
    ],
    [g({ paymentId: 'a' }), g({ paymentId: 'b' }), g({ paymentId: 'gone', providerRef: 'o-gone' })],
  );
  assert.equal(r.matchedCount, 0);
  assert.deepEqual(
    r.items.map((i) => [i.kind, i.paymentId, i.gatewayAmountMinor, i.providerAmountMinor]),
    [
      ['amount_mismatch', 'a', 1000, 1100],
      ['status_mismatch', 'b', 1000, 1000],
      ['missing_in_gateway', null, null, 1000],
      ['missing_in_gateway', 'lost', null, 1000],
      ['missing_at_provider', 'gone', 1000, null],
    ],
  );
  // A pending charge counts in neither sum: nothing moved yet.
  assert.equal(r.totals.get('EUR')?.providerNetMinor, 1100n + 1000n + 1000n);
  assert.equal(itemKey(r.items[2]!), 'missing_in_gateway|charge|stranger|');
});

test('another currency is an amount_mismatch; a pending movement nobody booked is no item', () => {
  const r = matchMovements(
    [
      p({ currency: 'USD' }),
      p({ paymentId: 'x', status: 'pending' }),
      p({ paymentId: 'y', status: 'failed' }),
    ],
    [g({})],
  );
  assert.deepEqual(
    r.items.map((i) => i.kind),
    ['amount_mismatch'],
  );
});

test('the slack: rows outside the day pair but never become items or count', () => {
  const r = matchMovements(
    [
      p({ inDay: false }),
      p({ paymentId: 'late', inDay: true }),
      p({ paymentId: 'edge', inDay: false }),
    ],
    [
      g({ inDay: true }),
      g({ paymentId: 'late', inDay: false }),
      g({ paymentId: 'other', inDay: false }),
    ],
  );
  // pay-1: the provider's row is yesterday, the gateway's today: matched. late: the other way
  // round. edge: the provider's row outside the day without a partner: no item. other: the
  // gateway's outside the day: no item.
  assert.equal(r.matchedCount, 2);
  assert.deepEqual(r.items, []);
  assert.equal(r.totals.get('EUR')?.gatewayNetMinor, 1000n);
  assert.equal(r.totals.get('EUR')?.providerNetMinor, 1000n);
});

test('refunds pair by their reference first, then by payment and amount', () => {
  const r = matchMovements(
    [
      p({ type: 'refund', providerRef: 'polar-refund', amountMinor: -300 }),
      p({ type: 'refund', providerRef: 'rf-exact', amountMinor: -700 }),
    ],
    [
      // The gateway knows this refund by the order id (card_psp's order.refunded).
      g({ type: 'refund', refundRef: 'order-1', amountMinor: -700 }),
      g({ type: 'refund', refundRef: 'order-1b', amountMinor: -300 }),
      g({ type: 'refund', refundRef: 'rf-exact', amountMinor: -700 }),
    ],
  );
  assert.equal(r.matchedCount, 2);
  assert.deepEqual(
    r.items.map((i) => [i.kind, i.providerRef]),
    [['missing_at_provider', 'order-1']],
  );
});

const SAMPLE = readFileSync(
  new URL('../fixtures/idr_psp/settlement-report.2021-06-23.csv', import.meta.url),
);

test("the documented sample parses to Midtrans's values", () => {
  const rows = parseSettlementFile(SAMPLE, '2021-06-23');
  assert.deepEqual(
    rows.map((r) => ({ ...r, occurredAt: r.occurredAt.toISOString() })),
    [
      {
        line: 2,
        type: 'charge',
        providerRef: '9aed5972-5b6a-401e-894b-a32c91ed1a3a',
        paymentRef: '0a1b2c3d4e5f60718293a4b5c6d7e803',
        status: 'completed',
        currency: 'IDR',
        amountMinor: 100_000,
        feeMinor: 4000,
        // 11:27:50 WIB
        occurredAt: '2021-06-23T04:27:50.000Z',
      },
      {
        line: 3,
        type: 'charge',
        providerRef: '513f1f01-c9da-474c-9fc9-d5c64364b709',
        paymentRef: '0a1b2c3d4e5f60718293a4b5c6d7e801',
        status: 'completed',
        currency: 'IDR',
        amountMinor: 5539,
        feeMinor: 39,
        occurredAt: '2021-06-23T07:06:48.000Z',
      },
      {
        line: 4,
        type: 'refund',
        providerRef: 'reference1',
        paymentRef: '0a1b2c3d4e5f60718293a4b5c6d7e803',
        status: 'completed',
        currency: 'IDR',
        amountMinor: -10_000,
        feeMinor: 0,
        occurredAt: '2021-06-23T08:36:24.000Z',
      },
    ],
  );
});

test('a byte-order mark, LF line ends and quoted fields are read; the day is WIB or UTC', () => {
  const text = SAMPLE.toString('utf8').replace(/\r\n/g, '\n').replace(/,IDR,/g, ',"IDR",');
  assert.equal(parseSettlementFile(Buffer.from(`\uFEFF${text}`), '2021-06-23').length, 3);
  // A row at 00:30 WIB of the 23rd is 17:30 UTC of the 22nd: in the file of the 23rd.
  const early = text.replace('2021-06-23 11:27:50', '2021-06-23 00:30:00');
  assert.equal(parseSettlementFile(Buffer.from(early), '2021-06-23').length, 3);
  assert.throws(
    () => parseSettlementFile(Buffer.from(early), '2021-06-22'),
    (e: unknown) =>
      e instanceof SettlementFileError &&
      e.message === "settlement file line 3: the row's time is not on 2021-06-22",
  );
});

test('disputes pair by payment and amount; leftover steps must net to the same sum', () => {
  const d = (o: Partial<ProviderRow>) => p({ type: 'dispute', feeMinor: null, ...o });
  const gd = (o: Partial<GatewayRow>) => g({ type: 'dispute', providerRef: 'case-1', ...o });
  const r = matchMovements(
    [
      // A case lost: hold, release, chargeback; the gateway has one entry.
      d({ paymentId: 'lost', providerRef: 'h', amountMinor: -600 }),
      d({ paymentId: 'lost', providerRef: 'r', amountMinor: 600 }),
      d({ paymentId: 'lost', providerRef: 'c', amountMinor: -600 }),
      // Reported larger than booked.
      d({ paymentId: 'more', providerRef: 'rv', amountMinor: -510 }),
      // The gateway never heard of it; a pending hold is no movement.
      d({ paymentId: 'late', providerRef: 'rv2', amountMinor: -300 }),
      d({ paymentId: 'held', providerRef: 'h2', amountMinor: -200, status: 'pending' }),
      // Names no payment of the gateway.
      d({ paymentId: null, providerRef: 'cb', amountMinor: -50 }),
    ],
    [
      gd({ paymentId: 'lost', amountMinor: -600 }),
      gd({ paymentId: 'more', amountMinor: -500 }),
      gd({ paymentId: 'gone', providerRef: 'case-9', amountMinor: -700 }),
      // Outside the day on both sides: neither an item nor a match.
      gd({ paymentId: 'old', amountMinor: -100, inDay: false }),
    ],
  );
  assert.equal(r.matchedCount, 1);
  const view = r.items.map((i) => [
    i.kind,
    i.movement,
    i.paymentId,
    i.providerRef,
    i.gatewayAmountMinor,
    i.providerAmountMinor,
  ]);
  assert.deepEqual(view, [
    ['missing_in_gateway', 'dispute', null, 'cb', null, -50],
    ['amount_mismatch', 'dispute', 'more', 'rv', -500, -510],
    ['missing_in_gateway', 'dispute', 'late', 'rv2', null, -300],
    ['missing_at_provider', 'dispute', 'gone', 'case-9', -700, null],
  ]);
  assert.deepEqual(r.totals.get('EUR'), {
    gatewayNetMinor: -1800n,
    providerNetMinor: -600n + 600n - 600n - 510n - 300n - 50n,
    feesMinor: 0n,
  });
});

test('dispute money of two currencies is never netted together', () => {
  const d = (o: Partial<ProviderRow>) => p({ type: 'dispute', feeMinor: null, ...o });
  const gd = (o: Partial<GatewayRow>) => g({ type: 'dispute', providerRef: 'case-1', ...o });
  // The provider took 10.00 EUR back; the gateway booked 10.00 USD: the same digits are not
  // the same money, so each side is missing on the other.
  const r = matchMovements(
    [d({ paymentId: 'x', providerRef: 'cb', currency: 'EUR', amountMinor: -1000 })],
    [gd({ paymentId: 'x', currency: 'USD', amountMinor: -1000 })],
  );
  assert.equal(r.matchedCount, 0);
  assert.deepEqual(
    r.items
      .map((i) => [i.kind, i.currency, i.gatewayAmountMinor, i.providerAmountMinor])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    [
      ['missing_at_provider', 'USD', -1000, null],
      ['missing_in_gateway', 'EUR', null, -1000],
    ],
  );
});
