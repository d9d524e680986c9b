/**
 * What the plan tests read of `EXPLAIN (FORMAT JSON)`, the app their payments belong to, and
 * the batch statements' tests' database, finalizations and creates of that app.
 */
import { after, before } from 'node:test';
import { packEventBody } from '../../src/db/eventBody.js';
import type { FreshCreate } from '../../src/db/paymentCreation.js';
import type { DeliveryAttempt } from '../../src/db/deliveries.js';
import { enqueueEvent } from '../../src/db/outbox.js';
import type { Finalization } from '../../src/db/paymentFinalize.js';
import { createPool, type Pool, type Queryable } from '../../src/db/pool.js';
import { createTestDatabase } from './db.js';

export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

/** The sequential scans of `table` anywhere in a plan: one entry (the table's name) each. */
export function seqScans(node: PlanNode, table: string, out: string[] = []): string[] {
  if (node['Node Type'] === 'Seq Scan' && node['Relation Name'] === table) out.push(table);
  for (const child of node.Plans ?? []) seqScans(child, table, out);
  return out;
}

/** The app `app_plans` (test mode, idr_psp), which the plan tests' payments reference. */
export async function insertPlansApp(db: Queryable): Promise<void> {
  await db.query(
    `INSERT INTO apps (id, name, mode, api_key, signing_secret_enc, webhook_secret_enc,
       allowed_providers, allowed_methods)
     VALUES ('app_plans', 'plans', 'test', 'key_plans', 'x', 'x', '{idr_psp}', '{}')`,
  );
}

/** `n` events of `app_plans` enqueued, each with its delivery to the app's URL, bodies {"n":from..}. */
export async function enqueueDeliveries(db: Queryable, n: number, from = 0): Promise<void> {
  for (let i = 0; i < n; i += 40) {
    await Promise.all(
      Array.from({ length: Math.min(40, n - i) }, (_, j) =>
        enqueueEvent(db, {
          appId: 'app_plans',
          paymentId: null,
          eventType: 'payment.succeeded',
          body: `{"n":${from + i + j}}`,
        }),
      ),
    );
  }
}

/** A delivery's attempt `attempt` answered 204, as the worker records it. */
export function deliveredAttempt(deliveryId: string, attempt: number): DeliveryAttempt {
  return {
    deliveryId,
    verdict: 'delivered',
    statusCode: 204,
    error: null,
    responseBody: '',
    delayMs: 0,
    attempt,
    startedAt: new Date(),
    durationMs: 3,
  };
}

/**
 * A database of the test file's own with the app `app_plans` (and what `seed` writes),
 * created before its tests and dropped after: `.pool` and `.url` once the tests run. One
 * hook does it all: a test file's top-level hooks do not wait for one another.
 */
export function appPlansDatabase(
  poolSize: number,
  seed: (pool: Pool) => Promise<unknown> = async () => undefined,
): { pool: Pool; url: string } {
  const handle = {} as { pool: Pool; url: string };
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  before(async () => {
    db = await createTestDatabase();
    handle.url = db.url;
    handle.pool = createPool(db.url, poolSize);
    await insertPlansApp(handle.pool);
    await seed(handle.pool);
  });
  after(async () => {
    await handle.pool?.end();
    await db?.drop();
  });
  return handle;
}

/** A success for `paymentId` with the given event and delivery ids; `over` changes the rest. */
export function finalization(
  paymentId: string,
  eventId: string,
  deliveryId: string,
  over: Partial<Finalization> = {},
): Finalization {
  return {
    paymentId,
    outcome: 'succeeded',
    errorText: '',
    metadata: {},
    subscriptionId: null,
    at: new Date(),
    eventId,
    eventType: 'payment.succeeded',
    eventBody: packEventBody('payment.succeeded', '{}'),
    deliveryId,
    onlyIfUnregisteredUntil: null,
    mismatch: null,
    feeMinor: null,
    ...over,
  };
}

/** A fresh create of `app_plans` (test mode, idr_psp qris), its key claimed for it. */
export function freshCreate(
  id: string,
  user: string,
  key: string,
  over: {
    email?: string | null;
    invoicePrefix?: string | null;
    amountMinor?: number;
    metadata?: Record<string, unknown>;
    requestHash?: string;
  } = {},
): FreshCreate {
  return {
    payment: {
      id,
      app_id: 'app_plans',
      mode: 'test',
      amount_minor: over.amountMinor ?? 1000,
      currency: 'IDR',
      method: 'qris',
      provider: 'idr_psp',
      external_user_id: user,
      email: over.email ?? null,
      return_url: 'https://shop.example/return',
      metadata: over.metadata ?? {},
    },
    ctx: {
      invoicePrefix: over.invoicePrefix ?? null,
      registrationDeadline: new Date(Date.now() + 60_000),
    },
    claim: {
      scope: { appId: 'app_plans', endpoint: 'POST /v1/payments', key },
      requestHash: over.requestHash ?? 'h',
      leaseMs: 60_000,
    },
  };
}
