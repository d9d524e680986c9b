/** Reading a payment's disputes, their ledger entries and their events back (D16). */
import assert from 'node:assert/strict';
import { unpackEventBody, type StoredEventBody } from '../../src/db/eventBody.js';
import type { Gateway } from '../../src/gateway.js';
import type { TestGateway } from './gateway.js';

export interface DisputeView {
  dispute_id: string;
  payment_id: string;
  provider: string;
  provider_ref: string;
  status: string;
  amount_minor: number;
  currency: string;
  reason: string;
  opened_at: string;
  closed_at: string | null;
  evidence_due_by: string | null;
  mode: string;
}

export async function paymentDetail(gw: TestGateway, id: string) {
  const res = await gw.admin('GET', `/admin/payments/${id}`);
  assert.equal(res.status, 200, res.text);
  return res.json<{ status: string; disputes: DisputeView[] }>();
}

/** The payment's one dispute (the payment still succeeded), as GET /admin/disputes/{id} shows it. */
export async function onlyDispute(gw: TestGateway, paymentId: string): Promise<DisputeView> {
  const detail = await paymentDetail(gw, paymentId);
  assert.equal(detail.status, 'succeeded', 'a dispute never changes the payment status');
  assert.equal(detail.disputes.length, 1, JSON.stringify(detail.disputes));
  const d = detail.disputes[0] as DisputeView;
  const one = await gw.admin('GET', `/admin/disputes/${d.dispute_id}`);
  assert.equal(one.status, 200, one.text);
  assert.deepEqual(one.json(), d);
  return d;
}

/** The payment's dispute entries on the ledger, oldest first. */
export async function disputeLedger(core: Gateway, paymentId: string) {
  const r = await core.pool.query<{ type: string; amount_minor: number; dispute_id: string }>(
    `SELECT type, amount_minor, dispute_id FROM ledger_entries
     WHERE payment_id = $1 AND type IN ('dispute', 'dispute_reversal')
     ORDER BY occurred_at, id`,
    [paymentId],
  );
  return r.rows;
}

/** The payment's stored events of the given kinds, oldest first: [event, status or amount]. */
export async function eventsOf(core: Gateway, paymentId: string, like: string) {
  const r = await core.pool.query<StoredEventBody>(
    `SELECT event_type, body, body_codec, body_packed FROM outbound_events
     WHERE payment_id = $1 AND event_type LIKE $2
     ORDER BY created_at, id`,
    [paymentId, like],
  );
  return r.rows.map((row) => JSON.parse(unpackEventBody(row)) as Record<string, unknown>);
}
