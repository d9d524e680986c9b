import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import pg from 'pg';
import { signedFetch } from '../../helpers/http.js';
import { idrNotification, idrTestServerKey } from '../../helpers/idrNotify.js';
import { kill, spawnGateway, type GatewayProcess } from '../../helpers/process.js';
import { Receiver } from '../../helpers/receiver.js';
import {
  startReplicatedPostgres,
  type ReplicatedPostgres,
} from '../../helpers/replicatedPostgres.js';
import { sleep } from '../../helpers/util.js';

// docs/operations.md#high-availability: several gateway instances (OS processes) on a
// primary with a synchronous streaming standby, under a load of payment creations,
// provider webhooks and outbound deliveries. Mid-load the primary is killed (SIGKILL) and
// the standby promoted, as a failover manager would; then one gateway instance is killed.
// Nothing acknowledged may be lost, nothing finalized twice, and every error a client saw
// must be one the API documents as retryable, with the retry under the same key succeeding.

const INSTANCES = 3;
const CLIENTS = 6;
const LOAD_MS = 24_000;
const KILL_PRIMARY_AT_MS = 7_000;
/** A failover manager's detection time, shortened: the standby is promoted this long after. */
const PROMOTE_AFTER_MS = 1_000;
const KILL_GATEWAY_AT_MS = 14_000;
/** One operation (create, read, pay) retried for at most this long before the test fails. */
const OP_DEADLINE_MS = 150_000;

const ADMIN_TOKEN = 'failover-admin-token-0123456789';
const MASTER_KEY = randomBytes(32);
const DOCUMENTED_500 = new Set([
  'payment create failed',
  'customer upsert failed',
  'store provider_ref',
]);

interface App {
  app_id: string;
  api_key: string;
  signing_secret: string;
  webhook_secret: string;
}

interface Answer {
  op: 'create' | 'read' | 'pay' | 'webhook';
  status: number;
  body: string;
  retryAfter: string | null;
}

let db: ReplicatedPostgres;
let dataDir: string;
const gateways: GatewayProcess[] = [];
/** Instances still running; the killed one leaves this list. */
const live: GatewayProcess[] = [];
const receiver = new Receiver();
let app: App;

before(async () => {
  db = await startReplicatedPostgres();
  dataDir = mkdtempSync(path.join(tmpdir(), 'paygate-failover-'));
  const env = {
    DATABASE_URL: db.url,
    ADMIN_TOKEN,
    MASTER_KEY: MASTER_KEY.toString('hex'),
    DATA_DIR: dataDir,
    DELIVERY_BASE_DELAY_MS: '200',
    DELIVERY_MAX_DELAY_MS: '1000',
    // The delivery claim lease is 2 x this + 5 s: a killed instance's claims return in 9 s.
    DELIVERY_TIMEOUT_MS: '2000',
    LOG_LEVEL: 'error',
  };
  // The first one migrates; the others start together and find nothing left to do.
  gateways.push(await spawnGateway(env));
  gateways.push(
    ...(await Promise.all(Array.from({ length: INSTANCES - 1 }, () => spawnGateway(env)))),
  );
  live.push(...gateways);
  await receiver.start();
  const res = await fetch(`${gateways[0]!.url}/admin/apps`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Failover shop', webhook_url: receiver.url }),
  });
  assert.equal(res.status, 201);
  app = (await res.json()) as App;
  receiver.secret = app.webhook_secret;
});

