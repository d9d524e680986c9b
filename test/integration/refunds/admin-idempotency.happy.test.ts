/**
 * An admin refund's Idempotency-Key is scoped to its payment (docs/api.md#idempotency): the
 * same key on another payment is another request, never a replay of the first payment's
 * refund (issue 21, finding 5).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { paidPayment } from '../../helpers/payments.js';

let gw: TestGateway;
let app: AppWithSecrets;

before(async () => {
  gw = await startTestGateway();
  app = await gw.createApp({ name: 'Admin refund keys' });
});
after(() => gw?.stop());

interface RefundBody {
  refund_id: string;
  payment_id: string;
  status: string;
  amount_minor: number;
}

interface AuditEntry {
  action: string;
  target_id: string;
  outcome: string;
}

async function auditFor(paymentId: string): Promise<AuditEntry[]> {
  const res = await gw.admin('GET', `/admin/audit?target_id=${paymentId}&limit=1000`);
  assert.equal(res.status, 200, res.text);
  return res.json<{ entries: AuditEntry[] }>().entries;
}

function adminRefund(paymentId: string, key: string, body: string) {
  return fetch(`${gw.url}/admin/payments/${paymentId}/refund`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${gw.config.adminToken}`,
      'content-type': 'application/json',
      'idempotency-key': key,
    },
    body,
  }).then(async (r) => ({ status: r.status, text: await r.text() }));
}

test('one key, two payments, the same body: each payment gets its own refund and audit entry', async () => {
  const a = await paidPayment(gw, app, 'idr', 30000);
  const b = await paidPayment(gw, app, 'idr', 30000);
  const key = randomUUID();
  const body = JSON.stringify({ reason: 'operator refund' });

  const first = await adminRefund(a.id, key, body);
  assert.equal(first.status, 201, first.text);
  const refundA = JSON.parse(first.text) as RefundBody;
  assert.equal(refundA.payment_id, a.id);

  const second = await adminRefund(b.id, key, body);
  assert.equal(second.status, 201, second.text);
  const refundB = JSON.parse(second.text) as RefundBody;
  assert.equal(refundB.payment_id, b.id, 'B is refunded, not answered with A');
  assert.notEqual(refundB.refund_id, refundA.refund_id);
  assert.deepEqual([refundB.status, refundB.amount_minor], ['succeeded', 30000]);

  const auditB = await auditFor(b.id);
  assert.deepEqual(
    auditB.map((e) => [e.action, e.target_id, e.outcome]),
    [['payment.refund', b.id, 'refund_initiated']],
  );

  // The key on payment A still replays A's answer, byte for byte; nothing new is written.
  const replay = await adminRefund(a.id, key, body);
  assert.deepEqual([replay.status, replay.text], [201, first.text]);
  assert.equal((await auditFor(a.id)).length, 1);

  // And on payment B, B's.
  const replayB = await adminRefund(b.id, key, body);
  assert.deepEqual([replayB.status, replayB.text], [201, second.text]);
  assert.equal((await auditFor(b.id)).length, 1);
});

test('one key, one payment, another body: 409 idempotency conflict', async () => {
  const a = await paidPayment(gw, app, 'idr', 20000);
  const key = randomUUID();
  const first = await adminRefund(a.id, key, JSON.stringify({ amount_minor: 5000 }));
  assert.equal(first.status, 201, first.text);
  const other = await adminRefund(a.id, key, JSON.stringify({ amount_minor: 6000 }));
  assert.deepEqual(
    [other.status, other.text],
    [409, 'idempotency conflict — different body for same key'],
  );
});
