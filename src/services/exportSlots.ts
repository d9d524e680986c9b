/**
 * How many CSV exports this process streams at once (docs/operations.md#csv-exports). Each
 * holds one connection of the exports' own pool for as long as its reader reads; one more
 * than the pool holds is refused at once with 429 and Retry-After instead of queueing
 * behind readers that may take minutes.
 */
import { apiError } from '../domain/errors.js';

/** Seconds a refused export is told to wait: exports of a day or a month take about that. */
export const EXPORT_RETRY_AFTER_SECONDS = 10;

export class ExportSlots {
  private active = 0;

  constructor(readonly max: number) {}

  /** Takes a slot or throws the 429; the returned function gives it back (once). */
  take(): () => void {
    if (this.active >= this.max) {
      throw apiError('too_many_exports').withHeaders({
        'Retry-After': String(EXPORT_RETRY_AFTER_SECONDS),
      });
    }
    this.active++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.active--;
    };
  }
}
