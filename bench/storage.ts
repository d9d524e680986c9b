/**
 * Storage per payment (npm run bench -- storage): BENCH_STORAGE_PAYMENTS (default 20,000)
 * payments made through the API as an app makes them (create with an idempotency key, the
 * simulator's pay on 80 %, the signed delivery to a receiver), then the bytes each table and
 * its indexes grew by, per payment. "Live mode" leaves out what only test mode writes (the
 * simulators' own objects), since a live payment's provider keeps that state itself.
 *
 * Sizes are taken after VACUUM, so that dead row versions do not count as storage (they are
 * reused); what remains is what a payment costs for as long as it is kept.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { purgeOldSimObjects } from '../src/simulators/db/objects.js';
import { startGatewayProcess, type BenchDatabase } from './lib/env.js';
import { load, type LoadOptions } from './lib/load.js';
import { createApp } from './lib/seed.js';
import { signedHeaders } from './lib/sign.js';
import type { BenchSettings } from './run.js';

type Req = NonNullable<LoadOptions['requests']>[number];

/** Tables only test mode writes: their bytes are not part of a live payment's cost. */
const TEST_MODE_ONLY = new Set(['sim_objects']);

/** Tables whose rows the retention job deletes within a day: not kept per payment. */
const TRANSIENT = new Set(['idempotency_keys']);

async function tableBytes(db: pg.Client, full = false): Promise<Map<string, number>> {
  await db.query(full ? 'VACUUM FULL' : 'VACUUM');
  // A partitioned table (migration 0023) counts as the sum of its partitions.
  const res = await db.query<{ relname: string; bytes: string }>(
    `SELECT coalesce(p.relname, c.relname) AS relname, sum(pg_total_relation_size(c.oid)) AS bytes
     FROM pg_class c
     LEFT JOIN pg_inherits i ON i.inhrelid = c.oid
     LEFT JOIN pg_class p ON p.oid = i.inhparent
     WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'
     GROUP BY 1`,
  );
  return new Map(res.rows.map((r) => [r.relname, Number(r.bytes)]));
}

