/**
 * The idr_psp simulator's settlement report file (docs/providers/idr_psp.md#settlement-report-file):
 * GET /sim/idr_psp/reports/settlement?date=YYYY-MM-DD answers the CSV of the payments settled
 * and the refunds and chargebacks made in that UTC day, from the simulator's transactions, with
 * reconciliation_drift applied (simulators/drift.ts). Like the merchant portal's download it
 * takes no API key (docs/api.md#test-mode: scripted simulator routes are unauthenticated).
 * The file is written here independently of the gateway's parser: the columns are listed
 * again, not imported, so a mistake in one is caught by the other in tests.
 */
import type { FastifyInstance } from 'fastify';
import { listIdrReportTransactions } from '../../db/simObjects.js';
import { formatProviderTime } from '../../providers/idr_psp/wire.js';
import { DRIFT_AMOUNT_MINOR, driftRef, drifts } from '../drift.js';
import type { Sim } from './context.js';
import { scenarioOfTransaction } from './faults.js';
import { SIM_CHANNELS, type SimTransaction } from './transactions.js';

const HEADER =
  'order_id,transaction_id,refund_key,transaction_type,payment_type,transaction_status,transaction_time,settlement_time,currency,gross_amount,fee_amount,net_amount';
const DAY_MS = 86_400_000;

/** The simulated merchant's rates: QRIS 0.7% MDR, virtual accounts a flat Rp 4,000. */
export function simFee(tx: SimTransaction, gross: number): number {
  if (SIM_CHANNELS[tx.channel].paymentType === 'qris') return Math.round((gross * 7) / 1000);
  return Math.min(gross, 4000);
}

const rupiah = (n: number) => `${n}.00`;

function line(cells: (string | number)[]): string {
  return cells.join(',') + '\r\n';
}

/** Payments settled and refunds made in [from, until): the report's lines. */
export function reportLines(txs: SimTransaction[], from: number, until: number): string[] {
  const out: { at: number; text: string }[] = [];
  const inDay = (ms: number | null) => ms !== null && ms >= from && ms < until;
  for (const tx of txs) {
    const drift = drifts(scenarioOfTransaction(tx));
    const paymentType = SIM_CHANNELS[tx.channel].paymentType;
    if (tx.settlement_time_ms !== null && inDay(tx.settlement_time_ms)) {
      const gross = tx.gross_amount + (drift ? DRIFT_AMOUNT_MINOR : 0);
      const row = (orderId: string, txId: string, amount: number, status: string) =>
        line([
          orderId,
          txId,
          '',
          'payment',
          paymentType,
          status,
          formatProviderTime(tx.transaction_time_ms),
          formatProviderTime(tx.settlement_time_ms as number),
          'IDR',
          rupiah(amount),
          rupiah(simFee(tx, amount)),
          String(amount - simFee(tx, amount)),
        ]);
      out.push({
        at: tx.settlement_time_ms,
        text: row(tx.order_id, tx.transaction_id, gross, tx.transaction_status),
      });
      if (drift) {
        const ref = driftRef(tx.transaction_id, 8, '0123456789abcdef');
        out.push({
          at: tx.settlement_time_ms,
          text: row(
            `unknown-${ref}`,
            `${ref}-0000-4000-8000-${ref}0000`,
            tx.gross_amount,
            'settlement',
          ),
        });
      }
    }
    for (const r of tx.refunds ?? []) {
      const at = r.settled_ms ?? r.created_ms;
      if (
        !inDay(at) ||
        (r.status !== 'succeeded' && r.status !== 'pending' && r.status !== 'failed')
      ) {
        continue;
      }
      if (r.chargeback) {
        // Under reconciliation_drift the bank is reported to take back more than it did.
        const amount = r.amount + (drift ? DRIFT_AMOUNT_MINOR : 0);
        out.push({
          at,
          text: line([
            tx.order_id,
            tx.transaction_id,
            String(r.refund_chargeback_id),
            'chargeback',
            paymentType,
            'settlement',
            formatProviderTime(r.created_ms),
            formatProviderTime(at),
            'IDR',
            rupiah(amount),
            rupiah(0),
            String(-amount),
          ]),
        });
        continue;
      }
      // reconciliation_drift drops the payment's refunds.
      if (drift) continue;
      const status =
        r.status === 'succeeded' ? 'settlement' : r.status === 'pending' ? 'pending' : 'failure';
      out.push({
        at,
        text: line([
          tx.order_id,
          tx.transaction_id,
          r.refund_key,
          'refund',
          paymentType,
          status,
          formatProviderTime(r.created_ms),
          r.settled_ms === null ? '' : formatProviderTime(r.settled_ms),
          'IDR',
          rupiah(r.amount),
          rupiah(0),
          String(-r.amount),
        ]),
      });
    }
  }
  return out.sort((a, b) => a.at - b.at).map((o) => o.text);
}

export function registerReportRoutes(app: FastifyInstance, sim: Sim): void {
  app.get<{ Querystring: { date?: string } }>('/reports/settlement', async (req, reply) => {
    const date = req.query.date ?? '';
    const from = /^\d{4}-\d{2}-\d{2}$/.test(date) ? Date.parse(`${date}T00:00:00Z`) : NaN;
    if (Number.isNaN(from)) {
      return reply.code(400).type('text/plain; charset=utf-8').send('date must be YYYY-MM-DD');
    }
    const txs = await listIdrReportTransactions<SimTransaction>(sim.gw.pool, from);
    const body = HEADER + '\r\n' + reportLines(txs, from, from + DAY_MS).join('');
    return reply
      .code(200)
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="settlement-${date}.csv"`)
      .send(body);
  });
}
