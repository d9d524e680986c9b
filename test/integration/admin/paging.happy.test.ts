/**
 * Admin list paging is total and exact to the microsecond (docs/api.md#query-parameters):
 * rows created in the same millisecond as the cursor row, or at the very same instant,
 * each appear exactly once, newest first by (created_at, id), whatever the page size.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

let gw: TestGateway;
let app: AppWithSecrets;

/**
 * Microseconds past 2026-01-01T00:00:00.123Z: all but the last two in one millisecond,
 * several at the identical instant, so ties fall to the id.
 */
const OFFSETS_US = [0, 1, 1, 1, 250, 250, 499, 500, 998, 999, 999, 999, 999, -1, 1000];
const BASE = '2026-01-01T00:00:00.123Z';
const at = `$2::timestamptz + $3::int * interval '1 microsecond'`;

const hex = () => randomBytes(16).toString('hex');
let paymentIds: string[] = [];
const byId = (r: Record<string, unknown>) => String(r.id);

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp();
  paymentIds = OFFSETS_US.map(hex);
  for (const [i, id] of paymentIds.entries()) {
    const us = OFFSETS_US[i];
    await sql(
      gw.databaseUrl,
      `INSERT INTO payments (id, app_id, mode, status, amount_minor, currency, method, provider,
         external_user_id, return_url, created_at, updated_at)
       VALUES ($1, $4, 'test', $5, 1000, 'IDR', 'qris', 'idr_psp', 'pager',
         'https://shop.example/return', ${at}, ${at})`,
      [id, BASE, us, app.app_id, i % 3 === 0 ? 'initiated' : 'canceled'],
    );
    await sql(
      gw.databaseUrl,
      `INSERT INTO refunds (id, payment_id, app_id, mode, status, amount_minor, currency,
         provider, created_at, updated_at)
       VALUES ($1, $4, $5, 'test', 'failed', 1000, 'IDR', 'idr_psp', ${at}, ${at})`,
      [hex(), BASE, us, id, app.app_id],
    );
    await sql(
      gw.databaseUrl,
      `INSERT INTO payment_exceptions (id, payment_id, app_id, kind, provider, provider_ref,
         amount_minor, currency, detected_at, resolution)
       VALUES ($1, $4, $5, 'paid_after_cancel', 'idr_psp', $1, 1000, 'IDR', ${at}, 'manual')`,
      [hex(), BASE, us, id, app.app_id],
    );
    await sql(
      gw.databaseUrl,
      `INSERT INTO audit_log (at, action, target_type, target_id, outcome, request_id, source_ip,
         actor)
       VALUES (${at.replace('$2', '$1').replace('$3', '$2')}, 'payment.sync', 'payment', $3,
         'unchanged', 'req', '127.0.0.1', 'root')`,
      [BASE, us, id],
    );
  }
});
after(async () => {
  await gw?.stop();
});

/** Every page of `path` with the given limit, concatenated: each row's id, the next cursor. */
async function pageThrough(path: string, listKey: string, limit: number): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const sep = path.includes('?') ? '&' : '?';
    const url: string = `${path}${sep}limit=${limit}${cursor === null ? '' : `&before=${cursor}`}`;
    const res = await gw.admin('GET', url);
    assert.equal(res.status, 200, `${url}: ${res.text}`);
    const rows = res.json<Record<string, Record<string, unknown>[]>>()[listKey];
    assert.ok(Array.isArray(rows), `${url} answers a ${listKey} list`);
    assert.ok(rows.length <= limit, `${url} answers at most ${limit} rows`);
    if (rows.length === 0) return seen;
    seen.push(...rows.map(byId));
    cursor = seen[seen.length - 1] ?? null;
  }
  assert.fail(`${path} did not end within 100 pages`);
}

/** The full order as the database defines it, from the stored microsecond timestamps. */
async function expected(query: string): Promise<string[]> {
  const rows = await sql<{ id: string }>(gw.databaseUrl, query);
  return rows.map((r) => String(r.id));
}

describe('admin list paging with rows in the cursor row millisecond', () => {
  const lists: { name: string; path: string; key: string; order: string }[] = [
    {
      name: 'payments',
      path: '/admin/payments',
      key: 'payments',
      order: 'SELECT id FROM payments ORDER BY created_at DESC, id DESC',
    },
    {
      name: 'payments, mode filter',
      path: '/admin/payments?mode=test',
      key: 'payments',
      order: `SELECT id FROM payments WHERE mode = 'test' ORDER BY created_at DESC, id DESC`,
    },
    {
      name: 'payments, status filter',
      path: '/admin/payments?status=canceled',
      key: 'payments',
      order: `SELECT id FROM payments WHERE status = 'canceled' ORDER BY created_at DESC, id DESC`,
    },
    {
      name: 'payment search by app_id',
      path: '/admin/payments?app_id=APP',
      key: 'payments',
      order: `SELECT id FROM payments WHERE app_id = 'APP' ORDER BY created_at DESC, id DESC`,
    },
    {
      name: 'payment search by q (external_user_id)',
      path: '/admin/payments?q=pager',
      key: 'payments',
      order: `SELECT id FROM payments WHERE external_user_id = 'pager' ORDER BY created_at DESC, id DESC`,
    },
    {
      name: 'payment search by created_from/created_to',
      path: '/admin/payments?created_from=2026-01-01&created_to=2026-01-02',
      key: 'payments',
      order: `SELECT id FROM payments WHERE created_at >= '2026-01-01Z' AND created_at < '2026-01-02Z'
              ORDER BY created_at DESC, id DESC`,
    },
    {
      name: 'refunds',
      path: '/admin/refunds',
      key: 'refunds',
      order: 'SELECT id FROM refunds ORDER BY created_at DESC, id DESC',
    },
    {
      name: 'exceptions',
      path: '/admin/exceptions',
      key: 'exceptions',
      order: 'SELECT id FROM payment_exceptions ORDER BY detected_at DESC, id DESC',
    },
    {
      name: 'audit',
      path: '/admin/audit',
      key: 'entries',
      order: 'SELECT id FROM audit_log ORDER BY id DESC',
    },
  ];
  for (const list of lists) {
    test(`${list.name}: every row exactly once, in order, for limit 1, 2 and 3`, async () => {
      const path = list.path.replace('APP', app.app_id);
      const want = await expected(list.order.replace('APP', app.app_id));
      // The status filter keeps 10 of the 15 inserted payments; every other list all 15.
      assert.ok(want.length >= 10, `${list.name} holds the inserted rows`);
      for (const limit of [1, 2, 3]) {
        const got = await pageThrough(path, list.key, limit);
        assert.deepEqual(got, want, `${list.name} with limit=${limit}`);
        assert.equal(new Set(got).size, got.length, `${list.name} repeats no row`);
      }
    });
  }

  test('the inserted payments really share one millisecond and some one instant', async () => {
    const rows = await sql<{ ms: number; instants: number }>(
      gw.databaseUrl,
      `SELECT count(DISTINCT date_trunc('milliseconds', created_at))::int AS ms,
              count(DISTINCT created_at)::int AS instants
       FROM payments WHERE id = ANY($1)`,
      [paymentIds],
    );
    assert.deepEqual(rows[0], { ms: 3, instants: 9 });
  });
});
