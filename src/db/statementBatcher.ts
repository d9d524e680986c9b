/**
 * Runs concurrent single-row writes of one kind as one multi-row statement (issue 28).
 *
 * Under load most of what a short write costs PostgreSQL and the gateway is fixed per
 * statement and per commit (the round trip, parse/bind/execute, the commit record, the WAL
 * flush of a synchronous commit), not per row: eight payments inserted by one statement cost
 * PostgreSQL about a third of what eight statements do (docs/performance.md "Creates in
 * batches"). The items queued in one event-loop turn go together; while `maxInFlight`
 * statements are on their way, the next items wait for one to return and go together then,
 * or go anyway once they have waited `maxWaitMs` (a statement stuck on a dying connection
 * holds nothing back longer than that). Alone, an item goes at once, so a quiet gateway
 * waits for nothing.
 *
 * Every item is answered only after its statement returned: a batch commits as one
 * transaction, so nothing of it is acknowledged before all of it is written. When the
 * statement fails with an error of PostgreSQL's (an SQLSTATE: nothing of it was written),
 * each item is run again alone, so one bad item fails only its own request (not for an
 * error of resources, class 53: the same request alone would only add load); a connection
 * that failed or a server that went away fails every item of the batch with that error, as
 * their own statements would have (the batch may or may not have committed, as a lone
 * statement's outcome is unknown then: each caller handles that as before).
 */
import pg from 'pg';
import { isDatabaseUnavailable } from './connection.js';
import { FlushGate } from './flushGate.js';

export interface BatchStatement<In, Out> {
  /** Runs the items as one statement: one answer per item, in the items' order. */
  run(items: In[]): Promise<Out[]>;
  /**
   * Items with the same key never share a statement: what one of them writes decides what
   * the other's does. The later one goes in a later statement, which may run while the
   * first is still on its way: PostgreSQL's row locks then order the two, as they ordered two
   * requests' own statements.
   */
  key(item: In): string;
}

interface Waiting<In, Out> {
  item: In;
  resolve(out: Out): void;
  reject(err: unknown): void;
}

export class StatementBatcher<In, Out> {
  private queue: Waiting<In, Out>[] = [];
  private readonly gate: FlushGate;

  constructor(
    private readonly statement: BatchStatement<In, Out>,
    private readonly maxBatch = 64,
    maxInFlight = 2,
    maxWaitMs = 20,
  ) {
    this.gate = new FlushGate(
      () => this.flush(),
      () => this.queue.length > 0,
      maxInFlight,
      maxWaitMs,
    );
  }

  submit(item: In): Promise<Out> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.gate.schedule();
    });
  }

  private flush(): void {
    if (this.queue.length === 0) return;
    const batch: Waiting<In, Out>[] = [];
    const later: Waiting<In, Out>[] = [];
    const keys = new Set<string>();
    for (const w of this.queue) {
      const key = this.statement.key(w.item);
      if (batch.length >= this.maxBatch || keys.has(key)) later.push(w);
      else {
        keys.add(key);
        batch.push(w);
      }
    }
    this.queue = later;
    this.gate.sent();
    void this.runBatch(batch).finally(() => this.gate.returned());
    // Items left for a full batch go in the next statement at once if one more may be sent.
    if (later.length > 0) this.gate.schedule();
  }

  private async runBatch(batch: Waiting<In, Out>[]): Promise<void> {
    let outs: Out[];
    try {
      outs = await this.statement.run(batch.map((w) => w.item));
    } catch (err) {
      if (batch.length === 1 || !isStatementError(err)) {
        for (const w of batch) w.reject(err);
        return;
      }
      await Promise.all(batch.map((w) => this.runAlone(w)));
      return;
    }
    batch.forEach((w, i) => w.resolve(outs[i] as Out));
  }

  private async runAlone(w: Waiting<In, Out>): Promise<void> {
    try {
      const [out] = await this.statement.run([w.item]);
      w.resolve(out as Out);
    } catch (err) {
      w.reject(err);
    }
  }
}

/**
 * PostgreSQL refused the statement (it carries an SQLSTATE) and its transaction rolled back:
 * nothing of the batch was written, so its items can be run again alone.
 */
function isStatementError(err: unknown): boolean {
  return (
    err instanceof pg.DatabaseError &&
    !isDatabaseUnavailable(err) &&
    !(err.code ?? '').startsWith('53')
  );
}

/**
 * A batch statement answers per id: two items with one id would both be told what only one
 * of them did. The batchers' keys keep them apart; a direct caller that breaks it is a defect.
 */
export function assertDistinct(ids: string[]): void {
  if (new Set(ids).size !== ids.length) throw new Error('one id twice in a batch statement');
}

/**
 * A write of one kind, run through one StatementBatcher per pool (made on first use): on a
 * pool, the items that reach it together share a statement; on a client (a transaction of
 * the caller's, whose statements must stay in it), each item is a statement of its own.
 * `run(db, items)` answers one result per item, in order.
 */
export function batchedPerPool<Db extends object, In, Out>(
  run: (db: Db, items: In[]) => Promise<Out[]>,
  key: (item: In) => string,
): (db: Db, item: In) => Promise<Out> {
  const batchers = new WeakMap<Db, StatementBatcher<In, Out>>();
  return async (db, item) => {
    if (!(db instanceof pg.Pool)) return (await run(db, [item]))[0] as Out;
    let batcher = batchers.get(db);
    if (!batcher) {
      batcher = new StatementBatcher({ run: (items) => run(db, items), key });
      batchers.set(db, batcher);
    }
    return batcher.submit(item);
  };
}
