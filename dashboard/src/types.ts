/**
 * The admin API shapes the dashboard reads (docs/api.md#admin-api, #apps, #delivery-and-retries). Fields the
 * contract calls "more fields" are optional so that a leaner answer still renders.
 */
export type Mode = 'test' | 'sandbox' | 'live';
export const MODES: readonly Mode[] = ['test', 'sandbox', 'live'];
/**
 * A sum of minor units: a JSON integer of any size. Past 2^53 − 1 the dashboard's reader
 * (json.ts) keeps it as a string of its exact digits.
 */
export type MinorSum = number | string;

export const PAYMENT_STATUSES = ['initiated', 'succeeded', 'failed', 'canceled'] as const;

export interface CurrencyTotals {
  currency: string;
  succeeded_count: number;
  succeeded_minor: MinorSum;
  refunded_count?: number;
  refunded_minor: MinorSum;
  /** The ledger's sum over the window (docs/api.md#ledger). */
  net_minor: MinorSum;
  /** What disputes took back, net of the ones won. */
  disputed_minor?: MinorSum;
  failed_count?: number;
  canceled_count?: number;
  initiated_count?: number;
}

export interface CountFields {
  succeeded_count: number;
  refunded_count?: number;
  failed_count?: number;
  canceled_count?: number;
  initiated_count?: number;
  by_currency?: CurrencyTotals[];
}

export interface AppSummary extends CountFields {
  app_id: string;
  app_name: string;
  app_mode: Mode;
}

export interface ProviderSummary extends CountFields {
  provider: string;
}

export interface Summary {
  since: string;
  as_of: string;
  mode: string;
  by_app: AppSummary[];
  by_provider: ProviderSummary[];
  by_currency: CurrencyTotals[];
}

export interface Timeseries {
  days: number;
  mode: string;
  buckets: { day: string; currency: string; succeeded_count: number; succeeded_minor: MinorSum }[];
}

export interface PaymentRow {
  id: string;
  mode: Mode;
  status: string;
  amount_minor: number;
  currency: string;
  method: string;
  provider: string;
  refund_status: string | null;
  /** The amount of the refund refund_status describes (docs/api.md#payment-list). */
  refund_amount_minor?: number | null;
  created_at: string;
  app_id?: string;
  invoice_number?: string | null;
  [field: string]: unknown;
}

export interface RefundRow {
  id: string;
  mode: Mode;
  amount_minor: number;
  payment_id?: string;
  status?: string;
  currency?: string;
  reason?: string;
  provider_ref?: string;
  created_at?: string;
  [field: string]: unknown;
}

/** docs/api.md#dispute-object. */
export interface DisputeRow {
  dispute_id: string;
  payment_id: string;
  app_id: string;
  provider: string;
  provider_ref: string;
  status: string;
  amount_minor: number;
  currency: string;
  reason: string;
  opened_at: string;
  closed_at: string | null;
  evidence_due_by: string | null;
  mode: Mode;
}

export const DISPUTE_STATUSES = ['open', 'won', 'lost'] as const;

export interface DeliveryAttempt {
  [field: string]: unknown;
}

export interface PaymentDelivery {
  [field: string]: unknown;
  attempts?: DeliveryAttempt[] | number;
}

export interface PaymentDetail {
  [field: string]: unknown;
  status: string;
  amount_minor: number;
  currency: string;
  last_error?: string;
  refund?: RefundRow | null;
  disputes?: DisputeRow[];
  deliveries?: PaymentDelivery[];
}

export interface InboundEvent {
  id: number;
  provider: string;
  received_at: string;
  signature_valid: boolean;
  event_type: string | null;
  payment_id: string | null;
  outcome: string;
  raw_body: string;
}

export interface Balance {
  provider: string;
  mode?: Mode;
  source: string;
  currency: string;
  available_minor: MinorSum;
  as_of?: string;
  /** Why a provider with a balance API shows a calculated figure. */
  error?: string;
}

export interface Balances {
  balances: Balance[];
  errors?: { provider: string; mode: Mode; error: string }[];
}

export interface Payout {
  provider: string;
  mode?: Mode;
  source: string;
  items: Record<string, unknown>[];
  error?: string;
}

export interface Payouts {
  since?: string;
  until?: string;
  payouts: Payout[];
}

export interface App {
  app_id: string;
  name: string;
  mode: Mode;
  api_key: string;
  webhook_url: string | null;
  allowed_providers: string[];
  allowed_methods: Record<string, string[]>;
  created_at: string;
}

export interface AppSecrets extends App {
  signing_secret: string;
  webhook_secret: string;
}