after(async () => {
  await Promise.all(gateways.map((g) => kill(g, 'SIGTERM')));
  await receiver.stop();
  await db?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test('failover under load: primary SIGKILLed and standby promoted, one instance SIGKILLed; nothing acknowledged lost', async (t) => {
  try {
    await failoverUnderLoad(t);
  } catch (err) {
    // What the instances logged at error level says why.
    for (const [i, g] of gateways.entries()) {
      const errors = g
        .output()
        .split('\n')
        .filter((l) => /"level":(50|60)/.test(l) || /^\S*Error/.test(l))
        .slice(-15);
      for (const l of errors) t.diagnostic(`[instance ${i}] ${l.slice(0, 600)}`);
    }
    throw err;
  }
});

async function failoverUnderLoad(t: TestContext): Promise<void> {
  const started = Date.now();
  const loadEnd = started + LOAD_MS;
  const answers: Answer[] = [];
  const violations: string[] = [];
  let noAnswer = 0;
  let retriedOps = 0;
  /** Settlements the simulator lost with the killed primary (see pay). */
  let forgottenSettlements = 0;
  const creates: { key: string; sentAt: number; doneAt: number; ok: boolean }[] = [];
  const created = new Map<string, { key: string; amount: number }>();
  const paid = new Set<string>();
  let rr = 0;
  const pick = () => live[rr++ % live.length] as GatewayProcess;

  /** Retryable per docs/api.md: 503 with Retry-After, the documented 500 texts, a 504 (outcome unknown). */
  const judge = (a: Answer) => {
    answers.push(a);
    if (a.status === 503 && a.body === 'service unavailable' && a.retryAfter !== null) return;
    if (a.status === 500 && DOCUMENTED_500.has(a.body)) return;
    if (a.op === 'create' && a.status === 504 && a.body.startsWith('provider checkout failed: ')) {
      return; // the provider's answer unknown: the payment stays initiated, a retry resumes it
    }
    violations.push(`${a.op}: ${a.status} ${a.body} (Retry-After ${a.retryAfter})`);
  };

  /** Runs one operation on live instances until it gives its success, retrying everything else. */
  async function retrying<T>(
    what: string,
    attempt: (g: GatewayProcess) => Promise<T | undefined>,
  ): Promise<T> {
    const deadline = Date.now() + OP_DEADLINE_MS;
    for (let n = 0; ; n++) {
      if (n === 1) retriedOps++;
      let result: T | undefined;
      try {
        result = await attempt(pick());
      } catch (err) {
        if (!(err instanceof TypeError)) throw err; // fetch failed: that instance is gone
        noAnswer++;
      }
      if (result !== undefined) return result;
      if (Date.now() > deadline) throw new Error(`${what}: no success in ${OP_DEADLINE_MS} ms`);
      await sleep(200);
    }
  }

  const createPayment = async (key: string, amount: number) => {
    const body = JSON.stringify({
      external_user_id: key,
      email: 'failover@example.com',
      amount_minor: amount,
      currency: 'IDR',
      method: 'qris',
      return_url: 'https://shop.example/back',
    });
    return retrying(`create ${key}`, async (g) => {
      const sentAt = Date.now();
      const res = await signedFetch(g.url, app, 'POST', '/v1/payments', body, {
        'Idempotency-Key': key,
      });
      creates.push({ key, sentAt, doneAt: Date.now(), ok: res.status === 201 });
      if (res.status === 201) return res.json<{ payment_id: string }>().payment_id;
      judge({
        op: 'create',
        status: res.status,
        body: res.text,
        retryAfter: res.headers.get('retry-after'),
      });
      return undefined;
    });
  };

  const readRef = (id: string) =>
    retrying(`read ${id}`, async (g) => {
      const res = await signedFetch(g.url, app, 'GET', `/v1/payments/${id}`);
      if (res.status === 200) return res.json<{ provider_ref: string }>().provider_ref;
      if (res.status === 404) violations.push(`read: acknowledged payment ${id} not found`);
      judge({
        op: 'read',
        status: res.status,
        body: res.text,
        retryAfter: res.headers.get('retry-after'),
      });
      return undefined;
    });

  const serverKey = idrTestServerKey(MASTER_KEY);
  /** The gateway's answer when the provider's status API does not confirm the settlement. */
  const NOT_CONFIRMED = '{"acknowledged":true,"action":"none"}';
  /**
   * The buyer pays at the provider (the simulator), which notifies the gateway. A
   * notification the gateway did not take (a non-2xx) is sent again, as the provider does.
   * The gateway applies what the provider's status API answers, and this provider keeps its
   * state in the gateway's database without the gateway's durability barrier (a simulator's
   * state is not the gateway's to make durable): a settlement committed on the killed
   * primary only is forgotten, and the status API says pending again. The gateway then
   * rightly takes nothing (200 action none); the buyer pays again, as at a real provider
   * that never saw the payment.
   */
  const pay = async (id: string, ref: string, amount: number) => {
    for (let attempt = 0; ; attempt++) {
      assert.ok(attempt < 5, `pay ${id}: the provider kept forgetting the settlement`);
      if (await payOnce(id, ref, amount)) break;
      forgottenSettlements++;
    }
    paid.add(id);
  };
  /** True once the gateway took the settlement; false when the provider had forgotten it. */
  const payOnce = async (id: string, ref: string, amount: number) => {
    const settled = await retrying(`pay ${id}`, async (g) => {
      const res = await fetch(`${g.url}/sim/idr_psp/payments/${ref}/pay`, { method: 'POST' });
      const text = await res.text();
      if (res.status === 409 && text === 'transaction already settled') return 'resend';
      if (res.status !== 200) {
        judge({
          op: 'pay',
          status: res.status,
          body: text,
          retryAfter: res.headers.get('retry-after'),
        });
        return undefined;
      }
      const r = JSON.parse(text) as { gateway_status: number; gateway_body: string };
      if (r.gateway_status === 200 && r.gateway_body !== NOT_CONFIRMED) return 'acknowledged';
      if (r.gateway_status === 200) return 'forgotten';
      judge({
        op: 'webhook',
        status: r.gateway_status,
        body: r.gateway_body,
        retryAfter: '(simulator)',
      });
      return 'resend';
    });
    if (settled === 'resend') {
      const notification = idrNotification(serverKey, {
        orderId: id,
        status: 'settlement',
        grossAmount: amount,
        transactionId: ref,
      });
      const taken = await retrying(`webhook ${id}`, async (g) => {
        const res = await fetch(`${g.url}/webhooks/idr_psp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: notification,
        });
        const text = await res.text();
        if (res.status === 200) return text !== NOT_CONFIRMED;
        judge({
          op: 'webhook',
          status: res.status,
          body: text,
          retryAfter: res.headers.get('retry-after'),
        });
        return undefined;
      });
      return taken;
    }
    return settled === 'acknowledged';
  };

  const client = async (n: number) => {
    for (let i = 0; Date.now() < loadEnd; i++) {
      const key = `failover-${n}-${i}`;
      const amount = 10_000 + n * 1000 + i;
      const id = await createPayment(key, amount);
      created.set(id, { key, amount });
      const ref = await readRef(id);
      await pay(id, ref, amount);
    }
  };

  let killedPrimaryAt = 0;
  let promotedAt = 0;
  let killedGatewayAt = 0;
  const faults = (async () => {
    await sleep(KILL_PRIMARY_AT_MS);
    killedPrimaryAt = Date.now();
    db.killPrimary();
    await sleep(PROMOTE_AFTER_MS);
    await db.promoteStandby();
    promotedAt = Date.now();
    await sleep(Math.max(0, started + KILL_GATEWAY_AT_MS - Date.now()));
    const victim = live.shift() as GatewayProcess;
    killedGatewayAt = Date.now();
    await kill(victim, 'SIGKILL');
  })();

  await Promise.all([faults, ...Array.from({ length: CLIENTS }, (_, n) => client(n))]);
  const loadDone = Date.now();

  // Every finalized payment's event reaches the receiver, from whichever instance is left.
  const eventsOf = () => {
    const ids = new Map<string, Set<string>>();
    for (const r of receiver.received) {
      const e = JSON.parse(r.body) as { event: string; payment_id: string };
      if (e.event !== 'payment.succeeded') continue;
      const set = ids.get(e.payment_id) ?? new Set<string>();
      set.add(String(r.headers['x-pay-event-id']));
      ids.set(e.payment_id, set);
    }
    return ids;
  };
  const deliveryDeadline = Date.now() + 90_000;
  while ([...paid].some((id) => !eventsOf().has(id)) && Date.now() < deliveryDeadline) {
    await sleep(250);
  }
  const delivered = eventsOf();

  const primary = new pg.Client({ connectionString: db.nodeUrl(db.standby) });
  await primary.connect();
  let rows: { id: string; status: string; amount_minor: number }[];
  let twice: { payment_id: string; n: number }[];
  let succeededEvents: { id: string; payment_id: string }[];
  try {
    assert.deepEqual((await primary.query('SELECT pg_is_in_recovery() AS r')).rows, [{ r: false }]);
    rows = (
      await primary.query<{ id: string; status: string; amount_minor: number }>(
        'SELECT id, status, amount_minor::int AS amount_minor FROM payments WHERE id = ANY($1)',
        [[...created.keys()]],
      )
    ).rows;
    twice = (
      await primary.query<{ payment_id: string; n: number }>(
        `SELECT payment_id, count(*)::int AS n FROM outbound_events
         WHERE event_type = 'payment.succeeded' GROUP BY payment_id HAVING count(*) > 1`,
      )
    ).rows;
    succeededEvents = (
      await primary.query<{ id: string; payment_id: string }>(
        `SELECT id, payment_id FROM outbound_events WHERE event_type = 'payment.succeeded'`,
      )
    ).rows;
  } finally {
    await primary.end();
  }

  // Gaps while new payments were still being started (the tail only finishes retries).
  const sorted = creates
    .filter((c) => c.ok && c.doneAt <= loadEnd)
    .map((c) => c.doneAt)
    .sort((a, b) => a - b);
  let longestGap = 0;
  // The write outage of the failover: the gap between 201s that spans the primary's death.
  let outage = 0;
  for (let i = 1; i < sorted.length; i++) {
    const [a, b] = [sorted[i - 1]!, sorted[i]!];
    longestGap = Math.max(longestGap, b - a);
    if (a <= promotedAt && b >= killedPrimaryAt) outage = Math.max(outage, b - a);
  }
  // From a key's first attempt to its 201: a retry waits while a claim is held (lease).
  const firstSent = new Map<string, number>();
  for (const c of creates)
    firstSent.set(c.key, Math.min(firstSent.get(c.key) ?? Infinity, c.sentAt));
  const waits = creates
    .filter((c) => c.ok)
    .map((c) => c.doneAt - (firstSent.get(c.key) ?? c.sentAt))
    .sort((a, b) => b - a);
  const byAnswer = new Map<string, number>();
  for (const a of answers) {
    const k = `${a.op} ${a.status} ${a.body}`;
    byAnswer.set(k, (byAnswer.get(k) ?? 0) + 1);
  }
  const paymentsAtReceiver = [...delivered.values()].length;
  const receivedSucceeded = receiver.received.filter(
    (r) => (JSON.parse(r.body) as { event: string }).event === 'payment.succeeded',
  ).length;
  for (const line of [
    `[failover] ${INSTANCES} instances, ${CLIENTS} clients, ${((loadDone - started) / 1000).toFixed(1)} s of load, ${((Date.now() - started) / 1000).toFixed(1)} s in all`,
    `[failover] primary killed at +${((killedPrimaryAt - started) / 1000).toFixed(1)} s, standby promoted at +${((promotedAt - started) / 1000).toFixed(1)} s, instance killed at +${((killedGatewayAt - started) / 1000).toFixed(1)} s`,
    `[failover] writes unavailable for ${(outage / 1000).toFixed(2)} s (the longest gap between two 201s around the primary's death and the promotion); longest gap between 201s during the load ${(longestGap / 1000).toFixed(2)} s`,
    `[failover] creations that needed retries: ${creates.filter((c) => !c.ok).length} failed attempts; slowest creation to its 201 ${((waits[0] ?? 0) / 1000).toFixed(1)} s, ${waits.filter((w) => w > 5000).length} took over 5 s`,
    `[failover] payments acknowledged (201): ${created.size}, found on the new primary: ${rows.length}; paid and acknowledged by the gateway: ${paid.size}, succeeded: ${rows.filter((r) => r.status === 'succeeded').length}`,
    `[failover] payment.succeeded events: ${succeededEvents.length} in the outbox, ${paymentsAtReceiver} payments' events at the receiver (${receivedSucceeded} requests, duplicates are redeliveries of one event id)`,
    `[failover] operations retried: ${retriedOps}; non-2xx answers: ${answers.length}; requests with no answer (instance killed): ${noAnswer}`,
    `[failover] settlements the simulator lost with the killed primary (paid again): ${forgottenSettlements}`,
    ...[...byAnswer].map(([k, n]) => `[failover]   ${n} x ${k}`),
  ])
    t.diagnostic(line);

  assert.deepEqual(violations, [], 'every non-2xx was retryable, no acknowledged payment missing');
  assert.ok(created.size >= CLIENTS, `a load ran (${created.size} payments)`);
  assert.ok(killedPrimaryAt > 0 && promotedAt > killedPrimaryAt && killedGatewayAt > promotedAt);
  // The load went on after each fault.
  assert.ok(
    creates.some((c) => c.ok && c.sentAt > killedGatewayAt),
    'payments created after the instance died',
  );
  // Every 201 exists on the new primary, with its amount.
  const found = new Map(rows.map((r) => [r.id, r]));
  for (const [id, c] of created) {
    assert.equal(
      found.get(id)?.amount_minor,
      c.amount,
      `payment ${id} (${c.key}) acknowledged but missing`,
    );
  }
  // Every payment whose webhook the gateway acknowledged is succeeded, finalized once.
  for (const id of paid) assert.equal(found.get(id)?.status, 'succeeded', `payment ${id}`);
  assert.deepEqual(twice, [], 'no payment finalized twice');
  const outboxIds = new Map(succeededEvents.map((e) => [e.payment_id, e.id]));
  // Each finalized payment's one event reached the receiver, under that event's id only.
  for (const id of paid) {
    assert.deepEqual([...(delivered.get(id) ?? [])], [outboxIds.get(id)], `delivery of ${id}`);
  }
  // Something was actually in the way: the failover was felt by the clients.
  assert.ok(answers.length + noAnswer > 0, 'the faults were seen by the clients');

  // The LISTEN connections followed the primary: an app change on one surviving instance
  // reaches another through NOTIFY (without it, the other keeps the old key for a minute).
  const [a, b] = live as [GatewayProcess, GatewayProcess];
  const probe = `/v1/payments/${[...created.keys()][0]}`;
  assert.equal((await signedFetch(b.url, app, 'GET', probe)).status, 200);
  const regen = await fetch(`${a.url}/admin/apps/${app.app_id}/regenerate-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  assert.equal(regen.status, 200);
  const refusedBy = Date.now() + 3000;
  let old = await signedFetch(b.url, app, 'GET', probe);
  while (old.status === 200 && Date.now() < refusedBy) {
    await sleep(50);
    old = await signedFetch(b.url, app, 'GET', probe);
  }
  assert.equal(old.status, 401, 'the old key is refused on the other instance at once');
}
