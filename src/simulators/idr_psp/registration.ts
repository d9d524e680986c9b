import type { Sim } from './context.js';
import { obj } from './protocol.js';
import { isSimChannel, type SimChannel, type SimTransaction } from './transactions.js';

/** The charge answer's status_message per channel, as the provider words it. */
export const CHARGE_CREATED: Record<SimChannel, string> = {
  other_qris: 'QRIS transaction is created',
  bca_va: 'Success, Bank Transfer transaction is created',
  bni_va: 'Success, Bank Transfer transaction is created',
  bri_va: 'Success, Bank Transfer transaction is created',
  permata_va: 'Success, PERMATA VA transaction is successful',
  echannel: 'OK, Mandiri Bill transaction is successful',
};

/** The channel a Core API charge asks for (payment_type, bank_transfer.bank). */
export function chargeChannel(body: Record<string, unknown>): SimChannel | { problem: string } {
  switch (body.payment_type) {
    case 'qris':
      return 'other_qris';
    case 'echannel':
      return 'echannel';
    case 'bank_transfer': {
      const bank = obj(body.bank_transfer).bank;
      const channel = typeof bank === 'string' ? `${bank}_va` : '';
      return isSimChannel(channel)
        ? channel
        : { problem: 'bank_transfer.bank must be one of bca, bni, bri, permata' };
    }
    default:
      return {
        problem: 'payment_type must be qris, bank_transfer or echannel (the channels simulated)',
      };
  }
}

/** The registration rules both Snap and the Core API enforce; null when the request is fine. */
export function registrationProblem(
  details: Record<string, unknown>,
  customer: Record<string, unknown>,
  channel: SimChannel,
): string | null {
  const orderId = details.order_id;
  if (typeof orderId !== 'string' || orderId === '' || orderId.length > 50) {
    return 'transaction_details.order_id is required (at most 50 characters)';
  }
  const gross = details.gross_amount;
  if (typeof gross !== 'number' || !Number.isSafeInteger(gross) || gross <= 0) {
    return 'transaction_details.gross_amount must be a positive integer';
  }
  // The QR's amount field (EMV ID 54) holds at most 13 characters.
  if (channel === 'other_qris' && gross > 9_999_999_999_999) {
    return 'transaction_details.gross_amount is too large for qris';
  }
  const email = customer.email;
  if (typeof email !== 'string' || !/^[^\s@]+@[^\s@]+$/.test(email)) {
    const name = channel === 'other_qris' ? 'qris' : channel;
    return typeof email === 'string' && email !== ''
      ? `customer_details.email is not a valid email for ${name}`
      : `customer_details.email is required for ${name}`;
  }
  return null;
}

/** A duplicate order_id is answered with the original, unless it asks for something else. */
function sameRegistration(a: SimTransaction, b: SimTransaction): boolean {
  return a.flow === b.flow && a.channel === b.channel && a.gross_amount === b.gross_amount;
}

export async function store(sim: Sim, tx: SimTransaction): Promise<SimTransaction | null> {
  const refs = (t: SimTransaction) =>
    [t.token, t.transaction_id]
      .filter((r): r is string => Boolean(r))
      .map((r) => ({ kind: 'ref', id: r, data: { order_id: t.order_id } }));
  // The transaction and the references that find it, in one statement.
  const { created, data } = await sim.transactions.createLinked(tx.order_id, tx, refs(tx));
  if (!sameRegistration(data, tx)) return null;
  if (!created) {
    // A retried registration answers with the original: make sure its references exist.
    for (const r of refs(data)) await sim.refs.create(r.id, r.data);
  }
  return data;
}
