/**
 * The schema-compiled writers (src/domain/serialize.ts) against what the API wrote before
 * them: the view functions they replaced (copied here verbatim as the reference) followed by
 * JSON.stringify, over varied rows (unicode, quotes, backslashes, every control character,
 * lone surrogates, nulls, the largest amounts). Byte for byte.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PaymentRow } from '../../src/db/payments.js';
import type { RefundRow } from '../../src/db/refunds.js';
import type { RefundListRow } from '../../src/db/reportLists.js';
import { exactJson } from '../../src/domain/exactJson.js';
import { SOURCE, type JsonSchema } from '../../src/domain/jsonSchema.js';
import { RESPONSE_SCHEMAS } from '../../src/domain/responseSchemas.js';
import { serialize, writerFor } from '../../src/domain/serialize.js';

// ----------------------------------------------- the views the writers replaced (reference)

function oldRefundView(r: RefundRow) {
  return {
    refund_id: r.id,
    payment_id: r.payment_id,
    status: r.status,
    amount_minor: r.amount_minor,
    currency: r.currency,
    provider_ref: r.provider_ref ?? '',
    reason: r.reason,
    created_at: r.created_at.toISOString(),
  };
}

function oldPaymentView(p: PaymentRow) {
  return {
    payment_id: p.id,
    status: p.status,
    amount_minor: p.amount_minor,
    currency: p.currency,
    method: p.method,
    provider: p.provider,
    provider_ref: p.provider_ref ?? '',
    metadata: p.metadata,
    invoice_number: p.invoice_number ?? '',
    last_error: p.last_error,
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
  };
}

function oldAdminRefundView(r: RefundListRow) {
  return {
    id: r.id,
    payment_id: r.payment_id,
    app_id: r.app_id,
    mode: r.mode,
    status: r.status,
    amount_minor: r.amount_minor,
    currency: r.currency,
    provider: r.provider,
    provider_ref: r.provider_ref,
    reason: r.reason,
    last_error: r.last_error,
    succeeded_at: r.succeeded_at?.toISOString() ?? null,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

// --------------------------------------------------------------------------- varied rows

/** A small deterministic generator (mulberry32), so a failure names a reproducible row. */
function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CONTROL = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i));
const PIECES = [
  ...CONTROL,
  '"',
  '\\',
  '/',
  "'",
  '\u007f',
  '\u2028',
  '\u2029',
  '\ud800',
  '\udfff',
  '\ud83d\ude00',
  'é',
  'e\u0301',
  '日本語',
  'Ğüşİ',
  '\u200b',
  '\ufeff',
  '<script>',
  'a',
  'Z',
  '0',
  ' ',
  '{"x":1}',
];

function text(r: () => number, max = 12): string {
  let s = '';
  const n = Math.floor(r() * max);
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(r() * PIECES.length)];
  return s;
}
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const maybe = <T>(r: () => number, v: T): T | null => (r() < 0.3 ? null : v);
const AMOUNTS = [0, 1, 999, 5000, 2 ** 31, 2 ** 32 + 1, Number.MAX_SAFE_INTEGER];
const date = (r: () => number) => new Date(Math.floor(r() * 4102444800000));
const hex = (r: () => number) =>
  Array.from({ length: 32 }, () => Math.floor(r() * 16).toString(16)).join('');

function refundRow(r: () => number): RefundRow {
  return {
    id: hex(r),
    payment_id: hex(r),
    app_id: `app_${text(r)}`,
    mode: pick(r, ['live', 'sandbox', 'test'] as const),
    status: pick(r, ['initiated', 'succeeded', 'failed'] as const),
    amount_minor: pick(r, AMOUNTS),
    currency: pick(r, ['IDR', 'USD', text(r, 3)]),
    provider: pick(r, ['idr_psp', 'card_psp', 'wallet_psp']),
    provider_ref: maybe(r, text(r)),
    reason: text(r, 30),
    last_error: text(r),
    succeeded_at: maybe(r, date(r)),
    created_at: date(r),
    updated_at: date(r),
  };
}

function metadataValue(r: () => number, depth: number): unknown {
  const k = r();
  if (depth > 2 || k < 0.3) return text(r);
  if (k < 0.4) return pick(r, [0, -1, 1.5, 1e21, 2 ** 53 + 2, true, false, null]);
  if (k < 0.6)
    return Array.from({ length: Math.floor(r() * 4) }, () => metadataValue(r, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(r() * 5); i > 0; i--) o[text(r, 4)] = metadataValue(r, depth + 1);
  return o;
}

function metadataObject(r: () => number): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(r() * 6); i > 0; i--) o[text(r, 4)] = metadataValue(r, 0);
  return o;
}

