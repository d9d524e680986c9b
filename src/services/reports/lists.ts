/** The operator's payment and refund lists (docs/api.md#admin-api), newest first, paged by id. */
import {
  listPaymentPage,
  listRefundRows,
  paymentExists,
  refundExists,
  type RefundListRow,
} from '../../db/reportLists.js';
import type { Queryable } from '../../db/pool.js';
import { apiError } from '../../domain/errors.js';
import { isPaymentId } from '../../domain/ids.js';
import type { PaymentSearch } from '../../domain/paymentSearch.js';
import { PAYMENT_STATUSES, type Mode } from '../../domain/types.js';
import { modeForApp } from '../paymentSearch.js';

export interface PaymentListItem {
  id: string;
  app_id: string;
  mode: Mode;
  status: string;
  amount_minor: number;
  currency: string;
  method: string;
  provider: string;
  provider_ref: string | null;
  invoice_number: string | null;
  last_error: string;
  refund_status: string | null;
  /**
   * What is refunded of the payment: its initiated and succeeded refunds added up (a refund
   * made at the provider beside ours included), else the failed refund's amount.
   */
  refund_amount_minor: number | null;
  created_at: string;
  updated_at: string;
  finalized_at: string | null;
  /** A test-mode payment's metadata.test_scenario (docs/testing.md). */
  test_scenario: string | null;
}

/**
 * Newest first; `before` is the id of the last row of the previous page, or the previous
 * answer's `next_before` (docs/api.md#bounded-search). A page reads a bounded number of rows:
 * it may hold fewer than `limit` rows, none at all, with `next_before` set; `next_before` is
 * null only when the search reached the end.
 */
export async function listPayments(
  db: Queryable,
  q: {
    mode: Mode | '';
    status: string | null;
    before: string | null;
    limit: number;
    search?: PaymentSearch;
  },
): Promise<{ mode: Mode | ''; payments: PaymentListItem[]; next_before: string | null }> {
  if (q.status !== null && !(PAYMENT_STATUSES as readonly string[]).includes(q.status)) {
    throw apiError('invalid', `status must be one of ${PAYMENT_STATUSES.join(', ')}`);
  }
  const before = q.before;
  if (before !== null && !(isPaymentId(before) && (await paymentExists(db, before)))) {
    throw apiError('invalid', 'before must be a payment id from a previous page');
  }
  const mode = await modeForApp(db, q.mode === '' ? null : q.mode, q.search?.appId ?? null);
  if (mode === 'none') return { mode: q.mode, payments: [], next_before: null };
  const { rows, nextBefore } = await listPaymentPage(db, {
    mode,
    status: q.status,
    before,
    limit: q.limit,
    search: q.search,
  });
  return {
    mode: q.mode,
    payments: rows.map((r) => ({
      id: r.id,
      app_id: r.app_id,
      mode: r.mode,
      status: r.status,
      amount_minor: r.amount_minor,
      currency: r.currency,
      method: r.method,
      provider: r.provider,
      provider_ref: r.provider_ref,
      invoice_number: r.invoice_number,
      last_error: r.last_error,
      refund_status: r.refund_status,
      refund_amount_minor: r.refund_amount_minor,
      created_at: r.created_at.toISOString(),
      updated_at: r.updated_at.toISOString(),
      finalized_at: r.finalized_at?.toISOString() ?? null,
      test_scenario: r.test_scenario,
    })),
    next_before: nextBefore,
  };
}

/**
 * The refund rows as stored: the route writes them with the RefundList schema, each row by
 * AdminRefund (src/domain/serialize.ts), so no view copies them first.
 */
export async function listRefunds(
  db: Queryable,
  q: { mode: Mode | ''; before: string | null; limit: number },
): Promise<{ mode: Mode | ''; refunds: RefundListRow[] }> {
  const before = q.before;
  if (before !== null && !(isPaymentId(before) && (await refundExists(db, before)))) {
    throw apiError('invalid', 'before must be a refund id from a previous page');
  }
  const rows = await listRefundRows(db, {
    mode: q.mode === '' ? null : q.mode,
    before,
    limit: q.limit,
  });
  return { mode: q.mode, refunds: rows };
}
