import type { FastifyReply } from 'fastify';
import { renderCheckoutPage, SIM_ACTIONS } from '../common.js';
import { current, publicBase, type Sim } from './context.js';
import { hasPendingRefund } from './refunds.js';
import { isChosen, isPaid, rupiahText, SIM_CHANNELS, type SimTransaction } from './transactions.js';
import { providerTime, qrCodeUrl } from './wire.js';

/** The paying-wallet actions on a paid transaction with a pending cross-wallet refund. */
export const REFUND_ACTIONS = ['refund_succeed', 'refund_fail'] as const;
export type RefundAction = (typeof REFUND_ACTIONS)[number];

export function isRefundAction(a: string): a is RefundAction {
  return (REFUND_ACTIONS as readonly string[]).includes(a);
}

/** The checkout page of a transaction (Snap page, Pay page, QR page). */
export function renderPage(sim: Sim, reply: FastifyReply, ref: string, tx: SimTransaction) {
  const ch = SIM_CHANNELS[tx.channel];
  const view = current(tx, sim.clock.now());
  const details: [string, string][] = [['Order ID', tx.order_id]];
  if (!isChosen(tx)) {
    // No channel chosen yet: Pay (and the other actions) choose the first one offered.
    const offered = (tx.enabled ?? [tx.channel]).map((c) => SIM_CHANNELS[c].label);
    details.push(['Methods offered', offered.join(', ')]);
  } else {
    details.push(['Method', ch.label]);
    if (tx.va_number) details.push(['VA number', tx.va_number]);
    if (tx.bill_key && tx.biller_code) {
      details.push(['Biller code', tx.biller_code], ['Bill key', tx.bill_key]);
    }
    if (tx.qr_string) details.push(['QR string', tx.qr_string]);
  }
  details.push(['Expires', `${providerTime(tx.expiry_ms)} WIB`]);
  return renderCheckoutPage(reply, {
    provider: 'idr_psp',
    title: isChosen(tx)
      ? `Pay ${rupiahText(tx.gross_amount)} with ${ch.label}`
      : `Pay ${rupiahText(tx.gross_amount)}`,
    reference: ref,
    amountText: rupiahText(tx.gross_amount),
    status: view.transaction_status,
    details,
    actionBase: `payments/${ref}`,
    actions: isPaid(tx) && hasPendingRefund(tx) ? REFUND_ACTIONS : SIM_ACTIONS,
    ...(tx.qr_string ? { imageUrl: qrCodeUrl(publicBase(sim.gw), tx) } : {}),
    ...(tx.finish_url ? { returnUrl: tx.finish_url } : {}),
  });
}
