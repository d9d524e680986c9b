/**
 * Provider faults on demand (docs/testing.md): a test-mode payment whose metadata names a
 * test_scenario makes the provider simulators misbehave the way real providers do. Outside
 * test mode the key is ordinary metadata and nothing here applies.
 */
import { apiError } from './errors.js';
import type { Mode, ProviderSlug } from './types.js';

export const TEST_SCENARIOS = [
  'duplicate_webhook',
  'delayed_webhook',
  'out_of_order',
  'lost_webhook',
  'registration_timeout',
  'registration_5xx',
  'refund_timeout',
  'refund_pending',
  'reconciliation_drift',
] as const;
export type TestScenario = (typeof TEST_SCENARIOS)[number];

export function isTestScenario(v: unknown): v is TestScenario {
  return typeof v === 'string' && (TEST_SCENARIOS as readonly string[]).includes(v);
}

/** The exact 400 body for an unknown value (docs/api.md#test-scenarios). */
export const UNKNOWN_TEST_SCENARIO = `metadata.test_scenario must be one of: ${TEST_SCENARIOS.join(', ')}`;

/** Which provider simulators play each scenario. */
export const SCENARIO_PROVIDERS: Record<TestScenario, readonly ProviderSlug[]> = {
  duplicate_webhook: ['idr_psp', 'card_psp', 'wallet_psp'],
  delayed_webhook: ['idr_psp', 'card_psp', 'wallet_psp'],
  out_of_order: ['idr_psp', 'card_psp', 'wallet_psp'],
  lost_webhook: ['idr_psp', 'card_psp', 'wallet_psp'],
  registration_timeout: ['idr_psp', 'card_psp', 'wallet_psp'],
  registration_5xx: ['idr_psp', 'card_psp', 'wallet_psp'],
  // card_psp has no refund API: its refunds are made at the provider.
  refund_timeout: ['idr_psp', 'wallet_psp'],
  refund_pending: ['idr_psp', 'wallet_psp'],
  // The providers' reports of the payment differ from what they notified (docs/testing.md).
  reconciliation_drift: ['idr_psp', 'card_psp', 'wallet_psp'],
};

/**
 * The scenario a new payment asks for: null outside test mode or when metadata names none.
 * In test mode an unknown value, or one the chosen provider's simulator does not play, is a
 * 400 that changes nothing.
 */
export function requestedTestScenario(
  mode: Mode,
  metadata: Record<string, unknown>,
  provider: ProviderSlug,
): TestScenario | null {
  if (mode !== 'test' || !Object.hasOwn(metadata, 'test_scenario')) return null;
  const value = metadata.test_scenario;
  if (!isTestScenario(value)) throw apiError('invalid', UNKNOWN_TEST_SCENARIO);
  const providers = SCENARIO_PROVIDERS[value];
  if (!providers.includes(provider)) {
    throw apiError(
      'invalid',
      `metadata.test_scenario ${value} is simulated for ${providers.join(', ')} payments only`,
    );
  }
  return value;
}

/**
 * The scenario an adapter passes to the provider, in the field the provider keeps merchant
 * data in: only in test mode, where the provider is the built-in simulator.
 */
export function testScenarioFor(
  mode: Mode,
  metadata: Record<string, unknown>,
): TestScenario | null {
  const value = metadata.test_scenario;
  return mode === 'test' && isTestScenario(value) ? value : null;
}
