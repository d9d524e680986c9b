import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  createPaymentsWithFreshClaims,
  storeInitiatedRegistrations,
} from '../../../src/db/paymentCreation.js';
import * as idem from '../../../src/db/idempotency.js';
import { appPlansDatabase, freshCreate } from '../../helpers/plans.js';

// The fresh create path's two statements written for many requests (issue 28): what one
// statement does for a batch is what one statement per request did, one after the other.

const db = appPlansDatabase(2);

/** Request n: its own amount, metadata, key and body hash, so that answers can be told apart. */
const fresh = (n: number, user: string, email: string | null, invoicePrefix: string | null) =>
  freshCreate(`${n}`.padStart(32, 'b'), user, `key-${n}`, {
    email,
    invoicePrefix,
    amountMinor: 1000 + n,
    metadata: { n },
    requestHash: `hash-${n}`,
  });

test('one statement creates each payment whose key is free, counts a customer once per payment', async () => {
  // A customer with five payments before, and a key another request already holds.
  await db.pool.query(
    `INSERT INTO customers (app_id, external_user_id, email, payments_count)
     VALUES ('app_plans', 'buyer-x', 'old@example.com', 5)`,
  );
  await idem.tryInsertClaim(db.pool, fresh(4, 'buyer-y', null, null).claim!.scope, 'other', 60_000);
  const items = [
    fresh(1, 'buyer-x', 'a@example.com', 'INV'),
    fresh(2, 'buyer-x', null, 'INV'),
    fresh(3, 'buyer-x', 'c@example.com', null),
    fresh(4, 'buyer-y', null, 'INV'),
    fresh(5, 'buyer-z', null, 'INV'),
    // A request without an Idempotency-Key: created, no key row.
    { ...fresh(6, 'buyer-z', null, null), claim: null },
    // The last payment of a customer without an email keeps the email given before it.
    fresh(7, 'buyer-w', 'w@example.com', null),
    fresh(8, 'buyer-w', null, null),
  ];
  const created = await createPaymentsWithFreshClaims(db.pool, items);

  assert.equal(created[3], null, 'the taken key: nothing written for it');
  const invoices = created.map((c) => c?.invoice_number);
  assert.equal(invoices[2], null, 'no prefix, no number');
  const numbered = [invoices[0], invoices[1], invoices[4]];
  for (const inv of numbered) assert.match(inv ?? '', /^INV-\d{6,}$/);
  assert.equal(new Set(numbered).size, 3, `one number per payment: ${numbered.join(', ')}`);
  assert.equal(invoices[5], null);
  for (const i of [0, 1, 2, 4, 5, 6, 7])
    assert.deepEqual(created[i], { ...items[i]!.payment, invoice_number: invoices[i] });

  const rows = await db.pool.query<{ id: string; amount_minor: string; metadata: object }>(
    `SELECT id, amount_minor, metadata FROM payments WHERE status = 'initiated' ORDER BY id`,
  );
  assert.deepEqual(
    rows.rows.map((r) => [r.id, Number(r.amount_minor), r.metadata]),
    [1, 2, 3, 5, 6, 7, 8].map((n) => [`${n}`.padStart(32, 'b'), 1000 + n, { n }]),
  );
  const customers = await db.pool.query<{
    external_user_id: string;
    email: string | null;
    n: number;
  }>(`SELECT external_user_id, email, payments_count AS n FROM customers ORDER BY 1`);
  assert.deepEqual(customers.rows, [
    { external_user_id: 'buyer-w', email: 'w@example.com', n: 2 },
    // 5 + 3, and the last email given, as three statements in the batch's order would leave.
    { external_user_id: 'buyer-x', email: 'c@example.com', n: 8 },
    { external_user_id: 'buyer-z', email: null, n: 2 },
  ]);
  const keys = await db.pool.query<{ key: string; request_hash: string; resource_id: string }>(
    `SELECT key, request_hash, resource_id FROM idempotency_keys WHERE state = 'processing' ORDER BY key`,
  );
  assert.deepEqual(
    keys.rows,
    [1, 2, 3, 4, 5, 7, 8].map((n) => ({
      key: `key-${n}`,
      request_hash: n === 4 ? 'other' : `hash-${n}`,
      resource_id: n === 4 ? null : `${n}`.padStart(32, 'b'),
    })),
  );

  // The registrations: one payment was finalized meanwhile, so its answer is not stored and
  // its key not completed; the others are, each with its own answer.
  await db.pool.query(`UPDATE payments SET status = 'failed', finalized_at = now() WHERE id = $1`, [
    items[1]!.payment.id,
  ]);
  const stored = await storeInitiatedRegistrations(
    db.pool,
    [0, 1, 2].map((i) => ({
      id: items[i]!.payment.id,
      reg: {
        providerRef: `ref-${i}`,
        checkoutUrl: `https://sim.example/pay/${i}`,
        qrString: i === 2 ? 'qr-2' : null,
        qrImageUrl: null,
        providerDeadline: new Date('2030-01-01T00:00:00Z'),
      },
      completion: { scope: items[i]!.claim!.scope, status: 201, body: `{"n":${i}}` },
    })),
  );
  assert.deepEqual(stored, [true, false, true]);
  const registered = await db.pool.query(
    `SELECT p.id, p.provider_ref, p.checkout_url, p.qr_string, p.provider_deadline,
       k.state, k.response_status, k.response_body
     FROM payments p JOIN idempotency_keys k ON k.resource_id = p.id
     WHERE p.id = ANY($1) ORDER BY p.id`,
    [[0, 1, 2].map((i) => items[i]!.payment.id)],
  );
  assert.deepEqual(registered.rows, [
    {
      id: items[0]!.payment.id,
      provider_ref: 'ref-0',
      checkout_url: 'https://sim.example/pay/0',
      qr_string: null,
      provider_deadline: new Date('2030-01-01T00:00:00Z'),
      state: 'completed',
      response_status: 201,
      response_body: '{"n":0}',
    },
    {
      id: items[1]!.payment.id,
      provider_ref: null,
      checkout_url: null,
      qr_string: null,
      provider_deadline: items[1]!.ctx.registrationDeadline,
      state: 'processing',
      response_status: null,
      response_body: null,
    },
    {
      id: items[2]!.payment.id,
      provider_ref: 'ref-2',
      checkout_url: 'https://sim.example/pay/2',
      qr_string: 'qr-2',
      provider_deadline: new Date('2030-01-01T00:00:00Z'),
      state: 'completed',
      response_status: 201,
      response_body: '{"n":2}',
    },
  ]);
});
