import { ADMIN_TOKEN, startGatewayProcess, startProcess, type BenchDatabase } from '../lib/env.js';
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

  const instances: Record<string, unknown>[] = [];
  for (const workers of s.instances) {
    const gw = await startGatewayProcess(db.url, { WORKERS: String(workers) });
    await load({ ...options(gw.url), duration: 2 }); // warm caches and JIT
    const result = await load(options(gw.url));
    instances.push({ workers, ...result, peak_rss_mib: gw.peakRssMiB() });
    await gw.stop();
  }

  const ref = await startProcess(
    ['bench/reference/get-server.ts'],
    { REF_API_KEY: app.api_key, REF_SECRET: app.signing_secret, ADMIN_TOKEN },
    '/ready',
  );
  await load({ ...options(ref.url), duration: 2 });
  const reference = await load(options(ref.url));
  out.reference = { ...reference, peak_rss_mib: ref.peakRssMiB() };
  await ref.stop();
  out.gateway = instances.map((g) => ({
    ...g,
    ratio_to_reference: ratio(g.rps as number, reference.rps),
  }));
  return out;
}
