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

if (arg === 'cache') {
  // What the settled-payment cache holds when full: heap after a full collection.
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  const cache = new SettledPaymentCache();
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 200_000; i++) {
    const id = (1e12 + i).toString(16).padStart(32, '0');
    const body = JSON.stringify({
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
    });
    cache.set(id, 'app_1', body);
  }
  gc();
  const after = process.memoryUsage().heapUsed;
  console.log(`charged ${mib(cache.size)} MiB, heap used ${mib(after - before)} MiB more`);
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
