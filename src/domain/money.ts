/** Currency exponents: the one table that converts minor units to a provider's decimal string. */
export const CURRENCY_EXPONENT: Record<string, number> = { IDR: 0, USD: 2, EUR: 2, GBP: 2 };

export function minorToDecimal(amountMinor: number, currency: string): string {
  const exp = CURRENCY_EXPONENT[currency];
  if (exp === undefined) throw new Error(`unknown currency ${currency}`);
  if (exp === 0) return String(amountMinor);
  const s = String(amountMinor).padStart(exp + 1, '0');
  return `${s.slice(0, -exp)}.${s.slice(-exp)}`;
}

/** Parses a provider's decimal amount back to minor units; null if it is not exact. */
export function decimalToMinor(value: string, currency: string): number | null {
  const exp = CURRENCY_EXPONENT[currency];
  if (exp === undefined) return null;
  const m = /^(\d+)(?:\.(\d+))?$/.exec(value);
  if (!m) return null;
  const frac = (m[2] ?? '').replace(/0+$/, '');
  if (frac.length > exp) return null;
  const n = Number(m[1] + frac.padEnd(exp, '0'));
  return Number.isSafeInteger(n) ? n : null;
}
