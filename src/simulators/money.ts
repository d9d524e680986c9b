/**
 * Amounts as the simulated providers write them. ISO 4217 minor units of the currencies they
 * take: rupiah have none (Midtrans takes whole rupiah), dollars, euros and pounds two
 * (PayPal writes "25.99"; Polar counts cents). The simulators' own table, not the gateway's.
 */
export const MINOR_UNITS: Readonly<Record<string, number>> = { IDR: 0, USD: 2, EUR: 2, GBP: 2 };

/** 2599 USD -> "25.99"; 10000 IDR -> "10000". Throws on a currency the providers do not take. */
export function minorToDecimal(amountMinor: number, currency: string): string {
  const exp = MINOR_UNITS[currency];
  if (exp === undefined) throw new Error(`unknown currency ${currency}`);
  if (exp === 0) return String(amountMinor);
  const digits = String(amountMinor).padStart(exp + 1, '0');
  return `${digits.slice(0, -exp)}.${digits.slice(-exp)}`;
}

/** "25.99" USD -> 2599; null when it is not a plain decimal or has more places than the currency. */
export function decimalToMinor(value: string, currency: string): number | null {
  const exp = MINOR_UNITS[currency];
  if (exp === undefined) return null;
  const m = /^(\d+)(?:\.(\d+))?$/.exec(value);
  if (!m) return null;
  const fraction = (m[2] ?? '').replace(/0+$/, '');
  if (fraction.length > exp) return null;
  const n = Number(m[1] + fraction.padEnd(exp, '0'));
  return Number.isSafeInteger(n) ? n : null;
}
