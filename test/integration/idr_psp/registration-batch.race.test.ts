import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { sql } from '../../helpers/core.js';
import { whileWritesHeld } from '../../helpers/statements.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { idrTestServerKey } from '../../helpers/idrNotify.js';
import {
  assertTransactionFields,
  midtransClients,
  midtransError,
  type MidtransCoreApi,
  type MidtransSnap,
} from '../../helpers/midtrans.js';

// Concurrent registrations at the idr_psp simulator share one statement (issue 28,
// simulators/db/linkedObjects.ts), driven by midtrans-client as Midtrans's own callers would:
// every registration is answered and stored as if it had been alone, and a repeated order_id
// among them is answered as before (the original, or the provider's refusal).

let gw: TestGateway;
let core: MidtransCoreApi;
let snap: MidtransSnap;

before(async () => {
  gw = await startTestGateway();
  ({ core, snap } = midtransClients(
    `${gw.url}/sim/idr_psp`,
    idrTestServerKey(gw.config.masterKey),
  ));
  // The largest number of transactions one statement inserted (a sequence is not rolled
  // back with its statement), for the assertion that registrations shared one.
  await sql(
    gw.databaseUrl,
    `CREATE SEQUENCE largest_registration;
     CREATE FUNCTION count_registrations() RETURNS trigger LANGUAGE plpgsql AS $$
     DECLARE n bigint;
     BEGIN
       SELECT count(*) INTO n FROM inserted WHERE kind = 'transaction';
       IF n > (SELECT last_value FROM largest_registration) THEN
         PERFORM setval('largest_registration', n);
       END IF;
       RETURN NULL;
     END $$;
     CREATE TRIGGER count_registrations AFTER INSERT ON paygate_sim.sim_objects
       REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION count_registrations();`,
  );
});

after(async () => {
  await gw?.stop();
});

const orderId = () => randomBytes(16).toString('hex');
const customer_details = { email: 'buyer@example.com' };

function charge(id: string, gross = 50_000) {
  return core.charge({
    payment_type: 'qris',
    transaction_details: { order_id: id, gross_amount: gross },
    customer_details,
  });
}

function snapCreate(id: string, gross = 50_000) {
  return snap.createTransaction({
    transaction_details: { order_id: id, gross_amount: gross },
    customer_details,
    enabled_payments: ['bca_va'],
  });
}

/** The simulator's rows of these orders: each transaction and the references that find it. */
async function stored(orderIds: string[]) {
  return sql<{ kind: string; id: string; order_id: string; gross: number }>(
    gw.databaseUrl,
    `SELECT kind, id, data->>'order_id' AS order_id, (data->>'gross_amount')::int AS gross
       FROM paygate_sim.sim_objects
      WHERE provider = 'idr_psp' AND (id = ANY($1) OR data->>'order_id' = ANY($1))
      ORDER BY kind, id`,
    [orderIds],
  );
}

async function largestRegistration(): Promise<number> {
  const [row] = await sql<{ n: string }>(
    gw.databaseUrl,
    'SELECT last_value AS n FROM largest_registration',
  );
  return Number(row?.n);
}

test('concurrent Core API charges and Snap registrations are each stored once, with their references', async (t) => {
  const charges = Array.from({ length: 30 }, orderId);
  const snaps = Array.from({ length: 30 }, orderId);
  const all = await whileWritesHeld(gw.databaseUrl, 'paygate_sim.sim_objects', () =>
    Promise.all([
      Promise.all(charges.map((id) => charge(id))),
      Promise.all(snaps.map((id) => snapCreate(id))),
    ]),
  );
  const [charged, created] = await all;

  charged.forEach((b, i) => {
    assertTransactionFields(b, { orderId: charges[i]!, gross: 50_000 });
    assert.equal(b.status_code, '201');
    assert.equal(b.status_message, 'QRIS transaction is created');
    assert.equal(b.transaction_status, 'pending');
  });
  for (const b of created) {
    assert.match(b.token, /^[0-9a-f-]{36}$/);
    assert.equal(new URL(b.redirect_url).pathname, `/sim/idr_psp/snap/v2/vtweb/${b.token}`);
  }

  const rows = await stored([...charges, ...snaps]);
  const byKind = (kind: string) => rows.filter((r) => r.kind === kind);
  assert.deepEqual(
    byKind('transaction').map((r) => r.id),
    [...charges, ...snaps].sort(),
  );
  // A charge is found by its transaction_id; a Snap order by its token and its transaction_id.
  const refs = byKind('ref');
  assert.equal(refs.length, charges.length + 2 * snaps.length);
  charged.forEach((b, i) => {
    assert.ok(refs.some((r) => r.id === b.transaction_id && r.order_id === charges[i]));
  });
  created.forEach((b, i) => {
    assert.ok(refs.some((r) => r.id === b.token && r.order_id === snaps[i]));
  });
  assert.equal(new Set(refs.map((r) => r.order_id)).size, charges.length + snaps.length);

  // Each answer is the stored transaction: its status by order_id answers the same id.
  const status = await core.transaction.status(charges[7]!);
  assert.equal(status.transaction_id, charged[7]!.transaction_id);

  const largest = await largestRegistration();
  t.diagnostic(`largest registration statement: ${largest} transactions`);
  assert.ok(largest > 1, 'concurrent registrations shared a statement');
});

