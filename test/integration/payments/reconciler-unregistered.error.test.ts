/**
 * A gateway process dies between inserting a payment and storing the provider's answer
 * (issue 10 defect 10). The payment is left initiated with no provider reference; the
 * reconciler of another instance finds it once the registration grace has passed, asks the
 * provider by our payment id, and either stores what the provider holds or, when the
 * provider confirms it has nothing, fails the payment with payment.failed enqueued.
 *
 * The crash is real: the gateway runs as its own process and is SIGKILLed while its
 * provider registration is in flight, held there by a lock on the simulators' table. Then
 * either the held provider write is cancelled (the provider never got it) or let through
 * (the provider registered it; only our side never stored the answer).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { claimRegistration, type PaymentRow } from '../../helpers/state.js';
import { finalizePayment, reconcileDue } from '../../helpers/jobs.js';
import type { AppWithSecrets } from '../../helpers/contract.js';
import { eventually } from '../../helpers/eventually.js';
import { count, sql } from '../../helpers/core.js';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { signedFetch } from '../../helpers/http.js';
import { simAction, type Kind } from '../../helpers/payments.js';
import { kill, spawnGateway } from '../../helpers/process.js';

let gw: TestGateway;
let app: AppWithSecrets;

before(async () => {
  // The surviving instance: its reconciler is driven by hand.
  gw = await startTestGateway({}, { workers: false });
  app = await gw.createApp({ name: 'Crash shop' });
});
after(() => gw?.stop());

const BODY: Record<'idr' | 'card' | 'wallet', (user: string) => Record<string, unknown>> = {
  idr: (user) => ({
    external_user_id: user,
    email: 'b@example.com',
    amount_minor: 50000,
    currency: 'IDR',
    method: 'qris',
    return_url: 'https://shop.example/back',
  }),
  card: (user) => ({
    external_user_id: user,
    email: 'c@example.com',
    amount_minor: 1500,
    currency: 'USD',
    method: 'card_psp',
    return_url: 'https://shop.example/back',
    metadata: { card_psp_product_id: 'prod_basic' },
  }),
  wallet: (user) => ({
    external_user_id: user,
    email: 'w@example.com',
    amount_minor: 2500,
    currency: 'EUR',
    method: 'wallet_psp',
    return_url: 'https://shop.example/back',
  }),
};
const SLUG = { idr: 'idr_psp', card: 'card_psp', wallet: 'wallet_psp' } as const;

/**
 * Leaves a payment of `kind` whose creating process died mid-registration. `providerGotIt`:
 * whether the provider's write completes after the crash. Returns the payment row.
 */
