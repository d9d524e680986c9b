/**
 * V8's heap growth against a churning cache, in a plain process (docs/performance.md,
 * "Resident memory under a soak"): 60 MiB of live strings in a FIFO map, 600,000 more
 * inserted and the oldest evicted, short-lived garbage beside them; prints the largest heap
 * and resident set seen and the CPU used. An argument is passed to v8.setFlagsFromString:
 *
 *   node --import tsx bench/heap-growth.ts                           # V8's sizing
 *   node --import tsx bench/heap-growth.ts --heap-growing-percent=20 # the gateway's bound
 *   node --expose-gc --import tsx bench/heap-growth.ts cache         # the settled cache's heap
 */
import v8 from 'node:v8';
import { SettledPaymentCache } from '../src/cache.js';

const arg = process.argv[2];
const mib = (n: number) => (n / 2 ** 20).toFixed(1);
/** CPU time (user and system) since `t`, in nanoseconds. */
const cpuNs = (t: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(t);
  return (d.user + d.system) * 1000;
};

if (arg === 'cache') {
  // What the settled-payment cache holds when full (200,000 bodies of about 650 bytes stored):
  // heap after a full collection, memory outside the heap (its ring since issue 29), and the
  // time to store a body and to read one back.
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  gc();
  const m0 = process.memoryUsage();
  const cache = new SettledPaymentCache();
  const ids: string[] = [];
  const bodies: string[] = [];
  for (let i = 0; i < 200_000; i++) {
    const id = (1e12 + i).toString(16).padStart(32, '0');
    ids.push(id);
    bodies.push(
      JSON.stringify({
        payment_id: id,
        status: 'succeeded',
        amount_minor: i,
        currency: 'IDR',
        method: 'qris',
        provider: 'idr_psp',
        provider_ref: `ref${i}`,
        return_url: 'https://shop.example/back',
        external_user_id: `buyer-${i}`,
        created_at: new Date().toISOString(),
        updated_at: new Date().toISOString(),
        metadata: {},
        pad: 'x'.repeat(400),
      }),
    );
  }
  gc();
  const m1 = process.memoryUsage();
  let t = process.cpuUsage();
  for (let i = 0; i < ids.length; i++) cache.set(ids[i] as string, 'app_1', bodies[i] as string);
  const setNs = cpuNs(t) / ids.length;
  ids.length = 0;
  bodies.length = 0;
  gc();
  const m2 = process.memoryUsage();
  // Reads: the newest 40,000 ids (kept whatever the layout) and as many misses.
  const probe = Array.from({ length: 40_000 }, (_, k) =>
    (1e12 + 200_000 - 1 - k).toString(16).padStart(32, '0'),
  );
  let hits = 0;
  t = process.cpuUsage();
  for (let round = 0; round < 5; round++) {
    for (const id of probe) if (cache.get(id, 'app_1') !== undefined) hits++;
  }
  const getNs = cpuNs(t) / (5 * probe.length);
  let kept = 0;
  for (let i = 0; i < 200_000; i++) {
    if (cache.get((1e12 + i).toString(16).padStart(32, '0'), 'app_1') !== undefined) kept++;
  }
  console.log(
    `charged ${mib(cache.size)} MiB for ${kept} bodies; heap used ${mib(m2.heapUsed - m0.heapUsed)} MiB more ` +
      `(the bodies themselves, dropped: ${mib(m1.heapUsed - m0.heapUsed)} MiB while held), ` +
      `outside the heap ${mib(m2.arrayBuffers - m0.arrayBuffers)} MiB more; ` +
      `CPU per set ${Math.round(setNs)} ns, per get ${Math.round(getNs)} ns (${hits} hits)`,
  );
} else {
  if (arg) v8.setFlagsFromString(arg);
  const live = new Map<number, string>();
  let bytes = 0;
  let peakTotal = 0;
  let peakRss = 0;
  let sink = 0;
  const t0 = process.cpuUsage();
  for (let i = 0; i < 600_000; i++) {
    const s = JSON.stringify({ i, pad: 'y'.repeat(800), t: Date.now() });
    live.set(i, s);
    bytes += s.length;
    while (bytes > 60 * 2 ** 20) {
      const [k, v] = live.entries().next().value as [number, string];
      live.delete(k);
      bytes -= v.length;
    }
    sink += Array.from({ length: 20 }, (_, k) => ({ k, s: `z${k}` })).length;
    if (i % 2000 === 0) {
      const m = process.memoryUsage();
      peakTotal = Math.max(peakTotal, m.heapTotal);
      peakRss = Math.max(peakRss, m.rss);
    }
  }
  const cpu = process.cpuUsage(t0);
  console.log(
    `${arg ?? "V8's sizing"}: peak heap ${mib(peakTotal)} MiB, peak RSS ${mib(peakRss)} MiB, ` +
      `CPU ${Math.round((cpu.user + cpu.system) / 1000)} ms (${sink} objects)`,
  );
}
