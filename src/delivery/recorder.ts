import { recordDeliveryAttempts, type DeliveryAttempt } from '../db/deliveries.js';
import type { Queryable } from '../db/pool.js';

interface Pending {
  attempt: DeliveryAttempt;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** Attempts taken out of the recorder's queue to be written by one statement. */
export interface AttemptBatch {
  readonly attempts: DeliveryAttempt[];
  readonly pending: readonly Pending[];
}

/**
 * Writes finished delivery attempts, several in one statement: one write is out at a time,
 * and the attempts that finish while it is out go together in the next (group commit). An
 * attempt alone is written at once, so an idle worker adds no delay. A delivery appears at
 * most once in a write. A failed write of several is written again one attempt at a time, so
 * one bad moment (a dropped connection, a deadlock with another instance's batch) does not
 * send a whole batch again; an attempt whose own write fails is rejected: its lease runs out
 * and it is attempted again (at least once, never lost).
 *
 * Folded (`fold`): the recorder writes nothing itself. A finished attempt is queued and
 * `wake` called; the delivery worker takes the queue (`take`) into its next claim, one
 * statement for both (db/deliveries.ts claimDueDeliveries), and reports how that went
 * (`written`, or `failed`: the batch is then written again one attempt at a time).
 * `unfold` goes back to writing alone (at shutdown, when no claim follows).
 */
export class AttemptRecorder {
  private queue: Pending[] = [];
  private writing = false;
  private wake: (() => void) | null = null;

  constructor(
    private readonly db: Queryable,
    private readonly maxBatch = 64,
  ) {}

  record(attempt: DeliveryAttempt): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ attempt, resolve, reject });
      if (this.wake) this.wake();
      else if (!this.writing) void this.drain();
    });
  }

  /** Attempts waiting to be written. */
  get queued(): number {
    return this.queue.length;
  }

  fold(wake: () => void): void {
    this.wake = wake;
  }

  /** Writes alone again, from what is queued now on. */
  unfold(): void {
    this.wake = null;
    if (!this.writing && this.queue.length > 0) void this.drain();
  }

  /** The next batch: up to maxBatch queued attempts in order, a delivery at most once. */
  take(): AttemptBatch {
    const pending: Pending[] = [];
    if (this.queue.length === 0 || this.writing) return { attempts: [], pending };
    const rest: Pending[] = [];
    const ids = new Set<string>();
    for (const p of this.queue) {
      if (pending.length < this.maxBatch && !ids.has(p.attempt.deliveryId)) {
        ids.add(p.attempt.deliveryId);
        pending.push(p);
      } else rest.push(p);
    }
    this.queue = rest;
    return { attempts: pending.map((p) => p.attempt), pending };
  }

  /** The batch's statement committed. */
  written(batch: AttemptBatch): void {
    for (const p of batch.pending) p.resolve();
  }

  /** The statement that carried the batch failed: its attempts are written one at a time. */
  async failed(batch: AttemptBatch): Promise<void> {
    this.writing = true;
    try {
      await this.writeOneByOne(batch.pending);
    } finally {
      this.writing = false;
    }
    if (!this.wake && this.queue.length > 0) void this.drain();
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0 && !this.wake) {
      const batch = this.take();
      this.writing = true;
      try {
        await recordDeliveryAttempts(this.db, batch.attempts);
        this.written(batch);
      } catch (err) {
        if (batch.pending.length === 1) batch.pending[0]?.reject(err);
        else await this.writeOneByOne(batch.pending);
      } finally {
        this.writing = false;
      }
    }
    // Folded again meanwhile: what is left goes with the next claim.
    if (this.wake && this.queue.length > 0) this.wake();
  }

  private async writeOneByOne(batch: readonly Pending[]): Promise<void> {
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
