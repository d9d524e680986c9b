import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { freePort } from '../../../scripts/net.js';
import { createTestDatabase } from '../../helpers/db.js';
import { eventually } from '../../helpers/eventually.js';
import { kill, spawnSimulators, type GatewayProcess } from '../../helpers/process.js';

// docs/operations.md#retention: the simulators as their own process, on a database of their
// own, purge their objects neither created nor changed within SIM_OBJECTS_RETENTION_DAYS,
// at start (then every 10 minutes); a recently changed or young object stays.

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let client: pg.Client;
let simulators: GatewayProcess | undefined;

before(async () => {
  db = await createTestDatabase();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});

after(async () => {
  if (simulators) await kill(simulators, 'SIGTERM');
  await client?.end();
  await db?.drop();
});

async function ids(): Promise<string[]> {
  const res = await client.query<{ id: string }>(
    `SELECT id FROM paygate_sim.sim_objects ORDER BY id`,
  );
  return res.rows.map((r) => r.id);
}

test('the simulators process purges its old objects at start and keeps the rest', async () => {
  // Ages in days: [created, last changed].
  const objects: [string, number, number][] = [
    ['old-1', 45, 45],
    ['old-2', 31, 31],
    ['changed-lately', 60, 3],
    ['inside', 29, 29],
    ['young', 0, 0],
  ];
  for (const [id, created, changed] of objects) {
    await client.query(
      `INSERT INTO paygate_sim.sim_objects (provider, kind, id, data, created_at, updated_at)
       VALUES ('idr_psp', 'transaction', $1, '{}', now() - $2 * interval '1 day',
         now() - $3 * interval '1 day')`,
      [id, created, changed],
    );
  }
  const port = await freePort();
  simulators = await spawnSimulators(
    {
      DATABASE_URL: db.url,
      MASTER_KEY: randomBytes(32).toString('hex'),
      // Never called here: no payment is made.
      GATEWAY_URL: 'http://127.0.0.1:9',
      SIM_OBJECTS_RETENTION_DAYS: '30',
    },
    port,
  );
  await eventually(async () => ((await ids()).includes('old-1') ? undefined : true), 'purge');
  assert.deepEqual(await ids(), ['changed-lately', 'inside', 'young']);
});
