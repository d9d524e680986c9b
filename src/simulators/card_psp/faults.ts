import type { TestScenario } from '../../domain/testScenarios.js';
import { scenarioOf } from '../faults.js';
import type { SimCheckout } from './objects.js';

/** The test_scenario a checkout was created with (its metadata, as the adapter sent it). */
export function scenarioOfCheckout(c: SimCheckout): TestScenario | null {
  return scenarioOf(c.metadata.test_scenario);
}

/**
 * out_of_order's late event: the checkout as it was before the action's outcome (confirmed
 * while paying or declining, open before it lapsed). Null for actions without one.
 */
export function staleCheckout(action: string, c: SimCheckout, ttlMs: number): SimCheckout | null {
  if (!['pay', 'fail', 'cancel', 'expire'].includes(action)) return null;
  return {
    ...c,
    status: action === 'pay' || action === 'fail' ? 'confirmed' : 'open',
    expires_at: new Date(Date.parse(c.created_at) + ttlMs).toISOString(),
    failure_reason: null,
    order: null,
    subscription: null,
  };
}
