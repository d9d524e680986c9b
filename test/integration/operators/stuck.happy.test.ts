/**
 * GET /admin/stuck and POST /admin/payments/{id}/sync: stuck payments and refunds with what
 * the reconciler last asked and learned; sync applies the provider's answer as its webhook
 * would, once, even against a racing webhook.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { serviceDeps } from '../../../src/gateway.js';
import { reconcileDue, retryUnansweredRefunds } from '../../helpers/jobs.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertError, assertStatus, RFC3339_UTC, sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { idrNotification, idrTestServerKey, postWebhook } from '../../helpers/idrNotify.js';
import { createPayment, paidPayment } from '../../helpers/payments.js';

let gw: TestGateway;
let app: AppWithSecrets;

interface StuckBody {
  payments: {
    id: string;
    status: string;
    provider_deadline: string | null;
    last_check: { at: string; asked: string; learned: string } | null;
  }[];
  refunds: { id: string; payment_id: string; last_check: unknown }[];
}

before(async () => {
  // Workers off: the reconciler runs when a test calls it.
  gw = await startTestGateway({}, { workers: false });
  app = await gw.createApp({ name: 'Stuck shop' });
});
after(async () => {
  await gw?.stop();
});

async function stuck(query = ''): Promise<StuckBody> {
  const res = await gw.admin('GET', `/admin/stuck${query}`);
  assertStatus(res, 200);
  return res.json<StuckBody>();
}

async function overdue(id: string): Promise<void> {
  await sql(
    gw.databaseUrl,
    `UPDATE payments SET provider_deadline = now() - interval '1 second' WHERE id = $1`,
    [id],
  );
}

/** The provider settles the payment; its notification never arrives. */
async function settleAtProvider(id: string): Promise<void> {
  const rows = await sql(
    gw.databaseUrl,
    `UPDATE paygate_sim.sim_objects SET data = data || '{"transaction_status":"settlement","status_message":"Success"}'
     WHERE provider = 'idr_psp' AND kind = 'transaction' AND data->>'order_id' = $1 RETURNING 1`,
    [id],
  );
  assert.equal(rows.length, 1);
}

async function events(id: string): Promise<string[]> {
  const rows = await sql<{ event_type: string }>(
    gw.databaseUrl,
    `SELECT event_type FROM outbound_events WHERE payment_id = $1`,
    [id],
  );
  return rows.map((r) => r.event_type);
}

async function auditOf(id: string) {
  const res = await gw.admin('GET', `/admin/audit?target_id=${id}`);
  return res.json<{
    entries: { action: string; outcome: string; details: Record<string, unknown> }[];
  }>().entries;
}

describe('GET /admin/stuck', () => {
  test('an initiated payment past its deadline, then with what the reconciler asked and learned', async () => {
    const p = await createPayment(gw, app, 'idr', 15_000);
    assert.ok(
      !(await stuck()).payments.some((s) => s.id === p.id),
      'not stuck before its deadline',
    );
    await overdue(p.id);
    const listed = (await stuck()).payments.find((s) => s.id === p.id);
    assert.equal(listed?.status, 'initiated');
    assert.equal(listed?.last_check, null);

    assert.equal(await reconcileDue(gw.running.gw), 1);
    // The reconciler's claim moved the deadline forward; the payment is still stuck.
    const checked = (await stuck()).payments.find((s) => s.id === p.id);
    assert.ok(checked, 'still listed after the reconciler asked');
    assert.ok(Date.parse(checked.provider_deadline as string) > Date.now());
    assert.equal(checked.last_check?.asked, `payment status at idr_psp (ref ${p.providerRef})`);
    assert.equal(checked.last_check?.learned, 'pending');
    assert.match(checked.last_check?.at ?? '', RFC3339_UTC);

    // Once finalized it leaves the list.
    await settleAtProvider(p.id);
    await overdue(p.id);
    assert.equal(await reconcileDue(gw.running.gw), 1);
    assert.ok(!(await stuck()).payments.some((s) => s.id === p.id));
  });

  test('refunds initiated for more than 15 minutes, with the last resend and its answer', async () => {
    const p = await paidPayment(gw, app, 'idr', 16_000);
    const q = await paidPayment(gw, app, 'idr', 17_000);
    const insert = (rid: string, pid: string, minutes: number) =>
      sql(
        gw.databaseUrl,
        `INSERT INTO refunds (id, payment_id, app_id, mode, status, amount_minor, currency, provider,
           created_at, updated_at)
         VALUES ($1, $2, $3, 'test', 'initiated', 1000, 'IDR', 'idr_psp',
           now() - $4 * interval '1 minute', now() - $4 * interval '1 minute')`,
        [rid, pid, app.app_id, minutes],
      );
    await insert('a'.repeat(32), p.id, 16);
    await insert('b'.repeat(32), q.id, 14);
    const body = await stuck();
    assert.deepEqual(
      body.refunds.map((r) => [r.id, r.payment_id, r.last_check]),
      [['a'.repeat(32), p.id, null]],
    );
    // The refund reconciler sends the unanswered refund again; the provider refunds it.
    await retryUnansweredRefunds(serviceDeps(gw.running.gw));
    const rows = await sql(
      gw.databaseUrl,
      `SELECT status, last_check_asked, last_check_learned FROM refunds WHERE id = $1`,
      ['a'.repeat(32)],
    );
    assert.deepEqual(rows, [
      {
        status: 'succeeded',
        last_check_asked: `refund ${'a'.repeat(32)} resent to idr_psp`,
        last_check_learned: 'succeeded',
      },
    ]);
    assert.deepEqual((await stuck()).refunds, []);
  });

  test('limit bounds each list; 400 for a bad limit', async () => {
    assertStatus(await gw.admin('GET', '/admin/stuck?limit=1'), 200);
    assertError(
      await gw.admin('GET', '/admin/stuck?limit=0'),
      400,
      'limit must be an integer from 1 to 1000',
    );
    assertError(await gw.admin('GET', '/admin/stuck', undefined, 'nope'), 401, 'unauthorized');
  });
});

