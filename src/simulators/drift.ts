/**
 * test_scenario reconciliation_drift (docs/testing.md): the provider's report of a payment
 * differs from what it told the gateway, in three ways at once. The payment's charge is
 * reported DRIFT_AMOUNT_MINOR higher (amount_mismatch); a charge the gateway never heard of
 * (its own reference, naming no payment of the gateway) is reported beside it
 * (missing_in_gateway); the payment's refunds are left out (missing_at_provider). The
 * simulator's records stay true: only its reports drift.
 */
import { createHash } from 'node:crypto';
import type { TestScenario } from '../domain/testScenarios.js';

export const DRIFT_AMOUNT_MINOR = 100;

export function drifts(scenario: TestScenario | null): boolean {
  return scenario === 'reconciliation_drift';
}

/** A stable reference for the unknown charge of a drifting payment, from the payment's own. */
export function driftRef(
  seed: string,
  length: number,
  alphabet = '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ',
): string {
  const h = createHash('sha256').update(`drift:${seed}`).digest();
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[(h[i] as number) % alphabet.length];
  return out;
}
