import { deliverToGateway, type ActionResult } from '../common.js';
import { faultsFor } from '../faults.js';
import { publicBase, type Sim } from './context.js';
import { pendingView, scenarioOfTransaction } from './faults.js';
import type { SimRefund, SimTransaction } from './transactions.js';
import { buildIdrNotification } from './wire.js';

/** Signs the transaction's notification and posts it to the gateway as the provider would. */
export async function notify(
  sim: Sim,
  tx: SimTransaction,
  failedRefund?: SimRefund,
): Promise<ActionResult> {
  const send = (t: SimTransaction, refund?: SimRefund) => () => {
    const body = buildIdrNotification(t, sim.serverKey, publicBase(sim.gw), refund);
    return deliverToGateway(sim.gw, 'idr_psp', {}, JSON.stringify(body));
  };
  // docs/testing.md: the payment's test_scenario decides how the notification goes out.
  const earlier = failedRefund ? null : pendingView(tx);
  return faultsFor(sim.gw).deliver(
    scenarioOfTransaction(tx),
    send(tx, failedRefund),
    earlier ? send(earlier) : undefined,
  );
}
