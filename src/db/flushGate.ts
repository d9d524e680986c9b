/**
 * When a batcher's queued items go (db/statementBatcher.ts, db/payments.ts PaymentReadBatcher):
 * in the next event-loop turn while fewer than `maxInFlight` statements are on their way;
 * otherwise when one of them returns, or once the items have waited `maxWaitMs` (a
 * statement stuck on a dying connection holds nothing back longer than that). The batcher
 * owns its queue: `flush` empties it, calling `sent` for every statement it starts and
 * `returned` when that statement comes back; `pending` says whether anything is queued.
 */
export class FlushGate {
  private scheduled = false;
  private inFlight = 0;
  /** Set while items wait for a statement to return: sends them anyway when it fires. */
  private overdue: NodeJS.Timeout | undefined;

  constructor(
    private readonly flush: () => void,
    private readonly pending: () => boolean,
    private readonly maxInFlight: number,
    private readonly maxWaitMs: number,
  ) {}

  /** Items were queued: their flush is arranged. */
  schedule(): void {
    if (this.scheduled) return;
    if (this.inFlight < this.maxInFlight) this.flushSoon();
    else
      this.overdue ??= setTimeout(() => {
        this.overdue = undefined;
        if (!this.scheduled && this.pending()) this.flushSoon();
      }, this.maxWaitMs).unref();
  }

  sent(): void {
    this.inFlight++;
  }

  /** A statement came back: the items queued meanwhile go next. */
  returned(): void {
    this.inFlight--;
    // Still as many on their way as allowed (items went after their wait): the waiting items
    // keep the deadline they have.
    if (this.inFlight >= this.maxInFlight) return;
    if (this.overdue !== undefined) {
      clearTimeout(this.overdue);
      this.overdue = undefined;
    }
    if (this.pending()) this.schedule();
  }

  private flushSoon(): void {
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }
}
