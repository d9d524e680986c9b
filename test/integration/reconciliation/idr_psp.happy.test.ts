/**
 * Reconciliation against idr_psp over real HTTP (docs/api.md#reconciliation): Midtrans has
 * no report API, so the operator uploads the day's settlement report file. The documented
 * sample is read; the simulator's file of a clean day matches; the same file twice changes
 * nothing; a malformed or foreign file is refused with its reason and stores nothing;
 * reconciliation_drift and a lost notification play as on the other providers. The steps
 * build on one day of one database, in order.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertError, assertStatus, count, HEX32 } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { createPayment, paidPayment, silentAction, simAction } from '../../helpers/payments.js';
import {
  exceptionsOfKind,
  onlyCurrency,
  reconcile,
  today,
  type Item,
  kinds,
} from '../../helpers/reconciliation.js';

let gw: TestGateway;
let shop: AppWithSecrets;

before(async () => {
  gw = await startTestGateway();
  shop = await gw.createApp({ name: 'Rupiah shop' });
});
after(async () => {
  await gw?.stop();
});

const HEADER =
  'order_id,transaction_id,refund_key,transaction_type,payment_type,transaction_status,transaction_time,settlement_time,currency,gross_amount,fee_amount,net_amount';
const SAMPLE = readFileSync(
  new URL('../../fixtures/idr_psp/settlement-report.2021-06-23.csv', import.meta.url),
);

interface ImportView {
  import_id: string;
  provider: string;
  mode: string;
  date: string;
  filename: string;
  row_count: number;
  uploaded_at: string;
  uploaded_by: { request_id: string; source_ip: string };
}

async function upload(body: Buffer | string, date = today(), extra = '') {
  const res = await fetch(
    `${gw.url}/admin/reconciliation/imports?provider=idr_psp&mode=test&date=${date}${extra}`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.config.adminToken}`, 'content-type': 'text/csv' },
      body: typeof body === 'string' ? body : new Uint8Array(body),
    },
  );
  const text = await res.text();
  return { status: res.status, text, headers: res.headers, json: <T>() => JSON.parse(text) as T };
}

async function simFile(date = today()): Promise<string> {
  const res = await fetch(`${gw.url}/sim/idr_psp/reports/settlement?date=${date}`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8');
  return res.text();
}

const stored = async () => ({
  imports: await count(gw.databaseUrl, 'reconciliation_imports'),
  rows: await count(gw.databaseUrl, 'reconciliation_import_rows'),
  audit: await count(gw.databaseUrl, `audit_log WHERE action = 'reconciliation.import'`),
});
test("Midtrans's documented sample: read whole, and none of its orders is the gateway's", async () => {
  const res = await upload(SAMPLE, '2021-06-23', '&filename=June%2023%20report.csv');
  assertStatus(res, 201);
  const imp = res.json<ImportView>();
  assert.match(imp.import_id, HEX32);
  assert.deepEqual(
    { ...imp, import_id: '', uploaded_at: '' },
    {
      import_id: '',
      provider: 'idr_psp',
      mode: 'test',
      date: '2021-06-23',
      filename: 'June 23 report.csv',
      row_count: 3,
      uploaded_at: '',
      uploaded_by: { request_id: imp.uploaded_by.request_id, source_ip: '127.0.0.1' },
    },
  );
  // Who uploaded it is the request the audit log recorded.
  const audit = await gw.admin('GET', `/admin/audit?action=reconciliation.import`);
  const entry = audit.json<{ entries: { request_id: string; target_id: string }[] }>().entries[0];
  assert.deepEqual(entry && { r: entry.request_id, t: entry.target_id }, {
    r: imp.uploaded_by.request_id,
    t: imp.import_id,
  });
  const r = await reconcile(gw, 'idr_psp', '2021-06-23');
  assert.equal(r.import_id, imp.import_id);
  assert.equal(r.status, 'mismatched');
  assert.deepEqual(onlyCurrency(r, 'IDR'), {
    gateway_net_minor: 0,
    provider_net_minor: 100_000 + 5539 - 10_000,
    fees_minor: 4000 + 39,
  });
  assert.deepEqual(kinds(r.items), [
    'missing_in_gateway:charge',
    'missing_in_gateway:charge',
    'missing_in_gateway:refund',
  ]);
  assert.deepEqual(
    r.items.map((i) => [i.provider_ref, i.payment_id, i.provider_amount_minor]).sort(),
    [
      ['513f1f01-c9da-474c-9fc9-d5c64364b709', null, 5539],
      ['9aed5972-5b6a-401e-894b-a32c91ed1a3a', null, 100_000],
      ['reference1', null, -10_000],
    ],
  );
});

test('a clean day: the simulator file of two payments and a refund matches', async () => {
  const a = await paidPayment(gw, shop, 'idr', 50_000);
  await paidPayment(gw, shop, 'va', 120_000);
  const refund = await gw.v1(shop, 'POST', '/v1/refunds', { payment_id: a.id, amount_minor: 5000 });
  assert.equal(refund.status, 201, refund.text);
  const file = await simFile();
  assert.equal(file.split('\r\n')[0], HEADER);
  // No file of the day yet: nothing to run on.
  assertError(
    await gw.admin('POST', '/admin/reconciliation/runs', {
      provider: 'idr_psp',
      date: today(),
      mode: 'test',
    }),
    422,
    `no settlement file imported for idr_psp on ${today()}`,
  );
  assertStatus(await upload(file), 201);
  const r = await reconcile(gw, 'idr_psp');
  assert.equal(r.status, 'matched', JSON.stringify(r.items));
  assert.equal(r.matched_count, 3);
  assert.deepEqual(onlyCurrency(r, 'IDR'), {
    gateway_net_minor: 165_000,
    provider_net_minor: 165_000,
    // QRIS 0.7% of 50,000 and a flat 4,000 for the virtual account.
    fees_minor: 350 + 4000,
  });
});

test('the same file uploaded twice: the first upload answers, nothing changes', async () => {
  const before = await stored();
  const [first] = (await gw.admin('GET', '/admin/reconciliation/imports?provider=idr_psp')).json<{
    imports: ImportView[];
  }>().imports;
  const again = await upload(await simFile());
  assertStatus(again, 200);
  assert.deepEqual(again.json(), first);
  // At once, twice more: one file all the same.
  const file = await simFile();
  const both = await Promise.all([upload(file), upload(file)]);
  assert.deepEqual(
    both.map((b) => b.status),
    [200, 200],
  );
  assert.deepEqual(await stored(), before);
});

test('a malformed or foreign file is refused with its reason and stores nothing', async () => {
  const before = await stored();
  const good = (await simFile()).split('\r\n');
  const row = good[1] as string;
  const cells = row.split(',');
  const withCell = (i: number, v: string) =>
    [HEADER, cells.map((c, j) => (j === i ? v : c)).join(',')].join('\r\n');
  const cases: [Buffer | string, string][] = [
    ['', 'settlement file is empty'],
    [Buffer.from([0x6f, 0xff, 0xfe, 0x0a]), 'settlement file must be UTF-8 text'],
    [
      // A PayPal activity download is not a Midtrans file.
      'Date,Time,TimeZone,Name,Type,Status,Currency,Gross,Fee,Net,Transaction ID\r\n24/11/2026,10:00:00,UTC,Buyer,Express Checkout Payment,Completed,EUR,100.00,-3.98,96.02,2GG279541U471931P\r\n',
      `not an idr_psp settlement report: the first line must be ${HEADER}`,
    ],
    [
      '{"transaction_details":[]}',
      `not an idr_psp settlement report: the first line must be ${HEADER}`,
    ],
    [`${HEADER}\r\n${row},extra`, 'settlement file line 2: expected 12 columns, found 13'],
    [withCell(9, '50000.50'), 'settlement file line 2: gross_amount must be a whole rupiah amount'],
    [withCell(11, '1'), 'settlement file line 2: net_amount must be gross_amount - fee_amount'],
    [
      withCell(3, 'capture'),
      'settlement file line 2: transaction_type must be payment, refund or chargeback',
    ],
    [withCell(8, 'USD'), 'settlement file line 2: currency must be IDR'],
    [
      withCell(0, 'bad order id!'),
      'settlement file line 2: order_id must be 1 to 50 of A-Z a-z 0-9 - _ ~ .',
    ],
    [
      withCell(7, '2001-01-01 00:00:00'),
      `settlement file line 2: the row's time is not on ${today()}`,
    ],
    [
      `${HEADER}\r\n${row}\r\n${row}`,
      `settlement file line 3: the payment ${cells[1]} is listed twice`,
    ],
  ];
  for (const [body, text] of cases) assertError(await upload(body), 400, text);
  assertError(
    await gw.admin(
      'POST',
      `/admin/reconciliation/imports?provider=wallet_psp&date=${today()}`,
      'x',
    ),
    400,
    'provider wallet_psp is reconciled from its API; settlement files are for idr_psp',
  );
  assertError(
    await upload(good.join('\r\n'), '2021-13-01'),
    400,
    'date must be a day as YYYY-MM-DD',
  );
  assertError(
    await upload(good.join('\r\n'), today(), '&filename=..%2Fetc%2Fpasswd'),
    400,
    'filename must be 1 to 200 letters, digits, spaces or . _ ( ) -',
  );
  assert.deepEqual(await stored(), before);
});

test('reconciliation_drift and a lost notification on idr_psp', async () => {
  const drift = await createPayment(gw, shop, 'idr', 30_000, {
    test_scenario: 'reconciliation_drift',
  });
  assert.equal((await simAction(gw, 'idr', drift.providerRef, 'pay')).gateway_status, 200);
  const refund = await gw.v1(shop, 'POST', '/v1/refunds', {
    payment_id: drift.id,
    amount_minor: 3000,
  });
  assert.equal(refund.status, 201, refund.text);
  const lost = await createPayment(gw, shop, 'idr', 7000, { test_scenario: 'lost_webhook' });
  await silentAction(gw, 'idr', lost.providerRef, 'pay');
  assertStatus(await upload(await simFile()), 201);
  const r = await reconcile(gw, 'idr_psp');
  assert.deepEqual(kinds(r.items), [
    'amount_mismatch:charge',
    'missing_at_provider:refund',
    'missing_in_gateway:charge',
    'missing_in_gateway:charge',
  ]);
  const missing = r.items.find((i) => i.payment_id === lost.id);
  assert.equal(missing?.kind, 'missing_in_gateway');
  assert.equal(r.items.find((i) => i.kind === 'amount_mismatch')?.provider_amount_minor, 30_100);
  assert.equal(r.items.filter((i) => i.payment_id === null).length, 1);
  // The late event: status synchronisation learns of the settlement; the same file then matches it.
  const sync = await gw.admin('POST', `/admin/payments/${lost.id}/sync`);
  assert.equal(sync.json<{ status: string }>().status, 'succeeded');
  const after = await reconcile(gw, 'idr_psp');
  assert.equal(after.items.length, 3);
  const ex = (await exceptionsOfKind(gw, 'reconciliation')).find(
    (e) => e.id === missing?.exception_id,
  );
  assert.equal(ex?.resolution, 'resolved');
});

test('a payment the file reports pending is a status_mismatch until a later file settles it', async () => {
  const p = await paidPayment(gw, shop, 'idr', 15_000);
  const file = await simFile();
  const row = file.split('\r\n').find((l) => l.startsWith(`${p.id},`)) as string;
  const cells = row.split(',');
  // The provider's export taken while the payment was still settling at the acquirer.
  const pending = [...cells.slice(0, 5), 'pending', cells[6], '', ...cells.slice(8)].join(',');
  assertStatus(await upload(file.replace(row, pending)), 201);
  const r = await reconcile(gw, 'idr_psp');
  const item = r.items.find((i) => i.payment_id === p.id);
  assert.deepEqual(item && [item.kind, item.provider_status, item.gateway_amount_minor], [
    'status_mismatch',
    'pending',
    15_000,
  ]);
  // The next export (its own bytes) shows it settled: the day's last file is read, the item clears.
  assertStatus(await upload(file.replace(/\r\n/g, '\n')), 201);
  const after = await reconcile(gw, 'idr_psp');
  assert.equal(
    after.items.find((i) => i.payment_id === p.id),
    undefined,
  );
  const ex = (await exceptionsOfKind(gw, 'reconciliation')).find(
    (e) => e.id === item?.exception_id,
  );
  assert.equal(ex?.resolution, 'resolved');
});

/** The file with the payment's charge row (cells) changed by edit. */
function editCharge(file: string, paymentId: string, edit: (cells: string[]) => string[]) {
  return file
    .split('\r\n')
    .map((l) => {
      const cells = l.split(',');
      return cells[0] === paymentId && cells[3] === 'payment' ? edit(cells).join(',') : l;
    })
    .join('\r\n');
}
/** The provider's gross (and so net) of the payment's charge raised by extra. */
const grossPlus = (file: string, paymentId: string, extra: number) =>
  editCharge(file, paymentId, (c) => {
    const plus = (v = '') => v.replace(/^-?\d+/, (n) => String(Number(n) + extra));
    return [...c.slice(0, 9), plus(c[9]), c[10] as string, plus(c[11])];
  });
