import { purgeExpired } from './db/idempotency.js';
import { purgeRejectedInbound } from './db/inbound.js';
import { analyzeGrownTables } from './db/planGuard.js';
import {
  defaultPartitionRows,
  ensureMonthPartitions,
  type PartitionRound,
} from './db/partitions.js';
import {
  purgeEndedSessions,
  purgeOldDeliveryAttempts,
  purgeOldInbound,
  purgeOldTransmissions,
} from './db/retention.js';
import { TRANSMISSION_MEMORY_DAYS } from './services/inbound.js';
import { DeliveryWorker } from './delivery/worker.js';
import { reconciliationDeps, serviceDeps, type Gateway } from './gateway.js';
import { reconcileDue } from './services/reconciler.js';
import { dailyReconciliation } from './services/reconciliationDaily.js';
import { retryUnansweredRefunds } from './services/refunds/retry.js';
import { disableFailingEndpoints } from './services/endpointHealth.js';

export interface Workers {
  stop(): Promise<void>;
}

const PURGE_EVERY_MS = 10 * 60_000;
const RECONCILE_EVERY_MS = 10_000;
const ENDPOINT_CHECK_EVERY_MS = 60_000;
const DAILY_RECONCILIATION_EVERY_MS = 5 * 60_000;
/** How often the months ahead of the partitioned history are checked (db/partitions.ts). */
const PARTITIONS_EVERY_MS = 60 * 60_000;
/** How often the hot tables' sizes are compared with their statistics (db/planGuard.ts). */
const PLAN_GUARD_EVERY_MS = 2_000;

/**
 * The retention job (docs/operations.md#retention): every purge runs in batches until it
 * finds nothing more, or the process starts draining. Returns the rows deleted per table.
 */
export async function purgeHistory(
  gw: Gateway,
  purgeSimObjects?: (retentionDays: number) => Promise<number>,
): Promise<Record<string, number>> {
  const r = gw.config.retention;
  const purges: [string, () => Promise<number>][] = [
    ['idempotency_keys', () => purgeExpired(gw.pool)],
    [
      'inbound_events (bad signature)',
      () => purgeRejectedInbound(gw.pool, gw.config.webhooks.rejectedRetentionDays),
    ],
    ['inbound_events', () => purgeOldInbound(gw.pool, r.inboundDays)],
    ['delivery_attempts', () => purgeOldDeliveryAttempts(gw.pool, r.deliveryAttemptsDays)],
    ['provider_transmissions', () => purgeOldTransmissions(gw.pool, TRANSMISSION_MEMORY_DAYS)],
    ['operator_sessions', () => purgeEndedSessions(gw.pool)],
  ];
  // The simulators' objects, when they are mounted here (their own process purges its own).
  if (purgeSimObjects) purges.push(['simulator objects', () => purgeSimObjects(r.simObjectsDays)]);
  const deleted: Record<string, number> = {};
  for (const [table, purge] of purges) {
    deleted[table] = 0;
    for (;;) {
      const n = await purge();
      deleted[table] += n;
      if (n === 0 || gw.phase === 'draining') break;
    }
  }
  const total = Object.values(deleted).reduce((a, b) => a + b, 0);
  if (total > 0) gw.log.info({ deleted }, 'retention: old history deleted');
  return deleted;
}

/**
 * The partition job (docs/operations.md#archiving-old-months): this month's and the next
 * months' partitions of the append-only history, and a warning when rows went to a DEFAULT
 * partition (the job did not run for months), since such rows hold back that month's
 * partition until an operator moves them.
 */
export async function maintainPartitions(gw: Gateway): Promise<PartitionRound> {
  const { created, failed } = await ensureMonthPartitions(gw.pool);
  if (created.length > 0) gw.log.info({ created }, 'partitions: months ahead created');
  if (failed.length > 0) gw.log.warn({ failed }, 'partitions: not created, tried again next hour');
  const strays = Object.entries(await defaultPartitionRows(gw.pool)).filter(([, n]) => n > 0);
  if (strays.length > 0) {
    gw.log.warn(
      { rows: Object.fromEntries(strays) },
      'partitions: rows in a DEFAULT partition; move them to their month (docs/operations.md#archiving-old-months)',
    );
  }
  return { created, failed };
}

/** Background loops every instance runs; each is safe to run on many instances at once. */
export async function startWorkers(
  gw: Gateway,
  purgeSimObjects?: (retentionDays: number) => Promise<number>,
): Promise<Workers> {
  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number, name: string, fn: () => Promise<unknown>) => {
    let busy = false;
    timers.push(
      setInterval(() => {
        if (busy || gw.phase === 'draining') return;
        busy = true;
        fn()
          .catch((err: unknown) => gw.log.warn({ err }, `${name} failed`))
          .finally(() => (busy = false));
      }, ms).unref(),
    );
  };
  every(PURGE_EVERY_MS, 'retention', () => purgeHistory(gw, purgeSimObjects));
  every(PARTITIONS_EVERY_MS, 'partitions', () => maintainPartitions(gw));
  // Once at start too (the migration made three months ahead; a gateway stopped for longer
  // catches up here). stop() waits for it, so it never runs into a closed pool.
  const firstPartitions = maintainPartitions(gw).catch((err: unknown) =>
    gw.log.warn({ err }, 'partitions failed'),
  );
  every(PLAN_GUARD_EVERY_MS, 'plan guard', async () => {
    const { analysed, refused } = await analyzeGrownTables(gw.pool);
    if (analysed.length > 0) gw.log.info({ tables: analysed }, 'plan guard: grown tables analysed');
    if (refused.length > 0) {
      gw.log.warn(
        { tables: refused },
        'plan guard: ANALYZE skipped these tables (the database role does not own them); run ANALYZE as their owner after large growth',
      );
    }
  });
  every(RECONCILE_EVERY_MS, 'reconciler', () => reconcileDue(gw));
  every(RECONCILE_EVERY_MS, 'refund retry', () => retryUnansweredRefunds(serviceDeps(gw)));
  every(ENDPOINT_CHECK_EVERY_MS, 'endpoint auto-disable', () =>
    disableFailingEndpoints(gw.pool, gw.config.endpoints.disableAfterDays, gw.log),
  );
  if (gw.config.reconciliation.daily) {
    every(DAILY_RECONCILIATION_EVERY_MS, 'daily reconciliation', () =>
      dailyReconciliation(reconciliationDeps(gw), gw.config.reconciliation.dailyHourUtc),
    );
  }
  const delivery = new DeliveryWorker(gw);
  delivery.start();
  return {
    async stop() {
      for (const t of timers) clearInterval(t);
      await firstPartitions;
      await delivery.stop();
    },
  };
}
