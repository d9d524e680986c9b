/**
 * The gateway's memory while its settled-payment cache churns (issue 29), without the create
 * rate the soak needs: one payment is created and paid through the API, cloned in SQL into
 * BENCH_MEMORY_PAYMENTS settled payments (default 120,000, about three times what the
 * cache holds), then signed GETs of random ones run closed-loop for BENCH_MEMORY_MINUTES
 * (default 5): every miss serialises a body and caches it, evicting the oldest, which is the
 * old-generation churn a soak's GETs make. RSS, V8's heap and external memory are printed
 * every 10 seconds. Compare BENCH_NODE_ARGS=--heap-growing-percent=0 (V8's own heuristics)
 * with the default (src/memory.ts), side by side with BENCH_PG_DIR:
 *
 *   BENCH_COMPILED=1 npx tsx bench/settled-memory.ts
 */
import { writeFileSync } from 'node:fs';
import pg from 'pg';
import { ADMIN_TOKEN, benchDatabase, startGatewayProcess } from './lib/env.js';
import { load } from './lib/load.js';
import { createApp } from './lib/seed.js';
import { signedHeaders } from './lib/sign.js';

const PAYMENTS = Number(process.env.BENCH_MEMORY_PAYMENTS ?? 120_000);
const MINUTES = Number(process.env.BENCH_MEMORY_MINUTES ?? 5);

async function memory(url: string, pid: number) {
  const text = await (
    await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  ).text();
  const mib = (re: RegExp) => Math.round(Number(re.exec(text)?.[1] ?? NaN) / 2 ** 20);
  const { readFileSync } = await import('node:fs');
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return {
    rss_mib: Math.round(Number(rss?.[1] ?? 0) / 1024),
    heap_used_mib: mib(/^nodejs_heap_size_used_bytes (\S+)/m),
    heap_total_mib: mib(/^nodejs_heap_size_total_bytes (\S+)/m),
    old_space_mib: mib(/^nodejs_heap_space_size_total_bytes\{space="old"\} (\S+)/m),
    new_space_mib: mib(/^nodejs_heap_space_size_total_bytes\{space="new"\} (\S+)/m),
    external_mib: mib(/^nodejs_external_memory_bytes (\S+)/m),
  };
}

const db = await benchDatabase('paygate_bench_memory');
const gw = await startGatewayProcess(db.url);
try {
  const theApp = await createApp(gw.url, {});
  const body = JSON.stringify({
    external_user_id: 'buyer-1',
    email: 'soak@example.com',
    amount_minor: 10_000,
    currency: 'IDR',
    method: 'qris',
    return_url: 'https://shop.example/back',
  });
  const created = await fetch(`${gw.url}/v1/payments`, {
    method: 'POST',
    headers: {
      ...signedHeaders(theApp, 'POST', '/v1/payments', body),
      'content-type': 'application/json',
    },
    body,
  });
  const first = (await created.json()) as { payment_id: string };
  const path = `/v1/payments/${first.payment_id}`;
  const read = await fetch(gw.url + path, { headers: signedHeaders(theApp, 'GET', path, '') });
  const ref = ((await read.json()) as { provider_ref: string }).provider_ref;
  const paid = await fetch(`${gw.simulators?.url ?? gw.url}/sim/idr_psp/payments/${ref}/pay`, {
    method: 'POST',
  });
  if (paid.status !== 200) throw new Error(`pay: ${paid.status}`);
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  for (let i = 0; i < 50; i++) {
    const s = await c.query<{ status: string }>(`SELECT status FROM payments WHERE id = $1`, [
      first.payment_id,
    ]);
    if (s.rows[0]?.status === 'succeeded') break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const cols = (
    await c.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns
       WHERE table_schema = current_schema() AND table_name = 'payments'
         AND column_name NOT IN ('id', 'provider_ref') AND is_generated = 'NEVER'
       ORDER BY ordinal_position`,
    )
  ).rows.map((r) => `"${r.column_name}"`);
  await c.query(
    `INSERT INTO payments (id, provider_ref, ${cols.join(', ')})
     SELECT md5('clone' || g), p.provider_ref || '-' || g, ${cols.map((x) => `p.${x}`).join(', ')}
     FROM payments p, generate_series(1, $2::int) g WHERE p.id = $1`,
    [first.payment_id, PAYMENTS],
  );
  await c.query('ANALYZE payments');
  const ids = (await c.query<{ id: string }>(`SELECT id FROM payments`)).rows.map((r) => r.id);
  await c.end();
  console.log(`${ids.length} settled payments; GETs for ${MINUTES} min`);

  const pid = gw.child.pid as number;
  const samples: (Awaited<ReturnType<typeof memory>> & { s: number })[] = [];
  const started = Date.now();
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const m = { s: Math.round((Date.now() - started) / 1000), ...(await memory(gw.url, pid)) };
      samples.push(m);
      console.log(JSON.stringify(m));
      await new Promise((r) => setTimeout(r, 10_000));
    }
  })();
  const gets = await load({
    url: gw.url,
    connections: 16,
    duration: MINUTES * 60,
    requests: [
      {
        setupRequest: (req) => {
          const path = `/v1/payments/${ids[Math.floor(Math.random() * ids.length)]}`;
          return { ...req, method: 'GET', path, headers: signedHeaders(theApp, 'GET', path, '') };
        },
      },
    ],
  });
  sampling = false;
  await sampler;
  const half = samples.slice(Math.floor(samples.length / 2));
  const result = {
    node_args: process.env.BENCH_NODE_ARGS ?? '',
    payments: ids.length,
    gets,
    peak_rss_mib: gw.peakRssMiB(),
    rss_max_second_half_mib: Math.max(...half.map((m) => m.rss_mib)),
    heap_total_max_second_half_mib: Math.max(...half.map((m) => m.heap_total_mib)),
    samples,
  };
  console.log(JSON.stringify({ ...result, samples: undefined }));
  const file = `bench/results/settled-memory-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
  console.log(`results written to ${file}`);
} finally {
  await gw.stop();
  await db.close();
}
process.exit(0);