function paymentRow(r: () => number): PaymentRow {
  // Only the columns the views read matter; the rest of the row rides along unwritten.
  return {
    id: hex(r),
    app_id: `app_${hex(r)}`,
    status: pick(r, ['initiated', 'succeeded', 'failed', 'canceled', 'expired']),
    amount_minor: pick(r, AMOUNTS),
    currency: pick(r, ['IDR', 'EUR', text(r, 3)]),
    method: pick(r, ['qris', 'card', text(r)]),
    provider: pick(r, ['idr_psp', 'card_psp']),
    provider_ref: maybe(r, text(r)),
    metadata: metadataObject(r),
    invoice_number: maybe(r, text(r)),
    last_error: text(r, 40),
    created_at: date(r),
    updated_at: date(r),
    email: maybe(r, text(r)),
    checkout_url: maybe(r, text(r)),
  } as unknown as PaymentRow;
}

const ROWS = 2000;

/**
 * The answers as the views wrote them: the gateway's own property schemas (types, sources)
 * restricted to the fields each view wrote, so a field added to a schema later (its own test
 * checks it) leaves this proof standing.
 */
function asTheViewWrote(
  schema: JsonSchema,
  keys: readonly string[],
  nested: Record<string, JsonSchema> = {},
): JsonSchema {
  const props = schema.properties ?? {};
  const pick = (k: string): JsonSchema => {
    const p = nested[k] ?? props[k];
    if (!p) throw new Error(`the schema no longer has ${k}`);
    return p;
  };
  return {
    ...schema,
    required: [...keys],
    properties: Object.fromEntries(keys.map((k) => [k, pick(k)])),
  };
}
const sample = refundRow(rng(0));
const ADMIN_REFUND = asTheViewWrote(
  RESPONSE_SCHEMAS.AdminRefund,
  Object.keys(oldAdminRefundView(sample)),
);
const asBefore = {
  Refund: writerFor(asTheViewWrote(RESPONSE_SCHEMAS.Refund, Object.keys(oldRefundView(sample)))),
  Payment: writerFor(
    asTheViewWrote(RESPONSE_SCHEMAS.Payment, Object.keys(oldPaymentView(paymentRow(rng(0))))),
  ),
  RefundList: writerFor(
    asTheViewWrote(RESPONSE_SCHEMAS.RefundList, ['mode', 'refunds'], {
      refunds: { type: 'array', items: ADMIN_REFUND },
    }),
  ),
};

describe('schema-compiled answers equal the hand-written views they replaced', () => {
  test('v1 Refund (POST /v1/refunds, POST /admin/payments/{id}/refund)', () => {
    const r = rng(1);
    for (let i = 0; i < ROWS; i++) {
      const row = refundRow(r);
      assert.equal(asBefore.Refund(row), JSON.stringify(oldRefundView(row)), `row ${i}`);
    }
  });

  test('v1 Payment (GET /v1/payments/{id}, admin cancel and sync)', () => {
    const r = rng(2);
    for (let i = 0; i < ROWS; i++) {
      const row = paymentRow(r);
      assert.equal(asBefore.Payment(row), JSON.stringify(oldPaymentView(row)), `row ${i}`);
    }
  });

  test('AdminRefund, RefundList (GET /admin/refunds)', () => {
    const r = rng(3);
    for (let i = 0; i < ROWS / 10; i++) {
      const refunds = Array.from({ length: Math.floor(r() * 5) }, () => refundRow(r));
      const mode = pick(r, ['', 'live', 'test']);
      assert.equal(
        asBefore.RefundList({ mode, refunds }),
        JSON.stringify({ mode, refunds: refunds.map(oldAdminRefundView) }),
        `page ${i}`,
      );
    }
  });

  test('PaymentDetail (GET /admin/payments/{id}): its refund, null or not, and the rest as built', () => {
    const r = rng(4);
    for (let i = 0; i < ROWS / 10; i++) {
      const refund = r() < 0.5 ? null : refundRow(r);
      const built = {
        id: hex(r),
        app_id: text(r),
        mode: 'live',
        status: 'succeeded',
        amount_minor: pick(r, AMOUNTS),
        currency: 'IDR',
        method: text(r),
        provider: 'idr_psp',
        provider_ref: maybe(r, text(r)),
        external_user_id: text(r),
        email: maybe(r, text(r)),
        return_url: text(r),
        metadata: metadataObject(r),
        invoice_number: text(r),
        last_error: text(r),
        checkout_url: maybe(r, text(r)),
        qr_string: maybe(r, text(r)),
        qr_image_url: maybe(r, text(r)),
        provider_deadline: maybe(r, date(r).toISOString()),
        finalized_at: maybe(r, date(r).toISOString()),
        subscription_id: maybe(r, text(r)),
        parent_payment_id: maybe(r, hex(r)),
        created_at: date(r).toISOString(),
        updated_at: date(r).toISOString(),
      };
      const disputes = Array.from({ length: Math.floor(r() * 3) }, () => ({
        dispute_id: hex(r),
        payment_id: hex(r),
        app_id: text(r),
        provider: 'card_psp',
        provider_ref: text(r),
        status: 'open',
        amount_minor: pick(r, AMOUNTS),
        currency: 'USD',
        reason: text(r),
        opened_at: date(r).toISOString(),
        closed_at: maybe(r, date(r).toISOString()),
        evidence_due_by: maybe(r, date(r).toISOString()),
        mode: 'live',
      }));
      const deliveries = Array.from({ length: Math.floor(r() * 3) }, () => ({
        delivery_id: text(r),
        event_id: text(r),
        event_type: 'payment.succeeded',
        endpoint_id: maybe(r, text(r)),
        status: 'pending',
        attempts_count: Math.floor(r() * 9),
        last_status_code: maybe(r, 500),
        next_attempt_at: maybe(r, date(r).toISOString()),
        delivered_at: maybe(r, date(r).toISOString()),
        created_at: date(r).toISOString(),
        attempts: Array.from({ length: Math.floor(r() * 3) }, (_, n) => ({
          attempt: n + 1,
          status_code: maybe(r, 200),
          response_body: maybe(r, text(r, 60)),
          error: maybe(r, text(r)),
          duration_ms: Math.floor(r() * 5000),
          started_at: date(r).toISOString(),
          outcome: 'retry',
        })),
      }));
      const rest = { inbound_events_count: Math.floor(r() * 4), deliveries };
      const keys = [...Object.keys(built), 'refund', 'disputes', ...Object.keys(rest)];
      const detail = writerFor(
        asTheViewWrote(RESPONSE_SCHEMAS.PaymentDetail, keys, {
          refund: { anyOf: [ADMIN_REFUND, { type: 'null' }] },
        }),
      );
      assert.equal(
        detail({ ...built, refund, disputes, ...rest }),
        JSON.stringify({
          ...built,
          refund: refund ? oldAdminRefundView(refund) : null,
          disputes,
          ...rest,
        }),
        `detail ${i}`,
      );
    }
  });
});

