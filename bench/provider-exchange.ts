/**
 * The client's CPU per provider call (docs/performance.md, "Create and GET, fourth pass"):
 * src/providers/http.ts against the exchange it replaced (undici's `request` with an
 * AbortController timer and `body.text()`, kept here as it was), in alternating rounds in one
 * process, against a loopback HTTP server in a child process (its CPU is not counted) that
 * answers like the idr_psp simulator's Snap registration. CPU time is this process's
 * (process.cpuUsage), per call.
 *
 *   npx tsx bench/provider-exchange.ts
 *
 * Settings: BENCH_ROUNDS (default 10), BENCH_CALLS (per round and side, default 4000),
 * BENCH_CONNECTIONS (calls in flight, default 16).
 */
import { fork } from 'node:child_process';
import os from 'node:os';
import { Agent, request } from 'undici';
import {
  providerExchange,
  ProviderTimeoutError,
  type ProviderAnswer,
} from '../src/providers/http.js';

if (process.argv[2] === 'server') {
  const { createServer } = await import('node:http');
  const answer = JSON.stringify({
    token: 'c0ffee00-0000-4000-8000-000000000000',
    redirect_url: 'http://127.0.0.1/snap/v4/redirection/c0ffee00-0000-4000-8000-000000000000',
  });
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(answer);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const addr = server.address();
    process.send?.(typeof addr === 'object' && addr ? addr.port : 0);
  });
} else {
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 128 });

  /** The exchange before the fourth pass, as it was in src/providers/http.ts. */
  async function before(
    url: string,
    init: Parameters<typeof providerExchange>[1],
  ): Promise<ProviderAnswer> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new ProviderTimeoutError()), init.timeoutMs);
    try {
      const res = await request(url, {
        method: init.method,
        headers: init.headers,
        body: init.body,
        signal: abort.signal,
        dispatcher: agent,
      });
      const text = await res.body.text();
      return { status: res.statusCode, text };
    } catch (err) {
      if (abort.signal.aborted) throw new ProviderTimeoutError();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  const server = fork(new URL(import.meta.url).pathname, ['server'], {
    execArgv: ['--import', 'tsx'],
  });
  const port = await new Promise<number>((r) => server.once('message', (p) => r(p as number)));
  const url = `http://127.0.0.1:${port}/snap/v1/transactions`;
  const body = JSON.stringify({
    transaction_details: { order_id: 'f'.repeat(32), gross_amount: 125000 },
    enabled_payments: ['other_qris'],
    callbacks: { finish: 'https://shop.example/back' },
    expiry: { unit: 'minute', duration: 15, start_time: '2026-11-26 14:00:00 +0700' },
    page_expiry: { unit: 'minute', duration: 15 },
    customer_details: { email: 'bench@example.com' },
  });
  const init = {
    method: 'POST' as const,
    headers: {
      accept: 'application/json',
      authorization: 'Basic U0ItTWlkLXNlcnZlci0wMTIzNDU2Nzg5YWJjZGVmOg==',
      'content-type': 'application/json',
      'idempotency-key': 'f'.repeat(32),
    },
    body,
    timeoutMs: 10_000,
  };
  const rounds = Number(process.env.BENCH_ROUNDS ?? 10);
  const calls = Number(process.env.BENCH_CALLS ?? 4000);
  const inFlight = Number(process.env.BENCH_CONNECTIONS ?? 16);
  const sides = { before, after: providerExchange };

  async function round(fn: typeof providerExchange): Promise<number> {
    let left = calls;
    const c0 = process.cpuUsage();
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (left-- > 0) {
          const a = await fn(url, init);
          if (a.status !== 201) throw new Error(`status ${a.status}`);
        }
      }),
    );
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / calls;
  }

  await round(before);
  await round(providerExchange);
  const rows: { before: number; after: number }[] = [];
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
    const row = { before: 0, after: 0 };
    for (const s of order) row[s] = await round(sides[s]);
    rows.push(row);
    console.log(
      `round ${i + 1}: before ${row.before.toFixed(1)} µs, after ${row.after.toFixed(1)} µs per call (load ${os.loadavg()[0]!.toFixed(1)})`,
    );
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(
    `median: before ${median(rows.map((r) => r.before)).toFixed(1)} µs, after ${median(rows.map((r) => r.after)).toFixed(1)} µs; after/before per round, median ${median(rows.map((r) => r.after / r.before)).toFixed(2)}`,
  );
  server.kill();
  await agent.close();
}
