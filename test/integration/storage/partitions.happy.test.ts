import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  defaultPartitionRows,
  ensureMonthPartitions,
  MONTHS_AHEAD,
  monthStart,
  PARTITIONED_TABLES,
} from '../../../src/db/partitions.js';
import { createPool, type Pool } from '../../../src/db/pool.js';
import { maintainPartitions } from '../../../src/workers.js';
import { sql } from '../../helpers/core.js';
import { startWithReceiver, type GatewayWithReceiver } from '../../helpers/gateway.js';
import { idrNotification, idrTestServerKey, postWebhook } from '../../helpers/idrNotify.js';
import { lostWebhookPayment, silentAction } from '../../helpers/payments.js';

// Monthly partitions of the append-only history (migration 0023,
// docs/operations.md#archiving-old-months): rows land in their month, the job makes the
// months ahead once however often and however many instances run it, an old month detaches
// while the current data keeps working, and the webhook flow stays idempotent on top of the
// partitioned archive.

let h: GatewayWithReceiver;
let pool: Pool;

before(async () => {
  h = await startWithReceiver();
  pool = createPool(h.gw.databaseUrl, 4);
});
after(async () => {
  await pool?.end();
  await h?.stop();
});

const partitionOf = async (table: string, where: string, params: unknown[]) =>
  (
    await sql<{ p: string }>(
      h.gw.databaseUrl,
      `SELECT tableoid::regclass::text AS p FROM ${table} WHERE ${where}`,
      params,
    )
  ).map((r) => r.p);

