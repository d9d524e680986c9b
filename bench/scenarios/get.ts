import { ADMIN_TOKEN, startGatewayProcess, startProcess, type BenchDatabase } from '../lib/env.js';
import { cpuWindow } from '../lib/cpu.js';
import { load, ratio, type LoadOptions } from '../lib/load.js';
import { createApp, seedPayments } from '../lib/seed.js';
import { signedHeaders } from '../lib/sign.js';
import type { BenchSettings } from '../run.js';

const PAYMENTS = 10_000;

/**
 * A point-of-sale terminal polling GET /v1/payments/{id}: signed reads over many payments
 * (half settled, half initiated), against a bare Fastify route doing the same HMAC check.
 */
export async function benchSignedGet(db: BenchDatabase, s: BenchSettings) {
  const out: Record<string, unknown> = {
    payments: PAYMENTS,
    connections: s.connections,
    duration_s: s.durationS,
  };
  const setup = await startGatewayProcess(db.url);
  const app = await createApp(setup.url, {});
  const ids = await seedPayments(db.url, app.app_id, PAYMENTS);
  await setup.stop();

  const options = (url: string): LoadOptions => ({
    url,
    connections: s.connections,
    duration: s.durationS,
    requests: [
      {
        setupRequest: (req) => {
          const path = `/v1/payments/${ids[Math.floor(Math.random() * ids.length)]}`;
          return { ...req, method: 'GET', path, headers: signedHeaders(app, 'GET', path, '') };
        },
      },
    ],
  });

  // The machine is shared and noisy: gateway and reference are measured in alternating
  // rounds (both processes up, one loaded at a time) and compared round by round.
  const ROUNDS = 3;
  const ref = await startProcess(
    ['bench/reference/get-server.ts'],
    { REF_API_KEY: app.api_key, REF_SECRET: app.signing_secret, ADMIN_TOKEN },
    '/ready',
  );
  await load({ ...options(ref.url), duration: 2 });
  const instances: Record<string, unknown>[] = [];
  type Measured = Awaited<ReturnType<typeof load>> & Record<string, number>;
  let references: Measured[] = [];
  for (const workers of s.instances) {
    const gw = await startGatewayProcess(db.url, { WORKERS: String(workers) });
    await load({ ...options(gw.url), duration: 2 }); // warm caches and JIT
    const rounds: { gateway: Measured; reference: Measured; ratio: number }[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const gCpu = await cpuWindow(db.url, { gateway: gw.pid, load_generator: 'self' });
      const gLoad = await load(options(gw.url));
      const g = { ...gLoad, ...(await gCpu.end(gLoad.requests)) };
      const rCpu = await cpuWindow(db.url, { reference: ref.pid, load_generator: 'self' });
      const rLoad = await load(options(ref.url));
      const r = { ...rLoad, ...(await rCpu.end(rLoad.requests)) };
      rounds.push({ gateway: g, reference: r, ratio: ratio(g.rps, r.rps) });
      references.push(r);
    }
    const median = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(ROUNDS / 2)]!;
    instances.push({
      workers,
      ...median.gateway,
      peak_rss_mib: gw.peakRssMiB(),
      ratio_to_reference: median.ratio,
      reference_rps_same_round: median.reference.rps,
      reference_cpu_ms_per_op_same_round: median.reference.reference_cpu_ms_per_op,
      rounds: rounds.map((r) => ({
        gateway_rps: r.gateway.rps,
        reference_rps: r.reference.rps,
        ratio: r.ratio,
        gateway_cpu_ms_per_op: r.gateway.gateway_cpu_ms_per_op,
        reference_cpu_ms_per_op: r.reference.reference_cpu_ms_per_op,
      })),
    });
    await gw.stop();
  }
  references = references.sort((a, b) => a.rps - b.rps);
  out.reference = {
    ...references[Math.floor(references.length / 2)],
    peak_rss_mib: ref.peakRssMiB(),
  };
  await ref.stop();
  out.gateway = instances;
  out.method = `median of ${ROUNDS} alternating rounds of ${s.durationS} s each`;
  return out;
}
