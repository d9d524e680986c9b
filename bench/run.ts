/**
 * npm run bench [-- scenario ...]: each scenario starts the gateway as its own process on a
 * fresh database (DATABASE_URL's server, or an embedded PostgreSQL), drives it with
 * autocannon, measures a reference in the same run, and writes JSON to bench/results/.
 * Settings: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (default 64),
 * BENCH_INSTANCES (comma list of WORKERS counts for the GET and create scenarios, default 1),
 * BENCH_SIMULATORS (`mounted`: the simulators inside the gateway instead of their own process,
 * `npm run simulators`), BENCH_DB_TAG (suffix of the bench databases' names).
 * Each scenario reports CPU ms per operation of the gateway, the simulators and PostgreSQL's
 * backends, apart (bench/lib/cpu.ts), and a summary table closes the run.
 * The soak (bench/soak.ts) runs only when named:
 * BENCH_SOAK_MINUTES (default 30), BENCH_SOAK_RATE (default half the maximum of the soak's whole
 * mix, measured by a stepped probe at its start). BENCH_PG_DIR: the embedded PostgreSQL's data
 * directory (default .bench-pg), to run two benches side by side in one checkout.
 * Storage per payment (bench/storage.ts) too: BENCH_STORAGE_PAYMENTS (default 20,000).
 * And the admin searches at ten million payments (bench/search10m.ts): BENCH_SEARCH_DB.
 */
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { benchDatabase, machine, simulatorsApart } from './lib/env.js';
import { benchAdmin } from './admin.js';
import { benchSearch10m } from './search10m.js';
import { benchReconciliation } from './reconciliation.js';
import { benchOperatorAuth } from './operators.js';
import { benchSoak } from './soak.js';
import { benchStorage } from './storage.js';
import { benchCreatePayments } from './scenarios/create.js';
import { benchSignedGet } from './scenarios/get.js';
import { benchWebhookToDelivery } from './scenarios/webhook.js';
import { benchEndpoints } from './scenarios/endpoints.js';
import { summaryTable } from './lib/summary.js';

export interface BenchSettings {
  durationS: number;
  connections: number;
  instances: number[];
}

type Scenario = (
  db: Awaited<ReturnType<typeof benchDatabase>>,
  s: BenchSettings,
) => Promise<Record<string, unknown>>;

const SCENARIOS: Record<string, Scenario> = {
  get: benchSignedGet,
  create: benchCreatePayments,
  webhook: benchWebhookToDelivery,
  admin: benchAdmin,
  reconciliation: benchReconciliation,
  // Run it when named: npm run bench -- operators.
  operators: benchOperatorAuth,
  // Long: run these on their own (npm run bench -- soak); not part of the default set.
  soak: benchSoak,
  storage: benchStorage,
  endpoints: benchEndpoints,
  // Every admin search at ten million payments; BENCH_SEARCH_DB names a seeded database.
  search10m: benchSearch10m,
};
const DEFAULT_SCENARIOS = ['get', 'create', 'webhook', 'admin'];

async function main() {
  const settings: BenchSettings = {
    durationS: Number(process.env.BENCH_DURATION ?? 10),
    connections: Number(process.env.BENCH_CONNECTIONS ?? 64),
    instances: (process.env.BENCH_INSTANCES ?? '1').split(',').map(Number),
  };
  const chosen = process.argv.slice(2).length > 0 ? process.argv.slice(2) : DEFAULT_SCENARIOS;
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    machine: machine(),
    database: process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded',
    simulators: simulatorsApart() ? 'own process' : 'mounted',
    commit: execSync('git rev-parse --short HEAD').toString().trim(),
    settings,
  };
  for (const name of chosen) {
    const scenario = SCENARIOS[name];
    if (!scenario)
      throw new Error(`unknown scenario ${name}; known: ${Object.keys(SCENARIOS).join(', ')}`);
    const db = await benchDatabase(`paygate_bench_${name}`);
    try {
      console.log(`== ${name}`);
      results[name] = await scenario(db, settings);
      console.log(JSON.stringify(results[name], null, 2));
    } finally {
      await db.close();
    }
  }
  const summary = summaryTable(results);
  console.log(summary);
  results.summary = summary.split('\n');
  mkdirSync('bench/results', { recursive: true });
  const file = `bench/results/${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  writeFileSync(file, JSON.stringify(results, null, 2) + '\n');
  console.log(`results written to ${file}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
