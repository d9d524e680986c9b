/**
 * The card_psp driver (Polar-like, docs/providers/card_psp.md): the simulator's buyer
 * actions, events signed as the provider signs them, and the adapter and simulator pieces the
 * provider tests drive directly.
 */
import { simAct, simActRaw, type GatewayAnswer, type SimAnswer } from './sim.js';

export { cardPspTestSigner, postCardPspEvent } from '../cardPspNotify.js';
export { cardPsp } from '../../../src/providers/card_psp/index.js';
export { signCardPspEvent } from '../../../src/simulators/card_psp/index.js';

type Gw = { url: string };

/** pay, fail, cancel, expire, renew: 200 with the gateway's answer to the events sent. */
export const act = (gw: Gw, ref: string, action: string): Promise<GatewayAnswer> =>
  simAct(gw, 'card_psp', ref, action);

/** The same action, answered whatever its status (the page's buttons ask for HTML). */
export const actRaw = (gw: Gw, ref: string, action: string, accept?: string): Promise<SimAnswer> =>
  simActRaw(gw, 'card_psp', ref, action, accept);
