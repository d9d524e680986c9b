/**
 * What operator credentials cost an admin request (issue 26): GET /admin/me with ADMIN_TOKEN
 * (one settings read: is the token on?) against a personal token (one UPDATE ... RETURNING of
 * the token's row, so a revocation holds at once everywhere). Measured in alternating rounds
 * on one gateway process; the figure is the token/root throughput ratio of the median round.
 * npm run bench -- operators
 */
import { ADMIN_TOKEN, startGatewayProcess, type BenchDatabase } from './lib/env.js';
import { load, ratio, type LoadOptions } from './lib/load.js';
import type { BenchSettings } from './run.js';

async function adminCall(url: string, method: string, path: string, body: unknown) {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, string>;
}

export async function benchOperatorAuth(db: BenchDatabase, s: BenchSettings) {
  const gw = await startGatewayProcess(db.url);
  try {
    const op = await adminCall(gw.url, 'POST', '/admin/operators', {
      email: 'bench@example.com',
      name: 'Bench',
      role: 'viewer',
    });
    const tok = await adminCall(gw.url, 'POST', `/admin/operators/${op.id}/tokens`, {
      name: 'bench',
      expires_in_days: 1,
    });
    const options = (token: string): LoadOptions => ({
      url: gw.url,
      connections: s.connections,
      duration: s.durationS,
      requests: [
        { method: 'GET', path: '/admin/me', headers: { authorization: `Bearer ${token}` } },
      ],
    });
    await load({ ...options(ADMIN_TOKEN), duration: 2 });
    await load({ ...options(tok.token as string), duration: 2 });
    const rounds = [];
    for (let i = 0; i < 3; i++) {
      const root = await load(options(ADMIN_TOKEN));
      const token = await load(options(tok.token as string));
      rounds.push({ root, token, ratio: ratio(token.rps, root.rps) });
    }
    const median = [...rounds].sort((a, b) => a.ratio - b.ratio)[1]!;
    return {
      connections: s.connections,
      duration_s: s.durationS,
      token_to_root_ratio: median.ratio,
      root: median.root,
      token: median.token,
      rounds: rounds.map((r) => ({ root_rps: r.root.rps, token_rps: r.token.rps, ratio: r.ratio })),
    };
  } finally {
    await gw.stop();
  }
}
