import type { PaymentProvider } from '../types.js';
import {
  cancelTransaction,
  confirmNotification,
  fetchTransactionStatus,
  findRegistration,
  refundTransaction,
  registerPayment,
} from './client.js';
import { parseNotification, verifyNotification } from './webhook.js';

/**
 * The IDR rails (QRIS and bank virtual accounts), modelled on Midtrans: Snap hosted page by
 * default, a direct Core API QR charge when IDR_PSP_DIRECT_QR is on. provider_ref is the Snap
 * token (hosted) or the transaction_id (direct charge); notifications name the payment by
 * order_id, which is our payment_id. Refunds go through the online direct refund, cancel
 * voids an unsettled transaction. Wire protocol: docs/providers/idr_psp.md.
 */
export const idrPsp: PaymentProvider = {
  slug: 'idr_psp',
  register: registerPayment,
  async verifyWebhook(endpoint, _headers, rawBody) {
    return verifyNotification(endpoint.webhookSecret, rawBody);
  },
  parseWebhook(_headers, rawBody) {
    return parseNotification(rawBody);
  },
  fetchStatus: fetchTransactionStatus,
  confirmEvent: confirmNotification,
  findRegistration,
  refund: refundTransaction,
  cancel: cancelTransaction,
};
