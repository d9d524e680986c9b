import { recordDeliveryAttempts, type DeliveryAttempt } from '../db/deliveries.js';
import type { Queryable } from '../db/pool.js';

interface Pending {
  attempt: DeliveryAttempt;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Writes finished delivery attempts, several in one statement: one write is out at a time,
 * and the attempts that finish while it is out go together in the next (group commit). An
 * attempt alone is written at once, so an idle worker adds no delay. A delivery appears at
 * most once in a write. A failed write of several is written again one attempt at a time, so
 * one bad moment (a dropped connection, a deadlock with another instance's batch) does not
 * send a whole batch again; an attempt whose own write fails is rejected: its lease runs out
 * and it is attempted again (at least once, never lost).
 */
export class AttemptRecorder {
  private queue: Pending[] = [];
  private writing = false;

  constructor(
    private readonly db: Queryable,
    private readonly maxBatch = 64,
  ) {}

  record(attempt: DeliveryAttempt): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ attempt, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.queue.length > 0) {
      const batch: Pending[] = [];
      const rest: Pending[] = [];
      const ids = new Set<string>();
      for (const p of this.queue) {
        if (batch.length < this.maxBatch && !ids.has(p.attempt.deliveryId)) {
          ids.add(p.attempt.deliveryId);
          batch.push(p);
        } else rest.push(p);
      }
      this.queue = rest;
      try {
        await recordDeliveryAttempts(
          this.db,
          batch.map((p) => p.attempt),
        );
        for (const p of batch) p.resolve();
      } catch (err) {
        if (batch.length === 1) batch[0]?.reject(err);
        else await this.writeOneByOne(batch);
      }
    }
    this.writing = false;
  }

  private async writeOneByOne(batch: Pending[]): Promise<void> {
    for (const p of batch) {
      try {
        await recordDeliveryAttempts(this.db, [p.attempt]);
        p.resolve();
      } catch (err) {
        p.reject(err);
      }
    }
  }
}
