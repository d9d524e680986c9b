/**
 * The simulators' clock. Tests move it forward (POST /sim/clock, or directly in-process) to
 * pass QR expiry and refund windows without waiting; it never affects the gateway's own clock.
 * The simulators own it (one per mounted set, simulators/index.ts); the process assembly
 * only hands it to tests.
 */
export class SimClock {
  private offsetMs = 0;
  /** How far ahead of real time the simulators are. */
  get offset(): number {
    return this.offsetMs;
  }
  now(): number {
    return Date.now() + this.offsetMs;
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
  reset(): void {
    this.offsetMs = 0;
  }
}
