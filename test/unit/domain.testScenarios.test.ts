import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ApiError } from '../../src/domain/errors.js';
import {
  requestedTestScenario,
  SCENARIO_PROVIDERS,
  TEST_SCENARIOS,
  testScenarioFor,
  UNKNOWN_TEST_SCENARIO,
} from '../../src/domain/testScenarios.js';

test('requestedTestScenario: test mode names a known scenario or is refused', () => {
  for (const s of TEST_SCENARIOS) {
    assert.equal(requestedTestScenario('test', { test_scenario: s }, 'idr_psp'), s);
  }
  assert.equal(requestedTestScenario('test', { other: 1 }, 'idr_psp'), null);
  for (const bad of ['nope', null, 7, ['lost_webhook'], { s: 'lost_webhook' }]) {
    assert.throws(
      () => requestedTestScenario('test', { test_scenario: bad }, 'idr_psp'),
      (e: unknown) => e instanceof ApiError && e.status === 400 && e.body === UNKNOWN_TEST_SCENARIO,
    );
  }
  assert.throws(
    () => requestedTestScenario('test', { test_scenario: 'refund_timeout' }, 'card_psp'),
    (e: unknown) =>
      e instanceof ApiError &&
      e.body ===
        'metadata.test_scenario refund_timeout is simulated for idr_psp, wallet_psp payments only',
  );
  assert.throws(
    () => requestedTestScenario('test', { test_scenario: 'refund_pending' }, 'card_psp'),
    (e: unknown) =>
      e instanceof ApiError &&
      e.body ===
        'metadata.test_scenario refund_pending is simulated for idr_psp, wallet_psp payments only',
  );
  for (const provider of ['card_psp', 'wallet_psp'] as const) {
    assert.equal(
      requestedTestScenario('test', { test_scenario: 'lost_webhook' }, provider),
      'lost_webhook',
    );
  }
});

test('outside test mode test_scenario is ordinary metadata and never reaches a provider', () => {
  for (const mode of ['sandbox', 'live'] as const) {
    assert.equal(requestedTestScenario(mode, { test_scenario: 'nope' }, 'idr_psp'), null);
    assert.equal(testScenarioFor(mode, { test_scenario: 'lost_webhook' }), null);
  }
  assert.equal(testScenarioFor('test', { test_scenario: 'lost_webhook' }), 'lost_webhook');
  assert.equal(testScenarioFor('test', { test_scenario: 'nope' }), null);
});

test("docs/api.md's error table and docs/testing.md name the providers the gateway simulates each scenario for", () => {
  const api = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  const testing = readFileSync(new URL('../../docs/testing.md', import.meta.url), 'utf8');
  const errors = api.slice(api.indexOf('\n## Errors\n'));
  const refused = new Set<string>();
  for (const scenario of TEST_SCENARIOS) {
    const players = SCENARIO_PROVIDERS[scenario];
    const other = (['idr_psp', 'card_psp', 'wallet_psp'] as const).find(
      (p) => !players.includes(p),
    );
    if (!other) continue;
    try {
      requestedTestScenario('test', { test_scenario: scenario }, other);
    } catch (e) {
      if (e instanceof ApiError) refused.add(e.body);
    }
  }
  assert.ok(refused.size > 0);
  for (const body of refused) {
    const generic = body.replace(/ \S+ is simulated/, ' <name> is simulated');
    assert.ok(errors.includes(`\`${generic}\``), `docs/api.md#errors lacks ${generic}`);
  }
  assert.ok([...refused].some((b) => testing.includes(b)));
  // No table or text claims a narrower list than the gateway's.
  assert.ok(!api.includes('is simulated for idr_psp payments only'));
  assert.ok(!testing.includes('is simulated for idr_psp payments only'));
});