export interface Delivery {
  delivery_id: string;
  event_id: string;
  event_type: string;
  app_id: string;
  payment_id: string | null;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  /** The last attempt's answer, its first 1 KiB as text (docs/api.md#deliveries). */
  last_response_body?: string | null;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Every method each provider supports (the gateway's routing table, docs/api.md#apps defaults). */
export const PROVIDER_METHODS: Record<string, readonly string[]> = {
  idr_psp: ['qris', 'va_bca', 'va_mandiri', 'va_bni', 'va_bri', 'va_permata'],
  card_psp: ['card_psp'],
  wallet_psp: ['wallet_psp'],
};
export const PROVIDERS = Object.keys(PROVIDER_METHODS);

export interface LastCheck {
  at: string;
  asked: string;
  learned: string;
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

export const AUDIT_ACTIONS = [
  'app.create',
  'app.update',
  'app.regenerate_keys',
  'app.redeliver',
  'endpoint.create',
  'endpoint.update',
  'endpoint.disable',
  'endpoint.rotate_secret',
  'endpoint.recover',
  'endpoint.auto_disable',
  'payment.cancel',
  'payment.refund',
  'payment.retry_webhook',
  'payment.sync',
  'exception.resolve',
  'operator.create',
  'operator.update',
  'operator.token_create',
  'operator.token_revoke',
  'operator.sign_in',
  'operator.sign_out',
  'admin_token.update',
] as const;

export interface AuditEntry {
  id: number;
  at: string;
  action: string;
  target_type: string;
  target_id: string;
  outcome: string;
  request_id: string;
  source_ip: string;
  details: Record<string, unknown>;
  /** root (ADMIN_TOKEN) or the operator id. */
  actor: string;
  actor_email: string | null;
  actor_token_name: string | null;
}

/** docs/api.md#operators */
export interface Operator {
  id: string;
  email: string;
  name: string;
  role: 'viewer' | 'support' | 'finance' | 'admin';
  disabled: boolean;
  created_at: string;
  updated_at: string;
}

export interface OperatorToken {
  id: string;
  operator_id: string;
  name: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

/** Who did it, as the audit log names them. */
export function actorText(e: Pick<AuditEntry, 'actor' | 'actor_email' | 'actor_token_name'>) {
  const who = e.actor === 'root' ? 'root (ADMIN_TOKEN)' : (e.actor_email ?? e.actor);
  return e.actor_token_name ? `${who} via token ${e.actor_token_name}` : who;
}

/** docs/api.md#ledger */
export const LEDGER_TYPES = [
  'charge',
  'refund',
  'dispute',
  'dispute_reversal',
  'late_charge',
  'late_charge_refund',
] as const;

export interface LedgerEntry {
  id: string;
  type: (typeof LEDGER_TYPES)[number];
  payment_id: string;
  refund_id: string | null;
  dispute_id: string | null;
  exception_id: string | null;
  app_id: string;
  provider: string;
  mode: Mode;
  currency: string;
  amount_minor: number;
  fee_minor: number | null;
  occurred_at: string;
}

/** Event kinds an endpoint may subscribe to (docs/api.md#event-kinds). */
export const EVENT_TYPES = [
  'payment.succeeded',
  'payment.failed',
  'payment.canceled',
  'subscription.canceled',
  'subscription.revoked',
  'refund.succeeded',
  'refund.failed',
  'dispute.opened',
  'dispute.closed',
] as const;

/** GET /admin/apps/{id}/endpoints rows (docs/api.md#webhook-endpoints). */
export interface Endpoint {
  endpoint_id: string;
  app_id: string;
  url: string;
  event_types: string[];
  description: string;
  disabled: boolean;
  disabled_reason: string | null;
  rotates_at: string | null;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

export interface EndpointStats {
  endpoint_id: string;
  days: number;
  attempts: number;
  delivered: number;
  failed: number;
  success_rate: number | null;
  latency_ms: { p50: number | null; p90: number | null; p99: number | null };
  recent_attempts: {
    delivery_id: string;
    event_id: string;
    event_type: string;
    attempt: number;
    started_at: string;
    duration_ms: number;
    status_code: number | null;
    error: string | null;
    response_body: string | null;
    outcome: string;
  }[];
}

/** docs/api.md#reconciliation */
export interface ReconciliationItem {
  kind: 'missing_in_gateway' | 'missing_at_provider' | 'amount_mismatch' | 'status_mismatch';
  movement: 'charge' | 'refund' | 'dispute';
  provider_ref: string;
  payment_id: string | null;
  currency: string;
  gateway_amount_minor: number | null;
  provider_amount_minor: number | null;
  provider_status: string | null;
  exception_id: string | null;
}

export interface Reconciliation {
  provider: string;
  mode: Mode;
  date: string;
  status: 'matched' | 'mismatched' | 'pending';
  run_id: string | null;
  ran_at: string | null;
  import_id: string | null;
  matched_count: number;
  /** One entry per currency, alphabetical: sums of two currencies are never added. */
  by_currency: {
    currency: string;
    gateway_net_minor: number | string;
    provider_net_minor: number | string;
    fees_minor: number | string;
  }[];
  items: ReconciliationItem[];
}

export interface ReconciliationImport {
  import_id: string;
  provider: string;
  mode: Mode;
  date: string;
  filename: string;
  row_count: number;
  uploaded_at: string;
  uploaded_by: { request_id: string; source_ip: string };
}