describe('POST /admin/payments/{id}/sync', () => {
  test('applies the provider answer as its webhook would: finalized, one outbound event, audited', async () => {
    const p = await createPayment(gw, app, 'idr', 18_000);
    await settleAtProvider(p.id);
    const res = await gw.admin('POST', `/admin/payments/${p.id}/sync`);
    assertStatus(res, 200);
    const body = res.json<Record<string, unknown>>();
    assert.equal(body.payment_id, p.id);
    assert.equal(body.status, 'succeeded');
    assert.deepEqual(await events(p.id), ['payment.succeeded']);
    const [entry] = await auditOf(p.id);
    assert.equal(entry?.action, 'payment.sync');
    assert.equal(entry?.outcome, 'succeeded');
    // What the provider took is part of what was learned (it is compared with the payment).
    assert.deepEqual(entry?.details, {
      asked: `payment status at idr_psp (ref ${p.providerRef})`,
      learned: 'succeeded: 18000 IDR',
    });
    // A terminal payment: answered as it is, nothing asked, nothing recorded.
    const again = await gw.admin('POST', `/admin/payments/${p.id}/sync`);
    assertStatus(again, 200);
    assert.equal(again.json<{ status: string }>().status, 'succeeded');
    assert.equal((await auditOf(p.id)).length, 1);
    assert.deepEqual(await events(p.id), ['payment.succeeded']);
  });

  test('still pending: unchanged, the check recorded and audited', async () => {
    const p = await createPayment(gw, app, 'idr', 19_000);
    const res = await gw.admin('POST', `/admin/payments/${p.id}/sync`);
    assertStatus(res, 200);
    assert.equal(res.json<{ status: string }>().status, 'initiated');
    assert.deepEqual(await events(p.id), []);
    const [entry] = await auditOf(p.id);
    assert.equal(entry?.outcome, 'unchanged');
    assert.equal(entry?.details.learned, 'pending');
  });

  test('404 for an unknown or malformed id, nothing recorded', async () => {
    assertError(
      await gw.admin('POST', `/admin/payments/${'f'.repeat(32)}/sync`),
      404,
      'payment not found',
    );
    assertError(await gw.admin('POST', '/admin/payments/nope/sync'), 404, 'payment not found');
    const rows = await sql(
      gw.databaseUrl,
      `SELECT 1 FROM audit_log WHERE target_id IN ($1, 'nope')`,
      ['f'.repeat(32)],
    );
    assert.equal(rows.length, 0);
  });

  test('sync racing the provider webhook finalizes once, with one outbound event', async () => {
    const key = idrTestServerKey(gw.config.masterKey);
    for (let i = 0; i < 8; i++) {
      const amount = 20_000 + i;
      const p = await createPayment(gw, app, 'idr', amount);
      await settleAtProvider(p.id);
      const webhook = idrNotification(key, {
        orderId: p.id,
        status: 'settlement',
        grossAmount: amount,
      });
      const [synced, hooked] = await Promise.all([
        gw.admin('POST', `/admin/payments/${p.id}/sync`),
        postWebhook(gw.url, 'idr_psp', webhook),
      ]);
      assertStatus(synced, 200);
      assert.equal(synced.json<{ status: string }>().status, 'succeeded');
      assert.equal(hooked.status, 200);
      assert.deepEqual(await events(p.id), ['payment.succeeded']);
      const [entry] = await auditOf(p.id);
      const syncWon = hooked.text.includes('already_finalized');
      if (entry === undefined) {
        // The webhook finalized it before the sync read it: a terminal payment is answered
        // as it is and nothing is recorded (the test above).
        assert.equal(syncWon, false, 'the sync finalized it, yet recorded nothing');
      } else {
        assert.equal(entry.outcome, syncWon ? 'succeeded' : 'already_finalized');
      }
    }
  });
});