const reconciliationExceptionsCounted = async () => {
  const m = await gw.admin('GET', '/metrics');
  const hit = /paygate_payment_exceptions_total\{kind="reconciliation"\} (\d+)/.exec(m.text);
  return Number(hit?.[1] ?? 0);
};
const exceptionById = async (id: string | null | undefined) => {
  const e = (await exceptionsOfKind(gw, 'reconciliation')).find((x) => x.id === id);
  return (
    e && {
      resolution: e.resolution,
      note: e.note,
      amount_minor: e.amount_minor,
      resolved_at: (e as unknown as { resolved_at: string | null }).resolved_at,
    }
  );
};

test('a difference found again after a run cleared it or an operator resolved it re-opens its exception', async () => {
  const p = await paidPayment(gw, shop, 'idr', 40_000);
  const itemOf = (r: { items: Item[] }) => r.items.find((i) => i.payment_id === p.id);
  const clean = await simFile();
  assertStatus(await upload(grossPlus(clean, p.id, 100)), 201);
  const first = itemOf(await reconcile(gw, 'idr_psp'));
  assert.deepEqual(first && [first.kind, first.provider_amount_minor], ['amount_mismatch', 40_100]);
  const id = first?.exception_id;
  assert.match(id ?? '', HEX32);
  // The corrected export: the run clears it.
  assertStatus(await upload(clean), 201);
  const matched = await reconcile(gw, 'idr_psp');
  assert.equal(itemOf(matched), undefined);
  assert.deepEqual(await exceptionById(id), {
    resolution: 'resolved',
    note: `matched by reconciliation run ${matched.run_id}`,
    amount_minor: 100,
    resolved_at: (await exceptionById(id))?.resolved_at,
  });
  assert.notEqual((await exceptionById(id))?.resolved_at, null);
  // A third export differs again: the same exception is open again, with the new difference,
  // logged and counted as a new one.
  let counted = await reconciliationExceptionsCounted();
  assertStatus(await upload(grossPlus(clean, p.id, 200)), 201);
  const third = itemOf(await reconcile(gw, 'idr_psp'));
  assert.deepEqual(third && [third.kind, third.provider_amount_minor, third.exception_id], [
    'amount_mismatch',
    40_200,
    id,
  ]);
  assert.deepEqual(await exceptionById(id), {
    resolution: 'manual',
    note: null,
    amount_minor: 200,
    resolved_at: null,
  });
  assert.equal(await reconciliationExceptionsCounted(), counted + 1);
  // Found again while open: nothing new.
  await reconcile(gw, 'idr_psp');
  assert.equal(await reconciliationExceptionsCounted(), counted + 1);
  // An operator resolves it: the same difference found again leaves it resolved.
  const note = 'the provider confirmed the 200 rupiah adjustment';
  const resolved = await gw.admin('POST', `/admin/exceptions/${id}/resolve`, { note });
  assert.equal(resolved.status, 200, resolved.text);
  counted = await reconciliationExceptionsCounted();
  assert.equal(itemOf(await reconcile(gw, 'idr_psp'))?.exception_id, id);
  const kept = await exceptionById(id);
  assert.deepEqual(
    { ...kept, resolved_at: null },
    {
      resolution: 'resolved',
      note,
      amount_minor: 200,
      resolved_at: null,
    },
  );
  assert.notEqual(kept?.resolved_at, null);
  assert.equal(await reconciliationExceptionsCounted(), counted);
  // The difference persists with another amount: open again.
  assertStatus(await upload(grossPlus(clean, p.id, 300)), 201);
  const fourth = itemOf(await reconcile(gw, 'idr_psp'));
  assert.deepEqual(fourth && [fourth.provider_amount_minor, fourth.exception_id], [40_300, id]);
  assert.deepEqual(await exceptionById(id), {
    resolution: 'manual',
    note: null,
    amount_minor: 300,
    resolved_at: null,
  });
  assert.equal(await reconciliationExceptionsCounted(), counted + 1);
  // Settle the day again for the steps after this one.
  assertStatus(await upload(`${clean}\r\n`), 201);
  assert.equal(itemOf(await reconcile(gw, 'idr_psp')), undefined);
});

