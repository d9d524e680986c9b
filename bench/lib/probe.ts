/**
 * The soak's probe schedule (bench/soak.ts): which rate of the whole mix to offer next, from
 * the steps measured so far, and the maximum they establish.
 *
 * - The first step offers a fifth of the ceiling (creates alone).
 * - While no step has held, the next offers half of the lowest rate that fell short: a first
 *   step that already falls short says only that the maximum is lower, so the probe steps
 *   down until a step holds (or 1/s falls short).
 * - While every step has held, the next offers 25 % more, up to the ceiling.
 * - Once a held rate and a higher rate that fell short bracket the maximum, the next offers
 *   their middle, until they are less than 10 % (at least 1/s) apart.
 *
 * The maximum is the best mix rate among the steps that held: a rate the mix sustained, not
 * the rate a saturated step reached on its way down.
 */

export interface ProbeOutcome {
  /** The creates per second the step offered (its GETs: five times that). */
  offered: number;
  /** The step got (nearly) all it offered and the payers kept up. */
  held: boolean;
  /** What the step sustained of the whole mix: min(creates, GETs / 5) per second. */
  mix: number;
}

/** The probe stops after this many steps whatever they found (10 s each). */
export const MAX_PROBE_STEPS = 16;
/** The first step: this fraction of the ceiling. */
const FIRST_SHARE = 1 / 5;
/** While every step holds: the next offers this much more. */
const STEP_UP = 1.25;
/** Bracketed: the probe stops when the bracket is narrower than this share of the held rate. */
const RESOLUTION = 0.1;

/**
 * The rate the next step offers, or null when the probe is done; `first` replaces the first
 * step's fifth of the ceiling (BENCH_SOAK_PROBE_FROM).
 */
export function nextProbeRate(
  ceiling: number,
  steps: readonly ProbeOutcome[],
  first?: number,
): number | null {
  if (steps.length === 0) return Math.max(1, Math.round(first ?? ceiling * FIRST_SHARE));
  if (steps.length >= MAX_PROBE_STEPS) return null;
  const held = steps.filter((s) => s.held).map((s) => s.offered);
  const short = steps.filter((s) => !s.held).map((s) => s.offered);
  const lo = held.length > 0 ? Math.max(...held) : null;
  const hi = short.length > 0 ? Math.min(...short) : null;
  if (lo === null) {
    // Nothing held yet: step down.
    if (hi === null || hi <= 1) return null;
    return Math.max(1, Math.floor(hi / 2));
  }
  if (hi === null) {
    // Everything held: step up, as far as the ceiling.
    if (lo >= ceiling) return null;
    return Math.max(lo + 1, Math.round(lo * STEP_UP));
  }
  // A rate that held below one that fell short: halve the gap (a noisy step that held above
  // one that fell short ends the probe).
  if (hi - lo <= Math.max(1, lo * RESOLUTION)) return null;
  return Math.round((lo + hi) / 2);
}

/**
 * The maximum of the whole mix the steps establish: the best that a step which held
 * sustained (`held: true`), else, when none held, the best any step reached, which is then
 * only an upper bound of what the mix can sustain (`held: false`).
 */
export function probeMaximum(steps: readonly ProbeOutcome[]): { mix: number; held: boolean } {
  const held = steps.filter((s) => s.held);
  if (held.length > 0) return { mix: Math.max(...held.map((s) => s.mix)), held: true };
  return { mix: Math.max(0, ...steps.map((s) => s.mix)), held: false };
}
