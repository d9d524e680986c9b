import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { serviceDeps } from '../../../src/gateway.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { assertError, assertStatus, count, sql } from '../../helpers/core.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { retryUnansweredRefunds } from '../../helpers/jobs.js';
import { paidPayment } from '../../helpers/payments.js';

// D15: the provider answered a refund, and writing its answer to the database then failed.
// The money may have moved at the provider while our row still says initiated, so the answer
// is the unknown outcome's 504 (`refund failed: <what happened>`), never a 500; the refund
// stays initiated (it blocks a second one), and a retry with the same Idempotency-Key, or
// the refund worker five minutes later, asks the provider again under the same refund id and
// settles it, with one refund at the provider and one refund.succeeded.

const UNRECORDED = "refund failed: idr_psp's answer could not be recorded";

let gw: TestGateway;
let app: AppWithSecrets;

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp({ name: 'Refund settle shop' });
});
after(async () => {
  await gw?.stop();
});

/**
 * The settlement (initiated -> anything) of refunds with this reason fails, `how` the
 * database fails it; every attempt is counted in a sequence (which no rollback undoes).
 */
async function failSettlement(reason: string, how: 'raise' | 'terminate'): Promise<void> {
  const fail =
    how === 'raise'
      ? `RAISE EXCEPTION 'staged settlement failure'`
      : // The backend that runs the settlement ends, as when PostgreSQL restarts or an
        // operator terminates it: the statement never completes and the connection is gone.
        `PERFORM pg_terminate_backend(pg_backend_pid()); PERFORM pg_sleep(5)`;
  await sql(
    gw.databaseUrl,
    `CREATE SEQUENCE t_settle_attempts;
     CREATE FUNCTION t_settle_boom() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN PERFORM nextval('t_settle_attempts'); ${fail}; RETURN NEW; END $$;
     CREATE TRIGGER t_settle_boom BEFORE UPDATE OF status ON refunds FOR EACH ROW
     WHEN (OLD.status = 'initiated' AND NEW.status <> 'initiated' AND NEW.reason = '${reason}')
     EXECUTE FUNCTION t_settle_boom();`,
  );
}

/**
 * The provider notifies a refund right after answering it (as idr_psp does), and that event
 * would settle the refund too: the failure stays until the event's settlement has failed as
 * well (the second attempt), so what settles the refund afterwards is the retry or the worker.
 */
async function healSettlementAfterTheEvent(): Promise<void> {
  await eventually(async () => {
    const [seq] = await sql<{ n: string }>(
      gw.databaseUrl,
      `SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM t_settle_attempts`,
    );
    return Number(seq?.n) >= 2;
  }, "the provider event's settlement to fail too");
  await healSettlement();
}

async function healSettlement(): Promise<void> {
  await sql(
    gw.databaseUrl,
    `DROP TRIGGER t_settle_boom ON refunds; DROP FUNCTION t_settle_boom();
     DROP SEQUENCE t_settle_attempts`,
  );
}

async function refundRows(paymentId: string) {
  return sql<{ id: string; status: string; provider_ref: string | null }>(
    gw.databaseUrl,
    `SELECT id, status, provider_ref FROM refunds WHERE payment_id = $1`,
    [paymentId],
  );
}

/** The refunds the simulated provider made of the payment. */
async function providerRefunds(paymentId: string): Promise<unknown[]> {
  const [tx] = await sql<{ refunds: unknown[] | null }>(
    gw.databaseUrl,
    `SELECT data->'refunds' AS refunds FROM paygate_sim.sim_objects
     WHERE provider = 'idr_psp' AND kind = 'transaction' AND data->>'order_id' = $1`,
    [paymentId],
  );
  return tx?.refunds ?? [];
}

async function refundEvents(paymentId: string): Promise<number> {
  return count(
    gw.databaseUrl,
    `outbound_events WHERE payment_id = $1 AND event_type = 'refund.succeeded'`,
    [paymentId],
  );
}

for (const how of ['raise', 'terminate'] as const) {
  test(`504 when the settlement fails (${how}); the retry with the same key settles the one refund`, async () => {
    const p = await paidPayment(gw, app, 'idr', 21000);
    const reason = `boom-${how}-retry`;
    const key = randomUUID();
    const req = { payment_id: p.id, reason };
    await failSettlement(reason, how);
    try {
      const res = await gw.v1(app, 'POST', '/v1/refunds', req, { 'Idempotency-Key': key });
      assertError(res, 504, UNRECORDED);
      await healSettlementAfterTheEvent();
    } catch (err) {
      await healSettlement();
      throw err;
    }
    // The provider refunded; our row is still initiated and blocks a second refund.
    assert.equal((await providerRefunds(p.id)).length, 1);
    const [stuck] = await refundRows(p.id);
    assert.deepEqual(
      { status: stuck?.status, provider_ref: stuck?.provider_ref },
      { status: 'initiated', provider_ref: null },
    );
    assertError(
      await gw.v1(app, 'POST', '/v1/refunds', { payment_id: p.id }),
      422,
      'payment already has a refund',
    );

    const retry = await gw.v1(app, 'POST', '/v1/refunds', req, { 'Idempotency-Key': key });
    assertStatus(retry, 201);
    const refund = retry.json<{ refund_id: string; status: string; provider_ref: string }>();
    assert.deepEqual(
      { id: refund.refund_id, status: refund.status, provider_ref: refund.provider_ref },
      { id: stuck?.id, status: 'succeeded', provider_ref: stuck?.id },
    );
    assert.equal((await providerRefunds(p.id)).length, 1, 'one refund at the provider');
    assert.equal(await refundEvents(p.id), 1);
  });

  test(`504 when the settlement fails (${how}); the refund worker settles it five minutes later`, async () => {
    const p = await paidPayment(gw, app, 'idr', 22000);
    const reason = `boom-${how}-worker`;
    await failSettlement(reason, how);
    try {
      const res = await gw.v1(app, 'POST', '/v1/refunds', { payment_id: p.id, reason });
      assertError(res, 504, UNRECORDED);
      await healSettlementAfterTheEvent();
    } catch (err) {
      await healSettlement();
      throw err;
    }
    const [stuck] = await refundRows(p.id);
    assert.equal(stuck?.status, 'initiated');
    // Five quiet minutes later (the row is backdated: the claim is due on the database's clock).
    await sql(
      gw.databaseUrl,
      `UPDATE refunds SET updated_at = now() - interval '6 minutes' WHERE id = $1`,
      [stuck?.id],
    );
    // The gateway's own refund worker may claim it first (SKIP LOCKED): either resend counts.
    await retryUnansweredRefunds(serviceDeps(gw.running.gw));
    const settled = await eventually(async () => {
      const [row] = await refundRows(p.id);
      return row?.status === 'initiated' ? undefined : row;
    }, 'the resent refund to settle');
    assert.deepEqual(settled, { id: stuck?.id, status: 'succeeded', provider_ref: stuck?.id });
    assert.equal((await providerRefunds(p.id)).length, 1, 'one refund at the provider');
    assert.equal(await refundEvents(p.id), 1);
  });
}