describe('the writer itself', () => {
  test('writes only the declared properties, in the schema order, whatever the row holds', () => {
    const row = refundRow(rng(5));
    const shuffled = Object.fromEntries(Object.entries(row).reverse());
    const out = serialize('Refund', { ...shuffled, secret: 'x', id: row.id });
    assert.equal(asBefore.Refund({ ...shuffled, secret: 'x' }), JSON.stringify(oldRefundView(row)));
    assert.equal(out.includes('secret'), false);
    assert.deepEqual(
      Object.keys(JSON.parse(out) as object),
      Object.keys(RESPONSE_SCHEMAS.Refund.properties ?? {}),
    );
  });

  test('integers are exact at every size: bigints and digit strings as JSON numbers', () => {
    const row = { ...refundRow(rng(6)), amount_minor: 2n ** 70n + 7n };
    const out = serialize('Refund', row);
    assert.match(out, /"amount_minor":1180591620717411303431,/);
    assert.equal(
      asBefore.Refund(row),
      exactJson({ ...oldRefundView(row as unknown as RefundRow) }),
    );
    const text = serialize('Refund', { ...row, amount_minor: '-12000000000000000007' });
    assert.match(text, /"amount_minor":-12000000000000000007,/);
    // Not digits: written as the string it is, for the answer checker to refuse.
    assert.match(serialize('Refund', { ...row, amount_minor: '1e3' }), /"amount_minor":"1e3",/);
  });

  test("exactJson (the free-form parts' writer) is JSON.stringify with exact bigints", () => {
    const r = rng(7);
    for (let i = 0; i < ROWS; i++) {
      const v = metadataValue(r, 0);
      assert.equal(exactJson(v), JSON.stringify(v));
    }
    const odd = {
      u: undefined,
      f: () => 1,
      d: new Date(0),
      bad: new Date(NaN),
      list: [undefined, () => 1, NaN, -0, Infinity],
      nested: { toJSON: () => ({ ok: 1 }) },
    };
    assert.equal(exactJson(odd), JSON.stringify(odd));
    assert.equal(exactJson(undefined), undefined);
    assert.equal(
      exactJson({ a: 5n, list: [9223372036854775817n, -1n], s: ':5' }),
      '{"a":5,"list":[9223372036854775817,-1],"s":":5"}',
    );
  });

  test('a null column written as the property says; optional properties left out when absent', () => {
    const row = { ...refundRow(rng(8)), provider_ref: null };
    assert.match(serialize('Refund', row), /"provider_ref":"",/);
    assert.match(serialize('RefundList', { mode: '', refunds: [row] }), /"provider_ref":null,/);
    const created = { payment_id: 'p', status: 'initiated', checkout_url: 'https://x/"y"' };
    assert.equal(serialize('CreatedPayment', created), JSON.stringify(created));
  });

  test('a required property the row lacks throws, naming it (a schema edit without its column)', () => {
    const row: Partial<RefundRow> = refundRow(rng(9));
    delete row.reason;
    assert.throws(() => serialize('Refund', row), /response field reason: the row has no reason/);
  });

  test('the row sources never reach the document', () => {
    const refundId = RESPONSE_SCHEMAS.Refund.properties?.refund_id ?? {};
    assert.deepEqual(refundId[SOURCE], { from: 'id' });
    assert.equal(JSON.stringify(refundId).includes('"id"'), false);
    assert.deepEqual(Object.keys(refundId), ['type', 'pattern', 'description', 'examples']);
  });
});
