import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  MAX_PROBE_STEPS,
  nextProbeRate,
  probeMaximum,
  type ProbeOutcome,
} from '../../bench/lib/probe.js';

// The soak's probe (bench/soak.ts, docs/performance.md "The soak's rate and its goal
// checks"): the rates it offers against a mix that sustains `capacity` creates/s, and the
// maximum it reports.

/** The probe run against a machine whose mix holds up to `capacity`, reaching `reach` when saturated. */
function probe(ceiling: number, capacity: number, reach = capacity): ProbeOutcome[] {
  const steps: ProbeOutcome[] = [];
  for (let r = nextProbeRate(ceiling, steps); r !== null; r = nextProbeRate(ceiling, steps)) {
    steps.push({ offered: r, held: r <= capacity, mix: Math.min(r, reach) });
  }
  return steps;
}

test('a first step that falls short: the probe halves until a step holds, then bisects up', () => {
  // The fourth pass's soak: 845 creates/s alone, the first step (169) fell short at 145.
  const steps = probe(845, 100, 145);
  assert.deepEqual(
    steps.map((s) => [s.offered, s.held]),
    [
      [169, false],
      [84, true],
      [127, false],
      [106, false],
      [95, true],
      [101, false],
    ],
  );
  // The maximum is what a step that held sustained, within 10 % of the real one, never the
  // 145 a saturated step reached (the lower bound the old probe reported as the maximum).
  assert.deepEqual(probeMaximum(steps), { mix: 95, held: true });
});

test('a first step far too high: several halvings', () => {
  const steps = probe(845, 30);
  assert.deepEqual(
    steps.map((s) => s.offered),
    [169, 84, 42, 21, 32, 27, 30],
  );
  assert.deepEqual(probeMaximum(steps), { mix: 30, held: true });
});

test('every step holds: 25 % more each step until the ceiling, as before', () => {
  const steps = probe(100, 1000);
  assert.deepEqual(
    steps.map((s) => s.offered),
    [20, 25, 31, 39, 49, 61, 76, 95, 119],
  );
  assert.deepEqual(probeMaximum(steps), { mix: 119, held: true });
});

test('a later step falls short: the probe bisects between it and the last that held', () => {
  const steps = probe(845, 300);
  assert.deepEqual(
    steps.map((s) => [s.offered, s.held]),
    [
      [169, true],
      [211, true],
      [264, true],
      [330, false],
      [297, true],
      [314, false],
    ],
  );
  assert.deepEqual(probeMaximum(steps), { mix: 297, held: true });
});

test('nothing holds, down to 1/s: the probe stops and says its maximum did not hold', () => {
  const steps = probe(845, 0, 0.5);
  assert.deepEqual(
    steps.map((s) => s.offered),
    [169, 84, 42, 21, 10, 5, 2, 1],
  );
  assert.deepEqual(probeMaximum(steps), { mix: 0.5, held: false });
});

test('the probe ends after MAX_PROBE_STEPS steps whatever they find', () => {
  // A noisy machine: alternate steps hold regardless of the rate.
  const steps: ProbeOutcome[] = [];
  for (let r = nextProbeRate(10_000, steps); r !== null; r = nextProbeRate(10_000, steps)) {
    steps.push({ offered: r, held: steps.length % 2 === 1, mix: r });
  }
  assert.ok(steps.length <= MAX_PROBE_STEPS);
});

test('BENCH_SOAK_PROBE_FROM: the first step offers that rate instead of a fifth of the ceiling', () => {
  assert.equal(nextProbeRate(845, [], 845), 845);
  assert.equal(nextProbeRate(845, [{ offered: 845, held: false, mix: 200 }], 845), 422);
});
