import type { SimulatorHost } from '../host.js';
import { deliverToGateway, type ActionResult } from '../common.js';
import { faultsFor } from '../faults.js';
import type { WpCapture, WpOrder, WpResourceType } from './wire.js';
import { pendingCapture, scenarioOfOrder } from './faults.js';
import type { WalletPspSim } from './sim.js';

export interface WalletEvents {
  /** Signs one event and posts it to the gateway; the gateway's answer. */
  deliver(
    eventType: string,
    resourceType: WpResourceType,
    resource: unknown,
    summary: string,
  ): Promise<ActionResult>;
  /** The capture's event (COMPLETED or DENIED) as the order's test_scenario has it go out. */
  deliverCapture(order: WpOrder, capture: WpCapture): Promise<ActionResult>;
}

export function walletEvents(gw: SimulatorHost, sim: WalletPspSim): WalletEvents {
  async function deliver(
    eventType: string,
    resourceType: WpResourceType,
    resource: unknown,
    summary: string,
  ): Promise<ActionResult> {
    const { headers, body } = await sim.signedEvent(eventType, resourceType, resource, summary);
    return deliverToGateway(gw, 'wallet_psp', headers, body);
  }

  function deliverCapture(order: WpOrder, capture: WpCapture): Promise<ActionResult> {
    const amount = `${capture.amount.value} ${capture.amount.currency_code}`;
    const resource: WpCapture = {
      ...capture,
      links: [
        { href: `${sim.apiBase()}/v2/checkout/orders/${order.id}`, rel: 'up', method: 'GET' },
      ],
    };
    const send = () =>
      capture.status === 'COMPLETED'
        ? deliver(
            'PAYMENT.CAPTURE.COMPLETED',
            'capture',
            resource,
            `Payment completed for ${amount}`,
          )
        : deliver('PAYMENT.CAPTURE.DENIED', 'capture', resource, `Payment denied for ${amount}`);
    // docs/testing.md: the order's test_scenario decides how the capture event goes out.
    const stale = () =>
      deliver(
        'PAYMENT.CAPTURE.PENDING',
        'capture',
        pendingCapture(resource),
        `Payment pending for ${amount}`,
      );
    return faultsFor(gw).deliver(scenarioOfOrder(order), send, stale);
  }
  return { deliver, deliverCapture };
}