export async function benchStorage(db: BenchDatabase, s: BenchSettings) {
  const n = Number(process.env.BENCH_STORAGE_PAYMENTS ?? 20_000);
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const gw = await startGatewayProcess(db.url);
  const app = await createApp(gw.url, { webhook_url: receiverUrl });
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const before = await tableBytes(client);

  const ids: string[] = [];
  const create: Req = {
    setupRequest: (req) => {
      const body = JSON.stringify({
        external_user_id: `buyer-${Math.floor(Math.random() * 10_000)}`,
        email: 'storage@example.com',
        amount_minor: 1000 + Math.floor(Math.random() * 100_000),
        currency: 'IDR',
        method: 'qris',
        return_url: 'https://shop.example/back',
        metadata: { order_id: `order-${randomUUID()}` },
      });
      return {
        ...req,
        method: 'POST',
        path: '/v1/payments',
        body,
        headers: {
          ...signedHeaders(app, 'POST', '/v1/payments', body),
          'content-type': 'application/json',
          'idempotency-key': randomUUID(),
        },
      };
    },
    onResponse: (status, body) => {
      if (status === 201) ids.push((JSON.parse(body) as { payment_id: string }).payment_id);
    },
  };
  await load({ url: gw.url, connections: s.connections, amount: n, requests: [create] });

  const toPay = ids.filter((_, i) => i % 5 !== 0);
  const payOne = async () => {
    for (let id = toPay.pop(); id; id = toPay.pop()) {
      const path = `/v1/payments/${id}`;
      const read = await fetch(gw.url + path, { headers: signedHeaders(app, 'GET', path, '') });
      if (read.status !== 200) {
        // A loaded machine answers 503 now and then: the payment is paid on a later turn.
        await read.text();
        toPay.unshift(id);
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      const ref = ((await read.json()) as { provider_ref: string }).provider_ref;
      const res = await fetch(`${gw.simulators?.url ?? gw.url}/sim/idr_psp/payments/${ref}/pay`, {
        method: 'POST',
      });
      await res.text();
    }
  };
  await Promise.all(Array.from({ length: 16 }, payOne));
  const until = Date.now() + 120_000;
  while (Date.now() < until) {
    const { rows } = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM deliveries WHERE status = 'pending'`,
    );
    if (Number(rows[0]?.n) === 0) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  await gw.stop();
  receiver.close();
  const after = await tableBytes(client);
  // An update is HOT when it changes no indexed column: no new index entries, no index bloat.
  const hot = await client.query<{ hot: string; upd: string }>(
    `SELECT n_tup_hot_upd AS hot, n_tup_upd AS upd FROM pg_stat_user_tables WHERE relname = 'payments'`,
  );
  const hotRow = hot.rows[0];
  // Per payment is per row made: on a loaded machine a create can time out at the client
  // after its payment was made, and a pay can fail, so both are counted in the database.
  const counts = await client.query<{ made: string; paid: string }>(
    `SELECT count(*) AS made, count(*) FILTER (WHERE status = 'succeeded') AS paid FROM payments`,
  );
  const made = Number(counts.rows[0]?.made ?? ids.length);
  const hotDeliveries = await client.query<{ hot: string; upd: string }>(
    `SELECT n_tup_hot_upd AS hot, n_tup_upd AS upd FROM pg_stat_user_tables WHERE relname = 'deliveries'`,
  );
  // The payments table's own split: heap and each index, per payment (issue 29).
  const parts = await client.query<{ name: string; bytes: string }>(
    `SELECT 'heap' AS name, pg_relation_size('payments') AS bytes
     UNION ALL
     SELECT indexrelname, pg_relation_size(indexrelid) FROM pg_stat_user_indexes
     WHERE relname = 'payments'`,
  );
  // The same rows rewritten without the space that dead row versions left (VACUUM FULL):
  // what a payment's rows and index entries take themselves. Between the two figures is the
  // free space inside the tables, which later inserts reuse once autovacuum has run (this
  // server's autovacuum is off, so nothing was reused during the run).
  const compacted = await tableBytes(client, true);
  // Compacted, each table split into its heap (with TOAST) and each index, partitions summed.
  const split = await client.query<{ tbl: string; rel: string; bytes: string }>(
    `WITH t AS (
       SELECT c.oid, coalesce(p.relname, c.relname) AS tbl
       FROM pg_class c
       LEFT JOIN pg_inherits i ON i.inhrelid = c.oid
       LEFT JOIN pg_class p ON p.oid = i.inhparent
       WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r')
     SELECT t.tbl, 'heap' AS rel, sum(pg_table_size(t.oid)) AS bytes FROM t GROUP BY 1
     UNION ALL
     SELECT t.tbl, coalesce(pi.relname, ic.relname), sum(pg_relation_size(ic.oid))
     FROM t JOIN pg_index x ON x.indrelid = t.oid JOIN pg_class ic ON ic.oid = x.indexrelid
     LEFT JOIN pg_inherits ii ON ii.inhrelid = ic.oid
     LEFT JOIN pg_class pi ON pi.oid = ii.inhparent
     GROUP BY 1, 2`,
  );
  // Simulator state purged after its test use (issue 29): the retention job's purge
  // (Simulators.purgeOld: purgeOldSimObjects, SIM_OBJECTS_RETENTION_DAYS) run as it would
  // run once the run's objects are past the retention (their times moved back 31 days), then
  // what sim_objects holds after VACUUM FULL.
  await client.query(
    `UPDATE paygate_sim.sim_objects SET created_at = created_at - interval '31 days',
       updated_at = updated_at - interval '31 days'`,
  );
  let simPurged = 0;
  for (let n = -1; n !== 0; simPurged += n) n = await purgeOldSimObjects(client, 30, 5000);
  await client.query('VACUUM FULL paygate_sim.sim_objects');
  const simLeft = await client.query<{ rows: string; bytes: string }>(
    `SELECT (SELECT count(*) FROM paygate_sim.sim_objects) AS rows,
       pg_total_relation_size('paygate_sim.sim_objects') AS bytes`,
  );
  await client.end();

  const sum = (sizes: Map<string, number>) => {
    const perTable: Record<string, number> = {};
    let all = 0;
    let live = 0;
    let kept = 0;
    for (const [table, bytes] of sizes) {
      const grew = bytes - (before.get(table) ?? 0);
      if (grew <= 0) continue;
      perTable[table] = Math.round(grew / made);
      all += grew;
      if (TEST_MODE_ONLY.has(table)) continue;
      live += grew;
      if (!TRANSIENT.has(table)) kept += grew;
    }
    const per = (b: number) => Math.round(b / made);
    return { perTable, all: per(all), live: per(live), kept: per(kept) };
  };
  const vacuumed = sum(after);
  const full = sum(compacted);
  const perPayment = vacuumed.perTable;
  return {
    payments: made,
    payments_answered_201: ids.length,
    paid_share: Math.round((1000 * Number(counts.rows[0]?.paid ?? 0)) / made) / 1000,
    bytes_per_payment_live_mode: vacuumed.live,
    bytes_per_payment_test_mode: vacuumed.all,
    // Live mode without the idempotency keys, which the retention deletes after 24 hours.
    bytes_per_payment_live_mode_kept: vacuumed.kept,
    bytes_per_payment_live_mode_compacted: full.live,
    bytes_per_payment_live_mode_kept_compacted: full.kept,
    compacted_bytes_per_payment_by_table: Object.fromEntries(
      Object.entries(full.perTable).sort((a, b) => b[1] - a[1]),
    ),
    payments_updates: Number(hotRow?.upd ?? 0),
    payments_hot_update_share:
      Number(hotRow?.upd ?? 0) > 0
        ? Math.round((1000 * Number(hotRow?.hot)) / Number(hotRow?.upd)) / 1000
        : null,
    deliveries_updates: Number(hotDeliveries.rows[0]?.upd ?? 0),
    deliveries_hot_updates: Number(hotDeliveries.rows[0]?.hot ?? 0),
    payments_bytes_per_payment: Object.fromEntries(
      parts.rows
        .map((r) => [r.name, Math.round(Number(r.bytes) / made)] as const)
        .filter(([, b]) => b > 0)
        .sort((a, b) => b[1] - a[1]),
    ),
    sim_objects_purged_after_retention: simPurged,
    sim_objects_rows_left: Number(simLeft.rows[0]?.rows ?? 0),
    // After VACUUM FULL: deleted versions that another session's snapshot may still see stay.
    sim_objects_bytes_per_payment_after_purge: Math.round(
      Number(simLeft.rows[0]?.bytes ?? 0) / made,
    ),
    compacted_bytes_per_payment_by_relation: Object.fromEntries(
      split.rows
        .map((r) => [`${r.tbl} ${r.rel}`, Math.round(Number(r.bytes) / made)] as const)
        // An empty table's pages are a byte or two per payment: only what the run wrote.
        .filter(([, b]) => b > 4)
        .sort((a, b) => a[0].localeCompare(b[0])),
    ),
    bytes_per_payment_by_table: Object.fromEntries(
      Object.entries(perPayment).sort((a, b) => b[1] - a[1]),
    ),
  };
}