async function partitionsOf(table: string): Promise<string[]> {
  const rows = await sql<{ name: string }>(
    h.gw.databaseUrl,
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = $1::regclass ORDER BY 1`,
    [table],
  );
  return rows.map((r) => r.name);
}

async function auditAt(at: string, requestId: string): Promise<void> {
  await sql(
    h.gw.databaseUrl,
    `INSERT INTO audit_log (at, action, target_type, target_id, outcome, request_id, source_ip, actor)
     VALUES ($1, 'app.update', 'app', 'app_x', 'ok', $2, '127.0.0.1', 'root')`,
    [at, requestId],
  );
}

test('the migration made this month, the next three and a DEFAULT partition of each table', async () => {
  const now = new Date();
  for (const table of PARTITIONED_TABLES) {
    const expected = [0, 1, 2, 3].map(
      (o) => `${table}_p${monthStart(now, o).slice(0, 7).replace('-', '_')}`,
    );
    const have = await partitionsOf(table);
    for (const name of [...expected, `${table}_default`]) {
      assert.ok(have.includes(name), `${name} in ${have.join(', ')}`);
    }
  }
});

test('rows on each side of a month boundary land in their own month (UTC bounds)', async () => {
  const next = monthStart(new Date(), 1);
  const last = new Date(Date.parse(`${next}T00:00:00Z`) - 1).toISOString();
  await auditAt(last, 'req-boundary-before');
  await auditAt(`${next}T00:00:00Z`, 'req-boundary-after');
  // The same instants written with an offset: the bound is an instant, not a local date.
  await auditAt(`${next}T07:00:00+07:00`, 'req-boundary-jakarta');
  const thisMonth = `audit_log_p${monthStart(new Date(), 0).slice(0, 7).replace('-', '_')}`;
  const nextMonth = `audit_log_p${next.slice(0, 7).replace('-', '_')}`;
  assert.deepEqual(await partitionOf('audit_log', 'request_id = $1', ['req-boundary-before']), [
    thisMonth,
  ]);
  assert.deepEqual(await partitionOf('audit_log', 'request_id = $1', ['req-boundary-after']), [
    nextMonth,
  ]);
  assert.deepEqual(await partitionOf('audit_log', 'request_id = $1', ['req-boundary-jakarta']), [
    nextMonth,
  ]);
});

test('the job creates a future year idempotently, also from several instances at once', async () => {
  const far = new Date(Date.UTC(2031, 4, 17));
  const expected = PARTITIONED_TABLES.flatMap((t) =>
    ['2031_05', '2031_06', '2031_07', '2031_08'].map((m) => `${t}_p${m}`),
  ).sort();
  const rounds = await Promise.all([1, 2, 3].map(() => ensureMonthPartitions(pool, far)));
  assert.deepEqual(
    rounds.flatMap((r) => r.failed),
    [],
  );
  // Each partition made exactly once, by one of the three.
  assert.deepEqual(rounds.flatMap((r) => r.created).sort(), expected);
  assert.deepEqual(await ensureMonthPartitions(pool, far), { created: [], failed: [] });
  for (const table of PARTITIONED_TABLES) {
    const have = await partitionsOf(table);
    for (const m of ['2031_05', '2031_08']) assert.ok(have.includes(`${table}_p${m}`));
  }
  // The job of the gateway's workers: nothing to do for the real months ahead.
  assert.deepEqual(await maintainPartitions(h.gw.running.gw), { created: [], failed: [] });
  assert.equal(MONTHS_AHEAD, 3);
});

test('a month without its partition goes to DEFAULT; its partition then waits for an operator', async () => {
  const month = '2032-02-10T12:00:00Z';
  await auditAt(month, 'req-default');
  assert.deepEqual(await partitionOf('audit_log', 'request_id = $1', ['req-default']), [
    'audit_log_default',
  ]);
  assert.equal((await defaultPartitionRows(pool)).audit_log, 1);
  const round = await ensureMonthPartitions(pool, new Date(month), 0);
  assert.deepEqual(round.created.sort(), ['delivery_attempts_p2032_02', 'inbound_events_p2032_02']);
  assert.equal(round.failed.length, 1);
  assert.equal(round.failed[0]?.partition, 'audit_log_p2032_02');
  assert.match(
    round.failed[0]?.error ?? '',
    /updated partition constraint for default partition "audit_log_default" would be violated/,
  );
  // The failed attempt left nothing behind: no half-made table.
  assert.deepEqual(await sql(h.gw.databaseUrl, `SELECT to_regclass('audit_log_p2032_02') AS t`), [
    { t: null },
  ]);
});

test('an old month detaches (the archive path) and the current data keeps working', async () => {
  const old = new Date(Date.UTC(2024, 0, 15));
  assert.deepEqual((await ensureMonthPartitions(pool, old, 0)).failed, []);
  await auditAt('2024-01-20T10:00:00Z', 'req-old');
  await auditAt(new Date().toISOString(), 'req-now');
  await sql(
    h.gw.databaseUrl,
    `INSERT INTO inbound_events (provider, received_at, headers, raw_body, outcome)
     VALUES ('idr_psp', '2024-01-20T10:00:00Z', '{}', '\\x00', 'received')`,
  );
  // docs/operations.md#archiving-old-months, step by step.
  for (const table of ['audit_log', 'inbound_events']) {
    await sql(
      h.gw.databaseUrl,
      `SET lock_timeout = '2s'; ALTER TABLE ${table} DETACH PARTITION ${table}_p2024_01`,
    );
  }
  // Detached, the month is a plain table of its own (for pg_dump), outside the parent.
  assert.deepEqual(await sql(h.gw.databaseUrl, `SELECT request_id FROM audit_log_p2024_01`), [
    { request_id: 'req-old' },
  ]);
  assert.deepEqual(await partitionOf('audit_log', 'request_id = $1', ['req-old']), []);
  const audit = await h.gw.admin('GET', '/admin/audit?action=app.update');
  assert.equal(audit.status, 200, audit.text);
  const ids = audit.json<{ entries: { request_id: string }[] }>().entries.map((e) => e.request_id);
  assert.ok(ids.includes('req-now'));
  assert.ok(!ids.includes('req-old'));
  for (const table of ['audit_log', 'inbound_events']) {
    await sql(h.gw.databaseUrl, `DROP TABLE ${table}_p2024_01`);
  }
  // Writes after the detach: an audited admin change and a webhook's archive.
  const created = await h.gw.admin('POST', '/admin/apps', { name: 'After the detach' });
  assert.equal(created.status, 201, created.text);
  const listed = await h.gw.admin('GET', '/admin/inbound_events');
  assert.equal(listed.status, 200, listed.text);
});

test('duplicate and concurrent duplicate webhooks on the partitioned archive move money once', async () => {
  const { gw, app } = h;
  const serverKey = idrTestServerKey(gw.config.masterKey);
  const p = await lostWebhookPayment(gw, app, 'idr', 41_000);
  await silentAction(gw, 'idr', p.providerRef, 'pay');
  const body = idrNotification(serverKey, {
    orderId: p.id,
    status: 'settlement',
    grossAmount: 41_000,
  });
  const first = await postWebhook(gw.url, 'idr_psp', body);
  assert.equal(first.text, '{"acknowledged":true}');
  const again = await Promise.all([1, 2, 3, 4].map(() => postWebhook(gw.url, 'idr_psp', body)));
  for (const r of again) {
    assert.equal(r.status, 200);
    assert.equal(r.text, '{"acknowledged":true,"action":"already_finalized"}');
  }
  const thisMonth = `inbound_events_p${monthStart(new Date(), 0).slice(0, 7).replace('-', '_')}`;
  const archived = await partitionOf('inbound_events', 'payment_id = $1', [p.id]);
  assert.deepEqual(archived, [thisMonth, thisMonth, thisMonth, thisMonth, thisMonth]);
  assert.deepEqual(
    await sql(
      gw.databaseUrl,
      `SELECT outcome, count(*)::int AS n FROM inbound_events WHERE payment_id = $1
       GROUP BY outcome ORDER BY outcome`,
      [p.id],
    ),
    [
      { outcome: 'already_finalized', n: 4 },
      { outcome: 'finalized_succeeded', n: 1 },
    ],
  );
  assert.deepEqual(
    await sql(
      gw.databaseUrl,
      `SELECT count(*)::int AS n FROM ledger_entries WHERE payment_id = $1 AND type = 'charge'`,
      [p.id],
    ),
    [{ n: 1 }],
  );
  assert.deepEqual(
    await sql(
      gw.databaseUrl,
      `SELECT count(*)::int AS n FROM outbound_events
       WHERE payment_id = $1 AND event_type = 'payment.succeeded'`,
      [p.id],
    ),
    [{ n: 1 }],
  );
});

test('five copies of a webhook at once: five archived, one charge, one event', async () => {
  const { gw, app } = h;
  const serverKey = idrTestServerKey(gw.config.masterKey);
  const p = await lostWebhookPayment(gw, app, 'idr', 42_000);
  await silentAction(gw, 'idr', p.providerRef, 'pay');
  const body = idrNotification(serverKey, {
    orderId: p.id,
    status: 'settlement',
    grossAmount: 42_000,
  });
  const answers = await Promise.all(
    [1, 2, 3, 4, 5].map(() => postWebhook(gw.url, 'idr_psp', body)),
  );
  assert.deepEqual(
    answers.map((r) => r.status),
    [200, 200, 200, 200, 200],
  );
  const counts = await sql(
    gw.databaseUrl,
    `SELECT (SELECT count(*)::int FROM inbound_events WHERE payment_id = $1) AS archived,
            (SELECT count(*)::int FROM ledger_entries WHERE payment_id = $1) AS entries,
            (SELECT count(*)::int FROM outbound_events WHERE payment_id = $1
               AND event_type = 'payment.succeeded') AS events`,
    [p.id],
  );
  assert.deepEqual(counts, [{ archived: 5, entries: 1, events: 1 }]);
  // The archive keeps the provider's headers, not the connection's (issue 29: storage).
  const headers = await sql<{ keys: string[] }>(
    gw.databaseUrl,
    `SELECT array_agg(k ORDER BY k) AS keys FROM (
       SELECT DISTINCT jsonb_object_keys(headers) AS k FROM inbound_events WHERE payment_id = $1) x`,
    [p.id],
  );
  assert.deepEqual(headers, [{ keys: ['content-type', 'user-agent'] }]);
});
