import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { findPayment, lockPayment, type PaymentRow } from '../../../src/db/payments.js';
import { withTransaction } from '../../../src/db/pool.js';
import { insertInitiatedRefund, REFUND_COLUMNS, type RefundRow } from '../../../src/db/refunds.js';
import { newId } from '../../../src/domain/ids.js';
import { enqueueRefundEvent } from '../../../src/services/refunds/refundPayment.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { paidPayment } from '../../helpers/payments.js';

// The refund creation's payment lock against a refund settling at the same moment
// (docs/operations.md, "Concurrent refunds of one payment"). The interleaving that once
// deadlocked under load is made to happen every time: two real transactions on two real
// connections, each step taken by the product's own statements.

let gw: TestGateway;
let app: AppWithSecrets;
before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp({ name: 'Refund lock' });
});
after(() => gw?.stop());

const refundFields = (p: PaymentRow) => ({
  payment_id: p.id,
  app_id: p.app_id,
  mode: p.mode,
  amount_minor: p.amount_minor,
  currency: p.currency,
  provider: p.provider,
  reason: '',
});

test('race: a second request holding the payment lock waits for the first refund settling, no deadlock; it then finds the refund (422 path)', async () => {
  const paid = await paidPayment(gw, app, 'idr', 4100);
  const pool = gw.running.gw.pool;
  const payment = (await findPayment(pool, paid.id)) as PaymentRow;
  // The first request's refund row, committed (refundPayment's first transaction).
  const first = (await withTransaction(pool, (tx) =>
    insertInitiatedRefund(tx, { id: newId(), ...refundFields(payment) }),
  )) as RefundRow;

  const settle = await pool.connect();
  const second = await pool.connect();
  try {
    // The settlement's first step: the refund's new row version, a new entry in the
    // one-active-refund index that stays uncommitted until the settlement commits.
    await settle.query('BEGIN');
    const settled = await settle.query<RefundRow>(
      `UPDATE refunds SET status = 'succeeded', provider_ref = $2, succeeded_at = now(),
         updated_at = now() WHERE id = $1 RETURNING ${REFUND_COLUMNS}`,
      [first.id, `ref-${first.id}`],
    );

    // The second request: the payment's lock, then its own refund row, which has to wait
    // for the settlement's transaction in the unique index.
    await second.query('BEGIN');
    const secondPid = (await second.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))
      .rows[0]!.pid;
    assert.ok(await lockPayment(second, payment.id));
    const inserting = insertInitiatedRefund(second, { id: newId(), ...refundFields(payment) });
    inserting.catch(() => undefined);
    await eventually(async () => {
      const w = await pool.query(
        `SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'`,
        [secondPid],
      );
      return w.rowCount === 1 ? true : undefined;
    });

    // The settlement's second step: its refund.succeeded event references the payment, so
    // its foreign key check takes KEY SHARE on the payment row that the second request holds.
    // Under FOR UPDATE this waited for the second request: deadlock detected, one failed.
    const [event, insert] = await Promise.allSettled([
      enqueueRefundEvent(settle, payment, settled.rows[0]!, new Date()).then(() =>
        settle.query('COMMIT'),
      ),
      inserting,
    ]);
    assert.equal(event.status, 'fulfilled', String((event as PromiseRejectedResult).reason));
    assert.equal(insert.status, 'fulfilled', String((insert as PromiseRejectedResult).reason));
    // The one active refund is the settled one: the second request's insert did nothing
    // (refundPayment answers it 422 `payment already has a refund`).
    assert.equal((insert as PromiseFulfilledResult<RefundRow | null>).value, null);
    await second.query('COMMIT');
  } finally {
    await settle.query('ROLLBACK').catch(() => undefined);
    await second.query('ROLLBACK').catch(() => undefined);
    settle.release();
    second.release();
  }
  const rows = await pool.query<{ id: string; status: string }>(
    'SELECT id, status FROM refunds WHERE payment_id = $1',
    [payment.id],
  );
  assert.deepEqual(rows.rows, [{ id: first.id, status: 'succeeded' }]);
});
