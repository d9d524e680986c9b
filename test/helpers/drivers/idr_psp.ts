/**
 * The idr_psp driver (Midtrans-like, docs/providers/idr_psp.md): the simulator's buyer
 * actions, notifications signed independently of the gateway, refunds made at the provider,
 * the provider's own client library, and the adapter and simulator pieces the provider tests
 * drive directly.
 */
import { simAct, simActRaw, type GatewayAnswer, type SimAnswer } from './sim.js';

export { idrNotification, idrTestServerKey, postWebhook } from '../idrNotify.js';
export { idrProviderRefund } from '../payments.js';
export { midtransClients, midtransError, assertTransactionFields } from '../midtrans.js';
export { idrPsp } from '../../../src/providers/idr_psp/index.js';
export { basicAuth } from '../../../src/providers/idr_psp/wire.js';
export { crc16 } from '../../../src/simulators/idr_psp/qris.js';
export { applyAction, type SimTransaction } from '../../../src/simulators/idr_psp/transactions.js';
export {
  buildIdrNotification,
  expireDueIdrTransactions,
} from '../../../src/simulators/idr_psp/index.js';

type Gw = { url: string };

/** pay, fail, cancel, expire, refund_succeed…: 200 with the gateway's answer. */
export const act = (gw: Gw, ref: string, action: string): Promise<GatewayAnswer> =>
  simAct(gw, 'idr_psp', ref, action);

/** The same action, answered whatever its status. */
export const actRaw = (gw: Gw, ref: string, action: string, accept?: string): Promise<SimAnswer> =>
  simActRaw(gw, 'idr_psp', ref, action, accept);