test("a movement also in the previous day's file is read from the day's own file", async () => {
  const prev = new Date(Date.parse(today()) - 86_400_000).toISOString().slice(0, 10);
  const paid: string[] = [];
  // Each round uploads two new files (new import ids): the day's own row must win every time.
  for (let n = 0; n < 4; n++) {
    paid.push((await paidPayment(gw, shop, 'idr', 11_000 + n)).id);
    const file = await simFile();
    // Yesterday's export listed them still pending (no settlement time, created yesterday).
    const stale = paid.map((id) => {
      const cells = (file.split('\r\n').find((l) => l.startsWith(`${id},`)) ?? '').split(',');
      return [...cells.slice(0, 5), 'pending', `${prev} 12:00:00`, '', ...cells.slice(8)].join(',');
    });
    assertStatus(await upload([HEADER, ...stale].join('\r\n'), prev), 201);
    assertStatus(await upload(file), 201);
    const r = await reconcile(gw, 'idr_psp');
    assert.deepEqual(
      r.items.filter((i) => paid.includes(i.payment_id ?? '')),
      [],
    );
  }
});

test("the same bytes declared for two days are each day's own upload", async () => {
  const empty = `${HEADER}\r\n`;
  const a = await upload(empty, '2021-05-10');
  assertStatus(a, 201);
  const b = await upload(empty, '2021-05-11');
  assertStatus(b, 201);
  const [ia, ib] = [a.json<ImportView>(), b.json<ImportView>()];
  assert.notEqual(ib.import_id, ia.import_id);
  assert.deepEqual(
    [ia.date, ia.row_count, ib.date, ib.row_count],
    ['2021-05-10', 0, '2021-05-11', 0],
  );
  // Again for the second day: that day's upload answers.
  const again = await upload(empty, '2021-05-11');
  assertStatus(again, 200);
  assert.deepEqual(again.json(), ib);
  const r = await reconcile(gw, 'idr_psp', '2021-05-11');
  assert.deepEqual([r.import_id, r.status, r.items], [ib.import_id, 'matched', []]);
});

test('a file over RECONCILIATION_IMPORT_MAX_BYTES is 413 and stores nothing', async () => {
  const small = await startTestGateway({ RECONCILIATION_IMPORT_MAX_BYTES: '1024' });
  try {
    const res = await fetch(
      `${small.url}/admin/reconciliation/imports?provider=idr_psp&mode=test&date=2021-06-23`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${small.config.adminToken}`, 'content-type': 'text/csv' },
        body: `${HEADER}\r\n${'x'.repeat(2000)}`,
      },
    );
    assertError(
      {
        status: res.status,
        text: await res.text(),
        headers: res.headers,
        json: () => null as never,
      },
      413,
      'body too large',
    );
    assert.equal(await count(small.databaseUrl, 'reconciliation_imports'), 0);
    // The documented sample fits and is stored.
    const ok = await fetch(
      `${small.url}/admin/reconciliation/imports?provider=idr_psp&mode=test&date=2021-06-23`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${small.config.adminToken}` },
        body: new Uint8Array(SAMPLE),
      },
    );
    assert.equal(ok.status, 201, await ok.text());
  } finally {
    await small.stop();
  }
});
