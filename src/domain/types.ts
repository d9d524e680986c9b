export const MODES = ['test', 'sandbox', 'live'] as const;
export type Mode = (typeof MODES)[number];

export const PROVIDERS = ['idr_psp', 'card_psp', 'wallet_psp'] as const;
export type ProviderSlug = (typeof PROVIDERS)[number];

export const PAYMENT_STATUSES = ['initiated', 'succeeded', 'failed', 'canceled'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
export type TerminalStatus = Exclude<PaymentStatus, 'initiated'>;

export function isMode(v: unknown): v is Mode {
  return typeof v === 'string' && (MODES as readonly string[]).includes(v);
}

export function isProvider(v: unknown): v is ProviderSlug {
  return typeof v === 'string' && (PROVIDERS as readonly string[]).includes(v);
}

/** docs/api.md#ledger: each kind of movement of money, in the order the docs list them. */
export const LEDGER_TYPES = [
  'charge',
  'refund',
  'dispute',
  'dispute_reversal',
  'late_charge',
  'late_charge_refund',
] as const;
