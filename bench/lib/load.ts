import autocannon from 'autocannon';

export interface LoadResult {
  requests: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  non2xx: number;
  errors: number;
}

export type LoadOptions = Parameters<typeof autocannon>[0];

/** One autocannon run; throughput is requests completed per second over the run. */
export async function load(opts: LoadOptions): Promise<LoadResult> {
  const r = await autocannon(opts);
  return {
    requests: r.requests.total,
    rps: Math.round(r.requests.average),
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
  };
}

export function ratio(a: number, b: number): number {
  return b === 0 ? 0 : Math.round((a / b) * 100) / 100;
}
