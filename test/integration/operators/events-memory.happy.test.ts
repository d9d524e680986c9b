/**
 * One tenant cannot exhaust the gateway's memory through GET /v1/events
 * (docs/api.md#list-your-events): with events carrying the largest metadata a request can
 * send, plus events stored before metadata had limits (about 1 MiB each, what the body
 * limit alone allowed), several concurrent readers paging through the whole feed grow the
 * gateway process's resident memory by less than RSS_GROWTH_BOUND. The gateway runs as its
 * own OS process, so the RSS read from /proc is its own and not the test runner's.
 *
 * Before the byte budget the same run grew the process by about 2.7 GiB (each 100-event page
 * of the old rows was about 100 MiB, held several times over while it was built); after it,
 * by about 110 MiB. Set EVENTS_MEMORY_REPORT=1 to print this run's numbers.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { unpackEventBody, type StoredEventBody } from '../../../src/db/eventBody.js';
import { paymentBody, sql } from '../../helpers/core.js';
import { createTestDatabase } from '../../helpers/db.js';
import { signedFetch } from '../../helpers/http.js';
import { kill, spawnGateway, type GatewayProcess } from '../../helpers/process.js';

const MIB = 1024 * 1024;
const ADMIN_TOKEN = 'memory-test-admin-token-0123456789';
/** The largest metadata a request may carry (docs/api.md#metadata-limits). */
const MAX_METADATA_BYTES = 32_768;
const LIMIT_SIZED_EVENTS = 100;
const LEGACY_EVENTS = 100;
const LEGACY_METADATA_BYTES = 1_000_000;
const READERS = 6;
/**
 * Six readers at once each hold at most one page (1 MiB of payloads) as rows, as the
 * response text and in the socket's buffers; the rest of the growth is garbage the collector
 * has not returned yet. Measured about 110 MiB (2.7 GiB before the budget); the bound leaves
 * room for a busy machine's collector timing and still fails the unbounded pages tenfold.
 */
const RSS_GROWTH_BOUND = 256 * MIB;

interface App {
  app_id: string;
  api_key: string;
  signing_secret: string;
}

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let gateway: GatewayProcess;
let app: App;

/** A figure of /proc/<pid>/status in bytes (VmRSS: now; VmHWM: the peak since the reset). */
function procStatus(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(
    readFileSync(`/proc/${pid}/status`, 'utf8'),
  );
  assert.ok(m, `${field} of ${pid}`);
  return Number(m[1]) * 1024;
}

async function v1(method: string, path: string, body?: object) {
  return signedFetch(gateway.url, app, method, path, body);
}

/** Creates and pays (through the idr_psp simulator) one payment: one payment.succeeded event. */
async function paidPayment(metadata: Record<string, unknown>): Promise<string> {
  const res = await v1('POST', '/v1/payments', paymentBody({ metadata }));
  assert.equal(res.status, 201, res.text);
  const id = res.json<{ payment_id: string }>().payment_id;
  const ref = (await v1('GET', `/v1/payments/${id}`)).json<{ provider_ref: string }>().provider_ref;
  const sim = await fetch(`${gateway.url}/sim/idr_psp/payments/${ref}/pay`, { method: 'POST' });
  const text = await sim.text();
  assert.equal(sim.status, 200, text);
  assert.equal((JSON.parse(text) as { gateway_status: number }).gateway_status, 200, text);
  return id;
}

/** Pages through the app's whole feed with the largest `limit`; the number of events seen. */
async function readAll(): Promise<number> {
  let after = '';
  let n = 0;
  for (;;) {
    const res = await v1('GET', `/v1/events?limit=100&after=${after}`);
    assert.equal(res.status, 200, res.text.slice(0, 200));
    const page = res.json<{ events: { id: string }[]; has_more: boolean }>();
    n += page.events.length;
    after = page.events.at(-1)?.id ?? after;
    if (!page.has_more) return n;
  }
}

before(async () => {
  db = await createTestDatabase();
  gateway = await spawnGateway({
    DATABASE_URL: db.url,
    ADMIN_TOKEN,
    MASTER_KEY: randomBytes(32).toString('hex'),
    DATA_DIR: '/nonexistent-test-data-dir',
  });
  const res = await fetch(`${gateway.url}/admin/apps`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Fat tenant' }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  app = (await res.json()) as App;

  let first = '';
  for (let i = 0; i < LIMIT_SIZED_EVENTS; i++) {
    const metadata = { order: `O-${i}`, blob: '' };
    metadata.blob = 'x'.repeat(MAX_METADATA_BYTES - Buffer.byteLength(JSON.stringify(metadata)));
    const id = await paidPayment(metadata);
    first ||= id;
  }
  // Events stored before metadata had limits, when the 1 MiB body limit was the only bound:
  // no request can make them any more, so they are written as such rows were stored (the
  // body as text, body_codec NULL), copies of the first payment's event.
  const [stored] = await sql<StoredEventBody>(
    db.url,
    `SELECT event_type, body, body_codec, body_packed FROM outbound_events WHERE payment_id = $1`,
    [first],
  );
  await sql(
    db.url,
    `INSERT INTO outbound_events (id, app_id, payment_id, event_type, body)
     SELECT 'evt_' || substr(md5(random()::text || g::text), 1, 24), e.app_id, e.payment_id,
       e.event_type, jsonb_set($4::jsonb, '{metadata,blob}', to_jsonb(repeat('y', $2)))::text
     FROM outbound_events e, generate_series(1, $3) AS g WHERE e.payment_id = $1`,
    [first, LEGACY_METADATA_BYTES, LEGACY_EVENTS, unpackEventBody(stored as StoredEventBody)],
  );
});

after(async () => {
  if (gateway) await kill(gateway, 'SIGTERM');
  await db?.drop();
});

test(`${READERS} concurrent full-feed reads stay under the RSS growth bound`, async () => {
  const pid = gateway.child.pid;
  assert.ok(pid !== undefined);
  // Warms the code paths (and the pool) on a small page, so their one-time cost is not counted.
  assert.equal((await v1('GET', '/v1/events?limit=1')).status, 200);
  const before = procStatus(pid, 'VmRSS');
  // Resets the kernel's peak (VmHWM) to the current RSS, so VmHWM is this run's peak; the
  // sampling covers kernels where the reset is not allowed.
  let peak = before;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // sampling only
  }
  const sampler = setInterval(() => {
    peak = Math.max(peak, procStatus(pid, 'VmRSS'));
  }, 10);
  const started = Date.now();
  let counts: number[];
  try {
    counts = await Promise.all(Array.from({ length: READERS }, () => readAll()));
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, procStatus(pid, 'VmHWM'));
  const growth = peak - before;
  const report = {
    readers: READERS,
    events: counts[0],
    rss_before_mib: +(before / MIB).toFixed(1),
    rss_peak_mib: +(peak / MIB).toFixed(1),
    growth_mib: +(growth / MIB).toFixed(1),
    seconds: +((Date.now() - started) / 1000).toFixed(1),
  };
  if (process.env.EVENTS_MEMORY_REPORT) process.stderr.write(`${JSON.stringify(report)}\n`);
  for (const n of counts) assert.equal(n, LIMIT_SIZED_EVENTS + LEGACY_EVENTS);
  assert.ok(growth < RSS_GROWTH_BOUND, JSON.stringify(report));
});
