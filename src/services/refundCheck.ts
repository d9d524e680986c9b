/**
 * How the refund reconciler's check is described for the stuck list (what it asked, what it
 * learned), apart from the payment's status check so that the refund use cases need not
 * import it.
 */
import { ApiError } from '../domain/errors.js';

/** The refund reconciler asks by sending the refund again under the same refund id. */
export function refundQuestion(refund: { id: string; provider: string }): string {
  return `refund ${refund.id} resent to ${refund.provider}`;
}

/** What the resend answered: the refund's stored status, or the error body. */
export function refundLearned(answer: unknown): string {
  if (answer instanceof ApiError) return answer.body;
  if (typeof answer === 'object' && answer !== null && 'body' in answer) {
    const body = (answer as { body: unknown }).body;
    if (typeof body === 'string') {
      try {
        const status = (JSON.parse(body) as { status?: unknown }).status;
        if (typeof status === 'string') return status;
      } catch {
        // not JSON: fall through
      }
    }
  }
  return 'error: no answer';
}
