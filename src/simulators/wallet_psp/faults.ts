import type { TestScenario } from '../../domain/testScenarios.js';
import type { WpCapture, WpOrder } from './wire.js';
import { scenarioOf } from '../faults.js';

/** The test_scenario an order was created with (its purchase unit's description). */
export function scenarioOfOrder(order: WpOrder): TestScenario | null {
  return scenarioOf(order.purchase_units[0]?.description);
}

/** out_of_order's late event for a settled capture: the capture as it was while held. */
export function pendingCapture(capture: WpCapture): WpCapture {
  return { ...capture, status: 'PENDING', status_details: { reason: 'PENDING_REVIEW' } };
}
