/**
 * GET /admin/payments with the bounded scan (docs/api.md#bounded-search): the 400s are
 * those of before, word for word, on the searches that stop at the bound too; a
 * `next_before` is a `before` the list accepts, and only a payment's id is one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SCAN_ROWS } from '../../../src/db/paymentScan.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertError, assertStatus, sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

let gw: TestGateway;
let app: AppWithSecrets;
const ROWS = SCAN_ROWS * 2 + 10;
/** The app's payments are all initiated: none failed, found out SCAN_ROWS rows a page. */
let BOUNDED = '';

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp({ name: 'Bounded errors shop' });
  BOUNDED = `app_id=${app.app_id}&status=failed`;
  await sql(
    gw.databaseUrl,
    `INSERT INTO payments (id, app_id, mode, status, amount_minor, currency, method, provider,
       external_user_id, return_url, created_at, updated_at)
     SELECT md5('bounded-error-' || g), $1, $2, 'initiated', 1000, 'IDR', 'qris', 'idr_psp',
       'bulk', 'https://shop.example/return', now() - g * interval '1 second',
       now() - g * interval '1 second'
     FROM generate_series(1, $3::int) g`,
    [app.app_id, app.mode, ROWS],
  );
  await sql(
    gw.databaseUrl,
    `INSERT INTO refunds (id, payment_id, app_id, mode, status, amount_minor, currency,
       provider, created_at, updated_at)
     VALUES (md5('bounded-error-refund'), md5('bounded-error-1'), $1, $2, 'failed', 1000,
       'IDR', 'idr_psp', now(), now())`,
    [app.app_id, app.mode],
  );
});

after(async () => {
  await gw?.stop();
});

describe('GET /admin/payments, bounded: errors', () => {
  test('a bad before, limit, status or amount is the same 400 on a bounded search', async () => {
    const refundId = (
      await sql<{ id: string }>(gw.databaseUrl, `SELECT md5('bounded-error-refund') AS id`)
    )[0]!.id;
    const cases: [string, string][] = [
      [`${BOUNDED}&before=nope`, 'before must be a payment id from a previous page'],
      [`${BOUNDED}&before=${'0'.repeat(32)}`, 'before must be a payment id from a previous page'],
      // A refund's id is not a payment's, however it was found.
      [`${BOUNDED}&before=${refundId}`, 'before must be a payment id from a previous page'],
      [`${BOUNDED}&before=`, ''],
      [`${BOUNDED}&limit=0`, 'limit must be an integer from 1 to 1000'],
      [`${BOUNDED}&limit=1001`, 'limit must be an integer from 1 to 1000'],
      [`${BOUNDED}&limit=1.5`, 'limit must be an integer from 1 to 1000'],
      [
        'status=paid&amount_min=900000',
        'status must be one of initiated, succeeded, failed, canceled',
      ],
      ['status=initiated&amount_min=-1', 'amount_min must be a non-negative integer'],
      [
        'status=initiated&amount_min=10&amount_max=9',
        'amount_min must not be greater than amount_max',
      ],
      [`q=bulk&${BOUNDED}&before=nope`, 'before must be a payment id from a previous page'],
    ];
    for (const [query, reason] of cases) {
      const res = await gw.admin('GET', `/admin/payments?${query}`);
      if (reason === '') {
        // An empty before is no cursor: the first page.
        assertStatus(res, 200);
        continue;
      }
      assertError(res, 400, reason);
    }
  });

  test('the next_before of an empty page is a before the list accepts', async () => {
    const first = await gw.admin('GET', `/admin/payments?${BOUNDED}`);
    assertStatus(first, 200);
    const body = first.json<{ payments: unknown[]; next_before: string | null }>();
    assert.deepEqual(body.payments, []);
    assert.ok(body.next_before !== null);
    const next = await gw.admin('GET', `/admin/payments?${BOUNDED}&before=${body.next_before}`);
    assertStatus(next, 200);
    // Refunds are not bounded: their only filter, mode, is the first column of their index.
    const refunds = await gw.admin('GET', `/admin/refunds?mode=live`);
    assertStatus(refunds, 200);
    assert.deepEqual(Object.keys(refunds.json<object>()), ['mode', 'refunds']);
  });
});
