/**
 * One line per measured subject: throughput, latency and CPU ms per operation, the gateway's
 * and PostgreSQL's apart (bench/lib/cpu.ts says how each is counted).
 */
type Row = Record<string, unknown>;

const COLUMNS: [string, (r: Row) => unknown][] = [
  ['ops/s', (r) => r.rps ?? r.events_per_s],
  ['p50 ms', (r) => r.p50_ms ?? (r.inbound as Row | undefined)?.p50_ms],
  ['p99 ms', (r) => r.p99_ms ?? (r.inbound as Row | undefined)?.p99_ms],
  ['ratio', (r) => r.ratio_to_reference],
  ['process cpu ms/op', (r) => r.gateway_cpu_ms_per_op ?? r.reference_cpu_ms_per_op],
  ['simulators cpu ms/op', (r) => r.simulators_cpu_ms_per_op],
  [
    'pg cpu ms/op (process)',
    // A reference's row first: the gateway's idle backends may be counted in its window too.
    (r) =>
      r.reference_cpu_ms_per_op !== undefined
        ? r.postgres_reference_cpu_ms_per_op
        : r.postgres_gateway_cpu_ms_per_op,
  ],
  ['pg cpu ms/op (all)', (r) => r.postgres_cpu_ms_per_op],
  ['xacts/op', (r) => r.transactions_per_op],
  ['rss MiB', (r) => r.peak_rss_mib],
];

function rows(name: string, result: Row): [string, Row][] {
  const out: [string, Row][] = [];
  if (name === 'create') {
    for (const g of result.gateway as Row[])
      out.push([`create, workers=${g.workers as number}`, g]);
    out.push(['create reference (raw pg writes)', result.reference as Row]);
  } else if (name === 'get') {
    for (const g of result.gateway as Row[]) out.push([`get, workers=${g.workers as number}`, g]);
    out.push(['get reference (Fastify + HMAC)', result.reference as Row]);
  } else if (name === 'webhook') {
    const peak = { peak_rss_mib: result.peak_rss_mib };
    if (result.pending) {
      const pending = result.pending as Row;
      out.push([
        'webhook pending (acknowledged, nothing delivered)',
        { ...pending, rps: (pending.inbound as Row).rps },
      ]);
    }
    out.push([
      'webhook->delivery, saturated',
      { ...(result.saturated as Row), ...peak, ratio_to_reference: result.ratio_to_reference },
    ]);
    out.push([
      'webhook->delivery, steady (p = ack to delivery)',
      {
        ...(result.steady as Row),
        p50_ms: (result.steady as Row).ack_to_delivery_p50_ms,
        p99_ms: (result.steady as Row).ack_to_delivery_p99_ms,
      },
    ]);
    // Results from before the reference existed have none.
    if (result.reference) {
      out.push(['webhook reference (Fastify + status call + pg)', result.reference as Row]);
    }
  }
  return out;
}

/** A plain-text table of every scenario measured. */
export function summaryTable(results: Record<string, unknown>): string {
  const lines: string[][] = [['subject', ...COLUMNS.map((c) => c[0])]];
  for (const [name, result] of Object.entries(results)) {
    if (!result || typeof result !== 'object') continue;
    for (const [label, row] of rows(name, result as Row)) {
      lines.push([label, ...COLUMNS.map(([, f]) => String(f(row) ?? '-'))]);
    }
  }
  const widths = lines[0]!.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  return lines.map((l) => l.map((c, i) => c.padEnd(widths[i]!)).join('  ')).join('\n');
}
