/** A search followed by next_before to its end (bench/search10m.ts, issue 29). */
import { ADMIN_TOKEN } from './env.js';

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round((sorted[Math.max(0, i)] ?? 0) * 100) / 100;
}

export interface FollowTiming {
  path: string;
  pages: number;
  rows: number;
  total_ms: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  complete: boolean;
}

/** A search followed by next_before to its end: how many pages, how long in all. */
/** At most maxPages pages (`complete` says whether the end was reached). */
export async function followAll(base: string, path: string, maxPages = 600): Promise<FollowTiming> {
  const times: number[] = [];
  let rows = 0;
  let next: string | null = null;
  const started = performance.now();
  do {
    const t0 = performance.now();
    const url = next === null ? base + path : `${base}${path}&before=${next}`;
    const res = await fetch(url, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const body = (await res.json()) as { payments: unknown[]; next_before: string | null };
    if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
    times.push(performance.now() - t0);
    rows += body.payments.length;
    next = body.next_before;
  } while (next !== null && times.length < maxPages);
  const total = performance.now() - started;
  times.sort((x, y) => x - y);
  const r = (v: number) => Math.round(v * 100) / 100;
  return {
    path,
    pages: times.length,
    rows,
    total_ms: r(total),
    p50_ms: percentile(times, 50),
    p99_ms: percentile(times, 99),
    max_ms: r(times[times.length - 1] ?? 0),
    complete: next === null,
  };
}