test('an order_id repeated among concurrent charges makes one transaction; a repeat is answered with it, a different amount is refused', async () => {
  const repeated = orderId();
  const others = Array.from({ length: 12 }, orderId);
  // The repeats reach the simulator in the same turn as the others (and as one another):
  // whichever goes first is the transaction, and the rest are answered as before.
  const amounts = [50_000, 50_000, 50_000, 70_000];
  const results = await Promise.allSettled([
    ...amounts.map((gross) => charge(repeated, gross)),
    ...others.map((id) => charge(id)),
  ]);

  for (const [i, r] of results.slice(amounts.length).entries()) {
    assert.equal(r.status, 'fulfilled');
    assertTransactionFields(r.value, { orderId: others[i]!, gross: 50_000 });
    assert.equal(r.value.status_code, '201');
  }

  const rows = await stored([repeated]);
  const tx = rows.filter((r) => r.kind === 'transaction');
  assert.equal(tx.length, 1);
  const gross = tx[0]!.gross;
  // One transaction_id ref, to the one transaction.
  assert.deepEqual(
    rows.filter((r) => r.kind === 'ref').map((r) => r.order_id),
    [repeated],
  );

  const mine = results.slice(0, amounts.length);
  const answered = mine.flatMap((r, i) => (amounts[i] === gross ? [r] : []));
  const refused = mine.flatMap((r, i) => (amounts[i] === gross ? [] : [r]));
  assert.ok(answered.length >= 1 && refused.length >= 1);
  const bodies = answered.map((r) => {
    assert.equal(r.status, 'fulfilled');
    return r.value;
  });
  // The original, every time: its own transaction, still new (pending), byte for byte.
  for (const b of bodies) assert.deepEqual(b, bodies[0]);
  assertTransactionFields(bodies[0]!, { orderId: repeated, gross });
  assert.equal(bodies[0]!.status_code, '201');
  assert.equal(rows.find((r) => r.kind === 'ref')?.id, bodies[0]!.transaction_id);
  for (const r of refused) {
    assert.equal(r.status, 'rejected');
    const err = await midtransError(Promise.reject(r.reason));
    assert.equal(err.httpStatusCode, 406);
    const body = err.ApiResponse as Record<string, unknown>;
    assert.equal(body.status_code, '406');
    assert.equal(
      body.status_message,
      'The request could not be completed due to a conflict with the current state of the target resource, please try again',
    );
  }
});

test('an order_id repeated among concurrent Snap registrations: one token; a different amount is told it is taken', async () => {
  const repeated = orderId();
  const others = Array.from({ length: 12 }, orderId);
  const amounts = [50_000, 50_000, 90_000];
  const results = await Promise.allSettled([
    ...amounts.map((gross) => snapCreate(repeated, gross)),
    ...others.map((id) => snapCreate(id)),
  ]);
  assert.ok(results.slice(amounts.length).every((r) => r.status === 'fulfilled'));

  const rows = await stored([repeated]);
  const tx = rows.filter((r) => r.kind === 'transaction');
  assert.equal(tx.length, 1);
  const gross = tx[0]!.gross;
  // Its token and its transaction_id, once each.
  assert.deepEqual(
    rows.filter((r) => r.kind === 'ref').map((r) => r.order_id),
    [repeated, repeated],
  );
  const tokens = new Set<string>();
  for (const [i, r] of results.slice(0, amounts.length).entries()) {
    if (amounts[i] === gross) {
      assert.equal(r.status, 'fulfilled');
      tokens.add(r.value.token);
    } else {
      const err = await midtransError(
        r.status === 'rejected' ? Promise.reject(r.reason) : Promise.resolve(),
      );
      assert.equal(err.httpStatusCode, 400);
      assert.deepEqual(err.ApiResponse, {
        error_messages: ['transaction_details.order_id has already been taken'],
      });
    }
  }
  assert.equal(tokens.size, 1);
  assert.ok(rows.some((r) => r.kind === 'ref' && tokens.has(r.id)));
});
