import assert from 'node:assert/strict';
import type { Pool } from '../../src/db/pool.js';
import { finalizePayment } from './jobs.js';
import { createPaymentRecord, newId } from './state.js';

/**
 * A paid idr_psp QRIS payment of the app, made in the database (no provider round trip): the
 * row, its provider reference and its finalization with the payment.succeeded event and
 * delivery, as a webhook's finalization writes them. Answers the payment's id.
 */
export async function finalizedPayment(
  pool: Pool,
  appId: string,
  metadata: Record<string, unknown> = {},
): Promise<string> {
  const p = await createPaymentRecord(
    pool,
    {
      id: newId(),
      app_id: appId,
      mode: 'test',
      amount_minor: 125000,
      currency: 'IDR',
      method: 'qris',
      provider: 'idr_psp',
      external_user_id: 'buyer-1',
      email: 'b@example.com',
      return_url: 'https://shop.example/done',
      metadata,
    },
    { invoicePrefix: null, claim: null, registrationDeadline: new Date(Date.now() + 600_000) },
  );
  await pool.query(`UPDATE payments SET provider_ref = $2 WHERE id = $1`, [p.id, `ref-${p.id}`]);
  const done = await finalizePayment(
    pool,
    { ...p, provider_ref: `ref-${p.id}` },
    { outcome: 'succeeded', paid: { amountMinor: p.amount_minor, currency: p.currency } },
  );
  assert.ok(done);
  return p.id;
}
