/**
 * GET /admin/stuck: payments still initiated past their provider deadline and refunds
 * initiated for more than 15 minutes, oldest first, each with what the reconciler (or an
 * operator's sync) last asked the provider and learned, and when.
 */
import { stuckPayments, stuckRefunds } from '../db/checks.js';
import type { Queryable } from '../db/pool.js';
import type { Mode } from '../domain/types.js';

export const STUCK_REFUND_MINUTES = 15;

export interface LastCheck {
  at: string;
  asked: string;
  learned: string;
}

function lastCheck(r: {
  last_check_at: Date | null;
  last_check_asked: string | null;
  last_check_learned: string | null;
}): LastCheck | null {
  return r.last_check_at === null
    ? null
    : {
        at: r.last_check_at.toISOString(),
        asked: r.last_check_asked ?? '',
        learned: r.last_check_learned ?? '',
      };
}

export interface StuckPayment {
  id: string;
  app_id: string;
  mode: Mode;
  status: string;
  amount_minor: number;
  currency: string;
  method: string;
  provider: string;
  provider_ref: string | null;
  provider_deadline: string | null;
  created_at: string;
  last_check: LastCheck | null;
}

export interface StuckRefund {
  id: string;
  payment_id: string;
  app_id: string;
  mode: Mode;
  status: string;
  amount_minor: number;
  currency: string;
  provider: string;
  provider_ref: string | null;
  created_at: string;
  updated_at: string;
  last_check: LastCheck | null;
}

export async function listStuck(
  db: Queryable,
  limit: number,
): Promise<{ payments: StuckPayment[]; refunds: StuckRefund[] }> {
  const [payments, refunds] = await Promise.all([
    stuckPayments(db, limit),
    stuckRefunds(db, STUCK_REFUND_MINUTES, limit),
  ]);
  return {
    payments: payments.map((p) => ({
      id: p.id,
      app_id: p.app_id,
      mode: p.mode,
      status: p.status,
      amount_minor: p.amount_minor,
      currency: p.currency,
      method: p.method,
      provider: p.provider,
      provider_ref: p.provider_ref,
      provider_deadline: p.provider_deadline?.toISOString() ?? null,
      created_at: p.created_at.toISOString(),
      last_check: lastCheck(p),
    })),
    refunds: refunds.map((r) => ({
      id: r.id,
      payment_id: r.payment_id,
      app_id: r.app_id,
      mode: r.mode,
      status: r.status,
      amount_minor: r.amount_minor,
      currency: r.currency,
      provider: r.provider,
      provider_ref: r.provider_ref,
      created_at: r.created_at.toISOString(),
      updated_at: r.updated_at.toISOString(),
      last_check: lastCheck(r),
    })),
  };
}
