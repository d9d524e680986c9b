/**
 * What every provider driver shares: the simulator's buyer actions
 * (`POST /sim/<provider>/payments/<ref>/<action>`, docs/testing.md) and the test-mode
 * endpoint configuration the gateway and its simulators agree on.
 */
import assert from 'node:assert/strict';

export { simulatorEndpoint } from '../../../src/providers/testMode.js';
// The adapter port and the simulators' shared pieces, for the tests that drive an adapter
// against its simulator without the HTTP layer in between.
export {
  ProviderError,
  type ProviderContext,
  type RefundInput,
  type RegisterPaymentInput,
} from '../../../src/providers/types.js';
export { SimStore, SimClock } from '../../../src/simulators/common.js';
export { FAULT_DELAY_MS } from '../../../src/simulators/faults.js';

export type ProviderSlug = 'idr_psp' | 'card_psp' | 'wallet_psp';

/** The gateway's answer to the notification a simulator action sent, as the action reports it. */
export interface GatewayAnswer {
  gateway_status: number;
  gateway_body: string;
}

/** A simulator action's own answer, whatever its status: for tests of the action itself. */
export interface SimAnswer {
  status: number;
  type: string;
  text: string;
}

interface HasUrl {
  url: string;
}

function actionUrl(gw: HasUrl, provider: ProviderSlug, ref: string, action: string) {
  return `${gw.url}/sim/${provider}/payments/${ref}/${action}`;
}

/** A buyer action as a script calls it: 200, and what the gateway answered the notification. */
export async function simAct(
  gw: HasUrl,
  provider: ProviderSlug,
  ref: string,
  action: string,
  query = '',
): Promise<GatewayAnswer> {
  const res = await fetch(`${actionUrl(gw, provider, ref, action)}${query}`, { method: 'POST' });
  const text = await res.text();
  assert.equal(res.status, 200, `sim ${action}: ${res.status} ${text}`);
  return JSON.parse(text) as GatewayAnswer;
}

/** A buyer action with the given Accept (the checkout page's buttons send text/html). */
export async function simActRaw(
  gw: HasUrl,
  provider: ProviderSlug,
  ref: string,
  action: string,
  accept = 'application/json',
): Promise<SimAnswer> {
  const res = await fetch(actionUrl(gw, provider, ref, action), {
    method: 'POST',
    headers: { accept },
  });
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    text: await res.text(),
  };
}