async function crashedPayment(
  kind: 'idr' | 'card' | 'wallet',
  providerGotIt: boolean,
): Promise<PaymentRow> {
  const proc = await spawnGateway({
    DATABASE_URL: gw.databaseUrl,
    MASTER_KEY: gw.config.masterKey.toString('hex'),
    ADMIN_TOKEN,
    PROVIDER_TIMEOUT_MS: '60000',
  });
  const locker = new pg.Client({ connectionString: gw.databaseUrl });
  await locker.connect();
  try {
    // One ordinary payment first: the adapter's provider token is then cached in the process.
    const warm = await signedFetch(proc.url, app, 'POST', '/v1/payments', BODY[kind]('warm-up'));
    assert.equal(warm.status, 201, warm.text);

    await locker.query('BEGIN');
    await locker.query('LOCK TABLE paygate_sim.sim_objects IN SHARE ROW EXCLUSIVE MODE');
    const user = `crash-${randomUUID()}`;
    const pending = signedFetch(proc.url, app, 'POST', '/v1/payments', BODY[kind](user), {
      'Idempotency-Key': user,
    }).catch(() => undefined);
    // Inserted on our side, and the provider's write waiting on the lock: mid-registration.
    await eventually(async () => {
      const waiting = await count(
        gw.databaseUrl,
        `pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      const rows = await count(gw.databaseUrl, 'payments WHERE external_user_id = $1', [user]);
      return waiting > 0 && rows === 1 ? true : undefined;
    }, 'the registration in flight');
    await kill(proc, 'SIGKILL');
    await pending;
    if (!providerGotIt) {
      await sql(
        gw.databaseUrl,
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
    }
    await locker.query('COMMIT');
    const [row] = await sql<PaymentRow>(
      gw.databaseUrl,
      `SELECT * FROM payments WHERE external_user_id = $1`,
      [user],
    );
    assert.ok(row);
    assert.equal(row.status, 'initiated');
    assert.equal(row.provider_ref, null);
    if (providerGotIt) {
      await eventually(
        async () => ((await providerObjects(kind, row.id)) === 1 ? true : undefined),
        'the provider write',
      );
    }
    assert.equal(await providerObjects(kind, row.id), providerGotIt ? 1 : 0);
    return row;
  } finally {
    // Killed by a signal, a process has no exit code but a signal code.
    if (proc.child.exitCode === null && proc.child.signalCode === null) await kill(proc, 'SIGKILL');
    await locker.end();
  }
}

/** How many registrations the provider (its simulator's store) holds for our payment id. */
function providerObjects(kind: 'idr' | 'card' | 'wallet', paymentId: string): Promise<number> {
  const where: Record<typeof kind, string> = {
    idr: `provider = 'idr_psp' AND kind = 'transaction' AND data->>'order_id' = $1`,
    card: `provider = 'card_psp' AND kind = 'checkout' AND data->'metadata'->>'payment_id' = $1`,
    wallet: `provider = 'wallet_psp' AND kind = 'order' AND data::text LIKE '%' || $1 || '%'`,
  };
  return count(gw.databaseUrl, `paygate_sim.sim_objects WHERE ${where[kind]}`, [paymentId]);
}

/** Waits out the registration grace: the deadline set at insert is moved into the past. */
async function graceOver(id: string): Promise<void> {
  // Still within the grace, the reconciler leaves it alone (its registration may be in flight).
  assert.equal(await reconcileDue(gw.running.gw), 0);
  const moved = await sql(
    gw.databaseUrl,
    `UPDATE payments SET provider_deadline = now() - interval '1 second'
     WHERE id = $1 AND provider_deadline > now() + interval '2 minutes' RETURNING id`,
    [id],
  );
  assert.equal(moved.length, 1, 'the payment got a registration deadline at insert');
}

async function current(id: string): Promise<PaymentRow> {
  const [row] = await sql<PaymentRow>(gw.databaseUrl, `SELECT * FROM payments WHERE id = $1`, [id]);
  return row as PaymentRow;
}

async function events(id: string): Promise<string[]> {
  const rows = await sql<{ event_type: string }>(
    gw.databaseUrl,
    `SELECT event_type FROM outbound_events WHERE payment_id = $1`,
    [id],
  );
  return rows.map((r) => r.event_type);
}

for (const [kind, text] of [
  ['idr', "Transaction doesn't exist."],
  ['wallet', 'wallet_psp had no order for this payment'],
] as const) {
  test(`${SLUG[kind]}: the provider has none; the payment is failed, payment.failed enqueued`, async () => {
    const p = await crashedPayment(kind, false);
    await graceOver(p.id);
    assert.equal(await reconcileDue(gw.running.gw), 1);
    const now = await current(p.id);
    assert.equal(now.status, 'failed');
    assert.equal(now.last_error, `provider registration never completed: ${text}`);
    assert.deepEqual(await events(p.id), ['payment.failed']);
    assert.equal(await reconcileDue(gw.running.gw), 0);
  });
}

for (const kind of ['idr', 'card', 'wallet'] as const) {
  test(`${SLUG[kind]}: the provider registered it; the reconciler stores its reference`, async () => {
    const p = await crashedPayment(kind, true);
    await graceOver(p.id);
    assert.equal(await reconcileDue(gw.running.gw), 1);
    const now = await current(p.id);
    assert.equal(now.status, 'initiated');
    assert.ok(now.provider_ref, 'provider_ref stored');
    assert.ok(now.checkout_url, 'checkout_url stored');
    // The provider's own registration, not a second one.
    assert.equal(await providerObjects(kind, p.id), 1);
    assert.deepEqual(await events(p.id), []);
    // From here it is an ordinary payment: the buyer pays, the webhook settles it.
    const simKind: Kind = kind;
    const paid = await simAction(gw, simKind, now.provider_ref as string, 'pay');
    assert.equal(paid.gateway_status, 200, paid.gateway_body);
    assert.equal((await current(p.id)).status, 'succeeded');
  });
}

test('card_psp: Polar cannot be asked by our id; the create sent again makes the checkout', async () => {
  const p = await crashedPayment('card', false);
  await graceOver(p.id);
  assert.equal(await reconcileDue(gw.running.gw), 1);
  const now = await current(p.id);
  assert.equal(now.status, 'initiated');
  assert.ok(now.provider_ref);
  assert.ok(now.provider_deadline, 'the checkout expiry: the reconciler asks again then');
  assert.equal(await providerObjects('card', p.id), 1);
});

test("a client's retry that claims the payment first wins over the reconciler's failure", async () => {
  const p = await crashedPayment('idr', false);
  // The reconciler's claim, then the retry's (same Idempotency-Key) before it acts.
  const reconcilerClaim = new Date(Date.now() - 1000);
  await sql(gw.databaseUrl, `UPDATE payments SET provider_deadline = $2 WHERE id = $1`, [
    p.id,
    reconcilerClaim,
  ]);
  const retryClaim = await claimRegistration(
    gw.running.gw.pool,
    p.id,
    new Date(Date.now() + 60_000),
  );
  assert.ok(retryClaim);
  const failed = await finalizePayment(gw.running.gw.pool, p, {
    outcome: 'failed',
    errorText: 'provider registration never completed: test',
    onlyIfUnregisteredUntil: reconcilerClaim,
  });
  assert.equal(failed, null);
  assert.equal((await current(p.id)).status, 'initiated');
  // And the other way round: once failed, the retry's claim finds nothing to register.
  const now = await current(p.id);
  const won = await finalizePayment(gw.running.gw.pool, now, {
    outcome: 'failed',
    errorText: 'provider registration never completed: test',
    onlyIfUnregisteredUntil: now.provider_deadline as Date,
  });
  assert.ok(won);
  assert.equal(
    await claimRegistration(gw.running.gw.pool, p.id, new Date(Date.now() + 60_000)),
    null,
  );
});
