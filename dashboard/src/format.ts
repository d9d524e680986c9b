/** Money in each currency's own units and times in the operator's zone (UTC on hover). */
export const CURRENCY_EXPONENT: Record<string, number> = { IDR: 0, USD: 2, EUR: 2, GBP: 2 };

export function exponent(currency: string): number {
  return CURRENCY_EXPONENT[currency] ?? 2;
}

const moneyFormats = new Map<string, Intl.NumberFormat>();

/** Minor units as read from the API: a number, or a sum past 2^53 − 1 as its digits (json.ts). */
export function isMinor(v: unknown): v is number | string {
  return typeof v === 'number' || (typeof v === 'string' && /^-?\d+$/.test(v));
}

/** "-123456" minor units with exponent 2 as "-1234.56", exactly (no rounding through a double). */
function majorDecimal(minor: string, exp: number): string {
  const negative = minor.startsWith('-');
  const digits = (negative ? minor.slice(1) : minor).padStart(exp + 1, '0');
  const whole = digits.slice(0, digits.length - exp);
  const fraction = exp > 0 ? `.${digits.slice(digits.length - exp)}` : '';
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

/** IDR 150,000 / USD 12.34: integer minor units divided by the currency's exponent. */
export function formatMoney(minor: number | string, currency: string): string {
  let f = moneyFormats.get(currency);
  if (!f) {
    const exp = exponent(currency);
    try {
      f = new Intl.NumberFormat(undefined, {
        style: 'currency',
        currency,
        currencyDisplay: 'code',
        minimumFractionDigits: exp,
        maximumFractionDigits: exp,
      });
    } catch {
      // Not an ISO code the browser knows: plain digits with the code in front.
      f = new Intl.NumberFormat(undefined, {
        minimumFractionDigits: exp,
        maximumFractionDigits: exp,
      });
    }
    moneyFormats.set(currency, f);
  }
  // Intl formats a decimal string exactly (ES2023); json.ts reads sums past 2^53 as strings.
  const value =
    typeof minor === 'string'
      ? (majorDecimal(minor, exponent(currency)) as unknown as number)
      : minor / 10 ** exponent(currency);
  const text = f.format(value);
  return text.includes(currency) ? text : `${currency} ${text}`;
}

/** A decimal amount typed by the operator ("12.5") in minor units, or null if not exact. */
export function parseAmount(input: string, currency: string): number | null {
  const exp = exponent(currency);
  const m = /^(\d+)(?:[.,](\d*))?$/.exec(input.trim());
  if (!m) return null;
  const frac = m[2] ?? '';
  if (frac.replace(/0+$/, '').length > exp) return null;
  const n = Number((m[1] ?? '0') + frac.padEnd(exp, '0').slice(0, exp));
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

export function formatCount(n: number): string {
  return new Intl.NumberFormat().format(n);
}

const localTime = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

export function formatLocal(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : localTime.format(d);
}

/** 2026-11-10 12:34:56 UTC, for the title attribute. */
export function formatUtc(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

export function shortId(id: string): string {
  return id.length > 14 ? `${id.slice(0, 8)}…${id.slice(-4)}` : id;
}
