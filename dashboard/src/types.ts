/**
 * The admin API shapes the dashboard reads, under the names its pages use. The shapes are
 * generated from the gateway's OpenAPI document into contract.gen.ts (`npm run types`);
 * nothing here restates a field. The constants below are the choices the filters offer.
 */
import type { components } from './contract.gen';

type Schemas = components['schemas'];

export type Mode = Schemas['App']['mode'];
export const MODES: readonly Mode[] = ['test', 'sandbox', 'live'];
/**
 * A sum of minor units: a JSON integer of any size. Past 2^53 − 1 the dashboard's reader
 * (json.ts) keeps it as a string of its exact digits; the generated types say so for every
 * money sum (scripts/contract-types.ts).
 */
export type MinorSum = number | string;

export const PAYMENT_STATUSES = ['initiated', 'succeeded', 'failed', 'canceled'] as const;

export type Summary = Schemas['Summary'];
export type CurrencyTotals = Summary['by_currency'][number];
export type AppSummary = Summary['by_app'][number];
export type ProviderSummary = Summary['by_provider'][number];
/** The counts an app's row and a provider's row share; only an app's has money per currency. */
export type CountFields = Omit<ProviderSummary, 'provider'> & {
  by_currency?: AppSummary['by_currency'];
};
export type Timeseries = Schemas['Timeseries'];

export type PaymentRow = Schemas['PaymentList']['payments'][number];
export type RefundRow = Schemas['AdminRefund'];
/** docs/api.md#dispute-object. */
export type DisputeRow = Schemas['Dispute'];

export const DISPUTE_STATUSES = ['open', 'won', 'lost'] as const;

export type PaymentDetail = Schemas['PaymentDetail'];
export type PaymentDelivery = PaymentDetail['deliveries'][number];
export type InboundEvent = Schemas['InboundEventList']['events'][number];

export type Balances = Schemas['Balances'];
export type Balance = Balances['balances'][number];
export type Payouts = Schemas['Payouts'];
export type Payout = Payouts['payouts'][number];

export type App = Schemas['App'];
export type AppSecrets = Schemas['AppWithSecrets'];
export type Delivery = Schemas['DeliveryList']['deliveries'][number];

/** Every method each provider supports (the gateway's routing table, docs/api.md#apps defaults). */
export const PROVIDER_METHODS: Record<string, readonly string[]> = {
  idr_psp: ['qris', 'va_bca', 'va_mandiri', 'va_bni', 'va_bri', 'va_permata'],
  card_psp: ['card_psp'],
  wallet_psp: ['wallet_psp'],
};
export const PROVIDERS = Object.keys(PROVIDER_METHODS);

export type StuckPayment = Schemas['Stuck']['payments'][number];
export type StuckRefund = Schemas['Stuck']['refunds'][number];
export type LastCheck = NonNullable<StuckPayment['last_check']>;

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

export type AuditEntry = Schemas['AuditList']['entries'][number];

/** docs/api.md#operators */
export type Operator = Schemas['Operator'];
export type OperatorToken = Schemas['OperatorToken'];

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

export type LedgerEntry = Schemas['LedgerEntry'];

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
export type Endpoint = Schemas['Endpoint'];
export type EndpointStats = Schemas['EndpointStats'];

/** docs/api.md#reconciliation */
export type ReconciliationItem = Schemas['ReconciliationItem'];
export type Reconciliation = Schemas['Reconciliation'];
export type ReconciliationImport = Schemas['ReconciliationImport'];
