/**
 * Marks a test-mode payment that asked the provider simulator for a fault
 * (metadata.test_scenario, docs/testing.md), so an operator does not chase a duplicate or
 * lost webhook that was requested on purpose.
 */
export function ScenarioBadge({ value }: { value: unknown }) {
  if (typeof value !== 'string' || value === '') return null;
  return (
    <span class="badge badge-scenario" data-test-scenario={value} title="Test scenario">
      test scenario: {value}
    </span>
  );
}
