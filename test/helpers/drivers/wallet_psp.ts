/**
 * The wallet_psp driver (PayPal-like, docs/providers/wallet_psp.md): the simulator's buyer
 * actions, and the adapter, simulator and wire shapes the provider tests drive directly.
 */
import { simAct, simActRaw, type GatewayAnswer, type SimAnswer } from './sim.js';

export { paypalClient, paypalSchemas, PAYPAL_SDK_SANDBOX } from '../paypalSdk.js';
export { walletPsp } from '../../../src/providers/wallet_psp/index.js';
export { clearTokenCache } from '../../../src/providers/wallet_psp/client.js';
export {
  clearCertCache,
  resetFallbackAllowance,
} from '../../../src/providers/wallet_psp/webhook.js';
export type { WpDispute } from '../../../src/providers/wallet_psp/disputeWire.js';
export type { WpCapture } from '../../../src/providers/wallet_psp/wire.js';
export { walletPspSim, type WalletPspSim } from '../../../src/simulators/wallet_psp/index.js';
export {
  loadSigningKey,
  type SigningKeyRecord,
} from '../../../src/simulators/wallet_psp/signing.js';
export { WP_MAX_RESULT_SET } from '../../../src/simulators/wallet_psp/reporting.js';
export {
  REFUND_REFUSAL,
  REFUND_WINDOW_MS,
  type SimCaptureRefunds,
} from '../../../src/simulators/wallet_psp/refunds.js';
export { selfSignedCertificate } from '../../../src/simulators/wallet_psp/x509.js';

type Gw = { url: string };

/** pay, fail, cancel, expire, reverse, dispute…: 200 with the gateway's answer. */
export const act = (gw: Gw, ref: string, action: string): Promise<GatewayAnswer> =>
  simAct(gw, 'wallet_psp', ref, action);

/** The same action, answered whatever its status (the approval page asks for HTML). */
export const actRaw = (gw: Gw, ref: string, action: string, accept?: string): Promise<SimAnswer> =>
  simActRaw(gw, 'wallet_psp', ref, action, accept);
