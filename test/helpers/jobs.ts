/**
 * The gateway's background jobs, run now instead of waiting for their timers: a test that
 * needs "the reconciler's next pass" or "the refund resend after five minutes" calls them
 * here, so no test imports src/services itself.
 */
export { reconcileDue } from '../../src/services/reconciler.js';
export { retryUnansweredRefunds } from '../../src/services/refunds/retry.js';
export { finalizePayment } from '../../src/services/payments/finalize.js';
export { disableFailingEndpoints } from '../../src/services/endpointHealth.js';
export { dailyReconciliation } from '../../src/services/reconciliationDaily.js';
