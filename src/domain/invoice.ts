export const INVOICE_PREFIX_PATTERN = /^[A-Z][A-Z0-9-]{0,11}$/;

/** <prefix>-<global sequence zero-padded to at least 6 digits>; grows past 999999, never wraps. */
export function formatInvoiceNumber(prefix: string, sequence: number | bigint | string): string {
  return `${prefix}-${String(sequence).padStart(6, '0')}`;
}
