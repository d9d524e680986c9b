import type { TestScenario } from '../../domain/testScenarios.js';
import { registrationFault, scenarioOf, type FaultRunner, FAULT_DELAY_MS } from '../faults.js';
import type { SimStore } from '../common.js';
import { settlePendingRefund } from './refunds.js';
import type { SimRefund, SimTransaction } from './transactions.js';

/** The test_scenario a transaction was registered with (its custom_field1). */
export function scenarioOfTransaction(tx: SimTransaction): TestScenario | null {
  return scenarioOf(tx.custom_field1);
}

/**
 * out_of_order's late notification: the transaction as it was before the final status
 * (pending). Null for notifications that have no earlier status to reorder (refunds).
 */
export function pendingView(tx: SimTransaction): SimTransaction | null {
  if (!['settlement', 'deny', 'cancel', 'expire'].includes(tx.transaction_status)) return null;
  return {
    ...tx,
    transaction_status: 'pending',
    status_message: 'midtrans payment notification',
    settlement_time_ms: null,
    wallet: null,
    refunds: [],
  };
}

/** The registration fault of this transaction's first answer (simulators/faults.ts). */
export function registrationFaultOf(transactions: SimStore<SimTransaction>, tx: SimTransaction) {
  return registrationFault(transactions, tx.order_id, scenarioOfTransaction(tx));
}

/**
 * refund_pending: the paying side settles the refund FAULT_DELAY_MS after accepting it, then
 * the provider notifies. A refund settled meanwhile (refund_succeed / refund_fail) is left as it is.
 */
export function settleRefundLater(
  faults: FaultRunner,
  transactions: SimStore<SimTransaction>,
  now: () => number,
  orderId: string,
  refundKey: string,
  notify: (tx: SimTransaction) => Promise<unknown>,
): void {
  faults.later(FAULT_DELAY_MS, 'pending refund settlement', async () => {
    const held: { refund?: SimRefund } = {};
    const tx = await transactions.update(orderId, (cur) => {
      const r = settlePendingRefund(cur, 'succeeded', now(), { refundKey });
      if ('problem' in r) return null;
      held.refund = r.refund;
      return r.next;
    });
    if (tx && held.refund) await notify(tx);
  });
}
