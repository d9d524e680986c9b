/**
 * The audit log: every admin request that changes something writes one entry in the
 * transaction of its change (none when the request changed nothing, none when its change
 * rolled back); GET /admin/audit lists them newest first with paging and filters; no secret
 * is ever recorded; the table is append-only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertError, assertStatus, RFC3339_UTC, sql } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { createPayment, paidPayment } from '../../helpers/payments.js';

interface Entry {
  id: number;
  at: string;
  action: string;
  target_type: string;
  target_id: string;
  outcome: string;
  request_id: string;
  source_ip: string;
  details: Record<string, unknown>;
}

let gw: TestGateway;
let app: AppWithSecrets;
const secrets: string[] = [];

before(async () => {
  gw = await startTestGateway();
});
after(async () => {
  await gw?.stop();
});

async function entries(query = ''): Promise<Entry[]> {
  const res = await gw.admin('GET', `/admin/audit${query}`);
  assertStatus(res, 200);
  return res.json<{ entries: Entry[] }>().entries;
}

async function countFor(targetId: string): Promise<number> {
  return (await entries(`?target_id=${targetId}&limit=1000`)).length;
}

describe('entries of each admin change', () => {
  test('apps create, update, regenerate keys; URL credentials and keys never recorded', async () => {
    const created = await gw.admin('POST', '/admin/apps', {
      name: 'Audited shop',
      webhook_url: 'https://user:hunter2@hooks.example.com/in?token=s3cret',
    });
    assertStatus(created, 201);
    app = created.json<AppWithSecrets>();
    secrets.push(app.signing_secret, app.webhook_secret, 'hunter2', 's3cret');
    const [entry] = await entries();
    assert.equal(entry?.action, 'app.create');
    assert.equal(entry?.target_type, 'app');
    assert.equal(entry?.target_id, app.app_id);
    assert.equal(entry?.outcome, 'created');
    assert.match(entry?.at ?? '', RFC3339_UTC);
    assert.equal(typeof entry?.id, 'number');
    assert.ok((entry?.request_id ?? '') !== '');
    assert.equal(entry?.source_ip, '127.0.0.1');
    assert.equal(entry?.details.name, 'Audited shop');
    assert.equal(entry?.details.mode, 'test');
    assert.equal(entry?.details.webhook_url, 'https://hooks.example.com/in?[redacted]');

    assertStatus(await gw.admin('PATCH', `/admin/apps/${app.app_id}`, { name: 'Renamed' }), 200);
    const [update] = await entries();
    assert.equal(update?.action, 'app.update');
    assert.deepEqual(update?.details, { name: 'Renamed' });

    const rotated = await gw.admin('POST', `/admin/apps/${app.app_id}/regenerate-keys`);
    assertStatus(rotated, 200);
    const fresh = rotated.json<AppWithSecrets>();
    secrets.push(fresh.signing_secret, fresh.webhook_secret);
    const [regen] = await entries();
    assert.equal(regen?.action, 'app.regenerate_keys');
    assert.equal(regen?.outcome, 'regenerated');
    assert.deepEqual(regen?.details, {});
    app = { ...app, ...fresh };
    assert.equal(await countFor(app.app_id), 3);
  });

  test('a request that changes nothing writes nothing', async () => {
    const before = (await entries('?limit=1000')).length;
    assertError(
      await gw.admin('POST', '/admin/apps', { name: '' }),
      400,
      'name must be a non-empty string',
    );
    assertError(
      await gw.admin('PATCH', `/admin/apps/${app.app_id}`, { mode: 'live' }),
      400,
      'mode cannot be changed',
    );
    assertError(
      await gw.admin('PATCH', '/admin/apps/app_none', { name: 'x' }),
      404,
      'app not found',
    );
    assertError(
      await gw.admin('POST', '/admin/apps/app_none/regenerate-keys'),
      404,
      'app not found',
    );
    const fresh = await createPayment(gw, app, 'idr', 15_000);
    assertError(
      await gw.admin('POST', `/admin/payments/${fresh.id}/retry-webhook`),
      422,
      'payment has no webhook event to deliver',
    );
    assertError(
      await gw.admin('POST', `/admin/payments/${fresh.id}/refund`, {}),
      422,
      "payment must be in 'succeeded' state to refund (got initiated)",
    );
    assertError(
      await gw.admin('POST', `/admin/payments/${'0'.repeat(32)}/cancel`),
      404,
      'payment not found',
    );
    assert.equal((await entries('?limit=1000')).length, before);
  });

  test('cancel, refund and retry-webhook', async () => {
    const open = await createPayment(gw, app, 'idr', 21_000);
    assertStatus(await gw.admin('POST', `/admin/payments/${open.id}/cancel`), 200);
    const [cancel] = await entries();
    assert.deepEqual(
      [cancel?.action, cancel?.target_type, cancel?.target_id, cancel?.outcome],
      ['payment.cancel', 'payment', open.id, 'canceled'],
    );
    // Canceling it again changes nothing.
    assertError(
      await gw.admin('POST', `/admin/payments/${open.id}/cancel`),
      422,
      'payment already finalized (status canceled)',
    );
    assert.equal(await countFor(open.id), 1);

    const paid = await paidPayment(gw, app, 'idr', 22_000);
    const refunded = await gw.admin('POST', `/admin/payments/${paid.id}/refund`, {
      amount_minor: 1000,
      reason: 'goodwill',
    });
    assertStatus(refunded, 201);
    const refundId = refunded.json<{ refund_id: string }>().refund_id;
    const [refund] = await entries();
    assert.equal(refund?.action, 'payment.refund');
    assert.equal(refund?.outcome, 'refund_initiated');
    assert.deepEqual(refund?.details, {
      refund_id: refundId,
      amount_minor: 1000,
      reason: 'goodwill',
    });
    assertError(
      await gw.admin('POST', `/admin/payments/${paid.id}/refund`, {}),
      422,
      'payment already has a refund',
    );

    const paid2 = await paidPayment(gw, app, 'idr', 23_000);
    assertStatus(await gw.admin('POST', `/admin/payments/${paid2.id}/cancel`), 201);
    const [cancelRefund] = await entries();
    assert.equal(cancelRefund?.action, 'payment.cancel');
    assert.equal(cancelRefund?.outcome, 'refund_initiated');

    const retried = await gw.admin('POST', `/admin/payments/${paid2.id}/retry-webhook`);
    assertStatus(retried, 202);
    const [retry] = await entries();
    assert.equal(retry?.action, 'payment.retry_webhook');
    assert.equal(retry?.details.delivery_id, retried.json<{ delivery_id: string }>().delivery_id);
  });

  test('no entry when the change rolls back, and no change without its entry', async () => {
    // The entry cannot be written (a trigger refuses it): the change it records rolls back too.
    await sql(
      gw.databaseUrl,
      `CREATE FUNCTION refuse_entry() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN RAISE EXCEPTION 'refused'; END $$;
       CREATE TRIGGER refuse_entry BEFORE INSERT ON audit_log FOR EACH ROW
         WHEN (NEW.details->>'name' = 'Doomed' OR NEW.action = 'payment.retry_webhook')
         EXECUTE FUNCTION refuse_entry()`,
    );
    try {
      assertError(await gw.admin('POST', '/admin/apps', { name: 'Doomed' }), 500, 'internal error');
      assert.deepEqual(await sql(gw.databaseUrl, `SELECT 1 FROM apps WHERE name = 'Doomed'`), []);
      const paid = await paidPayment(gw, app, 'idr', 24_000);
      const deliveries = async () =>
        (
          await sql(
            gw.databaseUrl,
            `SELECT 1 FROM deliveries WHERE event_id IN (SELECT id FROM outbound_events WHERE payment_id = $1)`,
            [paid.id],
          )
        ).length;
      const n = await deliveries();
      assertError(
        await gw.admin('POST', `/admin/payments/${paid.id}/retry-webhook`),
        500,
        'internal error',
      );
      assert.equal(await deliveries(), n);
      assert.equal(await countFor(paid.id), 0);
    } finally {
      await sql(
        gw.databaseUrl,
        `DROP TRIGGER refuse_entry ON audit_log; DROP FUNCTION refuse_entry()`,
      );
    }
  });

  test('no secret anywhere in the log', async () => {
    const all = await sql<{ row: string }>(
      gw.databaseUrl,
      `SELECT row_to_json(a)::text AS row FROM audit_log a`,
    );
    assert.ok(all.length > 0);
    for (const { row } of all) {
      for (const s of secrets) assert.ok(!row.includes(s), 'a secret was recorded');
    }
  });
});

describe('GET /admin/audit', () => {
  test('newest first; limit and before page; action and target_id filter', async () => {
    const all = await entries('?limit=1000');
    const ids = all.map((e) => e.id);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => b - a),
    );
    const page1 = await entries('?limit=2');
    assert.deepEqual(
      page1.map((e) => e.id),
      ids.slice(0, 2),
    );
    const page2 = await entries(`?limit=2&before=${page1[1]?.id}`);
    assert.deepEqual(
      page2.map((e) => e.id),
      ids.slice(2, 4),
    );
    assert.deepEqual(await entries(`?before=${ids[ids.length - 1]}`), []);
    const creates = await entries('?action=app.create');
    assert.ok(creates.length > 0 && creates.every((e) => e.action === 'app.create'));
    const mine = await entries(`?target_id=${app.app_id}&action=app.update`);
    assert.deepEqual(
      mine.map((e) => e.action),
      ['app.update'],
    );
  });

  test('every 400, and the admin token is required', async () => {
    const cases: [string, string][] = [
      ['limit=0', 'limit must be an integer from 1 to 1000'],
      ['limit=1001', 'limit must be an integer from 1 to 1000'],
      ['before=abc', 'before must be an audit entry id from a previous page'],
      ['before=0', 'before must be an audit entry id from a previous page'],
      [
        'action=app.delete',
        'action must be one of app.create, app.update, app.regenerate_keys, app.redeliver, endpoint.create, endpoint.update, endpoint.disable, endpoint.rotate_secret, endpoint.recover, endpoint.auto_disable, payment.cancel, payment.refund, payment.retry_webhook, payment.sync, reconciliation.import, reconciliation.run, exception.resolve, operator.create, operator.update, operator.token_create, operator.token_revoke, operator.sign_in, operator.sign_out, admin_token.update',
      ],
      ['actor=bob', 'actor must be root, system or an operator id'],
      ['actor=op_123', 'actor must be root, system or an operator id'],
      [`target_id=${'x'.repeat(201)}`, 'target_id must be at most 200 characters of text'],
      ['target_id=a%00', 'target_id must be at most 200 characters of text'],
    ];
    for (const [q, reason] of cases)
      assertError(await gw.admin('GET', `/admin/audit?${q}`), 400, reason);
    assertError(await gw.admin('GET', '/admin/audit', undefined, ''), 401, 'unauthorized');
  });

  test('append only: the database refuses updates and deletes', async () => {
    await assert.rejects(sql(gw.databaseUrl, `UPDATE audit_log SET outcome = 'x'`), /append-only/);
    await assert.rejects(sql(gw.databaseUrl, `DELETE FROM audit_log`), /append-only/);
  });
});
