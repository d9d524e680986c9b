/**
 * What the reconciler (or an operator's sync) last asked a provider about a payment or a
 * refund, what it learned, and when (migration 0008); and the stuck lists built on it.
 */
import type { Mode } from '../domain/types.js';
import type { Queryable } from './pool.js';
import { storableText } from '../domain/storableText.js';

export interface Check {
  asked: string;
  learned: string;
}

export async function recordPaymentCheck(db: Queryable, id: string, c: Check): Promise<void> {
  await db.query(
    `UPDATE payments SET last_check_at = now(), last_check_asked = $2, last_check_learned = $3
     WHERE id = $1`,
    [id, storableText(c.asked), storableText(c.learned)],
  );
}

export async function recordRefundCheck(db: Queryable, id: string, c: Check): Promise<void> {
  await db.query(
    `UPDATE refunds SET last_check_at = now(), last_check_asked = $2, last_check_learned = $3
     WHERE id = $1`,
    [id, storableText(c.asked), storableText(c.learned)],
  );
}

interface CheckColumns {
  last_check_at: Date | null;
  last_check_asked: string | null;
  last_check_learned: string | null;
}

export interface StuckPaymentRow extends CheckColumns {
  id: string;
  app_id: string;
  mode: Mode;
  status: string;
  amount_minor: number;
  currency: string;
  method: string;
  provider: string;
  provider_ref: string | null;
  provider_deadline: Date | null;
  created_at: Date;
}

/**
 * Payments still initiated past their provider deadline, oldest first. The reconciler's
 * claim moves the deadline forward, so one it has asked about already is found by its check.
 */
export async function stuckPayments(db: Queryable, limit: number): Promise<StuckPaymentRow[]> {
  const cols = `id, app_id, mode, status, amount_minor, currency, method, provider, provider_ref,
    provider_deadline, created_at, last_check_at, last_check_asked, last_check_learned`;
  const res = await db.query<StuckPaymentRow>(
    `SELECT ${cols} FROM (
       (SELECT ${cols} FROM payments WHERE status = 'initiated' AND provider_deadline < now()
        ORDER BY created_at LIMIT $1)
       UNION
       (SELECT ${cols} FROM payments WHERE status = 'initiated' AND last_check_at IS NOT NULL
        ORDER BY created_at LIMIT $1)) p
     ORDER BY created_at, id LIMIT $1`,
    [limit],
  );
  return res.rows;
}

export interface StuckRefundRow extends CheckColumns {
  id: string;
  payment_id: string;
  app_id: string;
  mode: Mode;
  status: string;
  amount_minor: number;
  currency: string;
  provider: string;
  provider_ref: string | null;
  created_at: Date;
  updated_at: Date;
}

/** Refunds initiated for longer than `minutes`, oldest first. */
export async function stuckRefunds(
  db: Queryable,
  minutes: number,
  limit: number,
): Promise<StuckRefundRow[]> {
  const res = await db.query<StuckRefundRow>(
    `SELECT id, payment_id, app_id, mode, status, amount_minor, currency, provider, provider_ref,
       created_at, updated_at, last_check_at, last_check_asked, last_check_learned
     FROM refunds
     WHERE status = 'initiated' AND created_at < now() - $1 * interval '1 minute'
     ORDER BY created_at, id LIMIT $2`,
    [minutes, limit],
  );
  return res.rows;
}
