import type { SimulatorHost } from '../host.js';
import { SimStore, type SimClock } from '../common.js';
import { idrPspServerKey } from '../credentials.js';
import { expectedAuthorization } from './wire.js';
import { expired, isChosen, isDue, type SimRef, type SimTransaction } from './transactions.js';

/** What every idr_psp module works with: the host, the clock, the key and the stores. */
export interface Sim {
  gw: SimulatorHost;
  clock: SimClock;
  serverKey: string;
  /** The Authorization header every request must carry, made once: each request compares it. */
  authorization: Buffer;
  transactions: SimStore<SimTransaction>;
  refs: SimStore<SimRef>;
}

export function simFor(gw: SimulatorHost, clock: SimClock): Sim {
  const serverKey = idrPspServerKey(gw.config.masterKey);
  return {
    gw,
    clock,
    serverKey,
    authorization: Buffer.from(expectedAuthorization(serverKey), 'utf8'),
    transactions: new SimStore<SimTransaction>(gw.pool, 'idr_psp', 'transaction'),
    refs: new SimStore<SimRef>(gw.pool, 'idr_psp', 'ref'),
  };
}

/** Where browsers (checkout pages, QR images) reach the simulator. */
export function publicBase(gw: SimulatorHost): string {
  return `${gw.urls.public}/sim/idr_psp`;
}

export async function byRef(sim: Sim, ref: string): Promise<SimTransaction | null> {
  const r = await sim.refs.get(ref);
  return r ? sim.transactions.get(r.order_id) : null;
}

/**
 * The transaction a Core API path names, by order_id or transaction_id. A Snap order whose
 * buyer has not chosen a channel is no transaction yet: the provider answers 404 for it.
 */
export async function coreTransaction(sim: Sim, id: string): Promise<SimTransaction | null> {
  let tx = await sim.transactions.get(id);
  if (!tx) {
    const byId = await byRef(sim, id);
    tx = byId && byId.transaction_id === id ? byId : null;
  }
  return tx && isChosen(tx) ? tx : null;
}

/** The status as the provider would report it now: a pending one past expiry has expired. */
export function current(tx: SimTransaction, now: number): SimTransaction {
  return isDue(tx, now) ? expired(tx) : tx;
}
