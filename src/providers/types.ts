import type { IncomingHttpHeaders } from 'node:http';
import type { ProviderEndpointConfig } from '../config.js';
import type { MovementType, ProviderMovementStatus } from '../domain/reconciliation.js';
import type { Mode, ProviderSlug } from '../domain/types.js';

/** What a provider call needs besides its arguments: where to go and with which credentials. */
export interface ProviderContext {
  mode: Mode;
  endpoint: ProviderEndpointConfig;
  /** Per-call timeout; a timeout is an indeterminate outcome, never a rejection. */
  timeoutMs: number;
  /**
   * The gateway's clock (Gateway.now, which tests move): the adapters count the provider's
   * own lifetimes (a QR's expiry, a Snap page's lapse) on it, as the services and SQL do.
   */
  now(): number;
}

export interface RegisterPaymentInput {
  paymentId: string;
  amountMinor: number;
  currency: string;
  method: string;
  email: string | null;
  externalUserId: string;
  returnUrl: string;
  metadata: Record<string, unknown>;
  /** IDR_PSP_DIRECT_QR: register a QR charge directly and return the QR string/image. */
  directQr: boolean;
}

export interface RegisteredPayment {
  providerRef: string;
  checkoutUrl: string;
  qrString?: string;
  qrImageUrl?: string;
  /** The provider's own expiry of the unpaid payment (QR: 20 minutes), if it has one. */
  expiresAt?: Date;
}

/**
 * Provider failures sorted as medusa does: 'rejected' means the provider said no (its text
 * is reported verbatim); 'indeterminate' means we do not know (timeout, connection reset,
 * 5xx): the operation may have happened and must be resolved by asking again.
 */
export class ProviderError extends Error {
  constructor(
    readonly kind: 'rejected' | 'indeterminate',
    readonly providerText: string,
  ) {
    super(providerText);
  }
}

export type CanonicalOutcome = 'succeeded' | 'failed' | 'canceled';

/** What an inbound provider event means to the gateway, after the provider's own mapping. */
export type InboundAction =
  /** Valid but changes nothing (heartbeats, pending, intermediate states). */
  | { kind: 'none' }
  /**
   * Finalizes the referenced payment. A success always says what the provider took: the
   * gateway compares it with the payment before anything is marked paid.
   */
  | {
      kind: 'payment';
      outcome: 'succeeded';
      paid: Paid;
      enrichment?: Record<string, unknown>;
    }
  | {
      kind: 'payment';
      outcome: 'failed' | 'canceled';
      /** Verbatim provider error text for failed outcomes. */
      errorText?: string;
      /** Provider enrichment merged into metadata (docs/api.md#metadata-enrichment). */
      enrichment?: Record<string, unknown>;
    }
  /** wallet_psp: the buyer approved; the gateway must capture before the payment settles. */
  | { kind: 'capture_required' }
  /** card_psp: a renewal charge of a subscription, a new succeeded payment. */
  | {
      kind: 'renewal';
      subscriptionId: string;
      providerRef: string;
      amountMinor: number;
      currency: string;
      enrichment: Record<string, unknown>;
    }
  | {
      kind: 'subscription';
      event: 'subscription.canceled' | 'subscription.revoked';
      subscriptionId: string;
      enrichment: Record<string, unknown>;
    }
  | {
      kind: 'refund';
      outcome: 'succeeded' | 'failed';
      providerRefundRef: string;
      amountMinor?: number;
      errorText?: string;
      /**
       * The total the provider has refunded on the payment, where it reports one (card_psp's
       * refunded_amount): refunds on record that add up to less get the difference recorded.
       */
      refundedTotalMinor?: number;
      /**
       * Listed by the provider beside the refund the event is about: matched to a refund on
       * record by the provider's reference only, never to a refund still awaiting one.
       */
      onlyByRef?: boolean;
    }
  | DisputeAction;

/**
 * Money the provider took back from a paid payment without a refund the gateway asked for
 * (a chargeback, a reversal, a buyer's dispute), in the state the provider's API confirms.
 */
export interface DisputeAction {
  kind: 'dispute';
  /** The provider's case id, or the reversed transaction's where there is no case. */
  providerRef: string;
  status: 'open' | 'won' | 'lost';
  amountMinor: number;
  currency: string;
  /** The provider's own words for why. */
  reason: string;
  evidenceDueBy: Date | null;
  /** When the provider opened it, where it says. */
  openedAt: Date | null;
  /**
   * A reversal with no case of its own (PayPal's reversed capture): when the payment has a
   * case of the same provider that still holds money (open or lost) and has taken at least
   * the reversal's amount, the reversal is that case's money and records nothing; otherwise
   * it is a dispute of its own and the case's entries leave out what it took.
   */
  withoutCase?: true;
  /**
   * A case confirmed for a capture: the capture's reference, so money a reversal of that
   * capture already took (booked before the provider had the case) is not taken twice.
   */
  covers?: string;
}

/** An amount as a provider reports it, in minor units of its currency. */
export interface Money {
  amountMinor: number;
  currency: string;
}

/** What a provider took for a payment; feeMinor where it reports its fee (PayPal's paypal_fee). */
export interface Paid extends Money {
  feeMinor?: number;
}

export interface InboundEvent {
  /** The provider's own event name (archived; card_psp_event_type). */
  eventType: string;
  /** How to find the payment: our id when the provider echoes it, else its reference. */
  paymentId?: string;
  providerRef?: string;
  /** card_psp: the subscription the event belongs to (renewals, subscription events). */
  subscriptionId?: string;
  action: InboundAction;
}

/** Thrown by parseWebhook when the body cannot be tied to a payment: 400 'bad reference ...'. */
export class BadReference extends Error {}

export interface PaymentProvider {
  slug: ProviderSlug;
  /** Registers the payment; idempotent on paymentId (a retry returns the same registration). */
  register(ctx: ProviderContext, input: RegisterPaymentInput): Promise<RegisteredPayment>;
  /**
   * Checks the provider's signature of an inbound webhook with one mode's endpoint config.
   * The gateway tries each configured mode and keeps the one that verifies. nowMs is the
   * gateway's clock (the gateway always passes it), for schemes that bound the signature's age.
   */
  verifyWebhook(
    endpoint: ProviderEndpointConfig,
    headers: IncomingHttpHeaders,
    rawBody: Buffer,
    nowMs?: number,
  ): Promise<boolean>;
  /** Parses a verified body; the provider's one exhaustive status mapping lives behind this. */
  parseWebhook(headers: IncomingHttpHeaders, rawBody: Buffer): InboundEvent;
  /**
   * Present where the provider's signature does not cover the whole body (wallet_psp signs a
   * CRC32 of it, idr_psp three of its fields): the body is then only a hint, and before any
   * change of money state the gateway asks the provider's API about the payment the event
   * names. Answers what the provider confirms, as actions to apply in order (the payment's
   * outcome, each refund it lists); { kind: 'none' } where it confirms nothing. Throws a
   * ProviderError when the provider cannot answer now (the event is then refused with a
   * retryable answer and redelivered).
   */
  confirmEvent?(
    ctx: ProviderContext,
    ref: ProviderPaymentRef,
    claimed: InboundEvent,
  ): Promise<InboundAction[]>;
  /**
   * The delivery's own id and send time where the provider's scheme has them, so that a
   * replayed transmission can be told from a redelivery (docs/providers).
   */
  transmission?(headers: IncomingHttpHeaders): Transmission | null;
  /**
   * Asks the provider for the payment's current state (the reconciler's safety net for a
   * lost webhook). Answers with the action the state maps to; { kind: 'none' } while pending.
   */
  fetchStatus(ctx: ProviderContext, ref: ProviderPaymentRef): Promise<InboundAction>;
  /**
   * For a payment whose registration never completed on our side (no provider reference:
   * the process died, or the provider never answered): what the provider holds under our
   * payment id. 'found' carries the registration, as register() would have answered; 'none'
   * means the provider confirms it has nothing (its words in providerText). Throws a
   * ProviderError when it cannot tell now; the reconciler asks again later.
   */
  findRegistration(ctx: ProviderContext, input: RegisterPaymentInput): Promise<RegistrationLookup>;
  /** wallet_psp: captures an approved order; the provider's capture event then settles it. */
  capture?(ctx: ProviderContext, ref: ProviderPaymentRef): Promise<void>;
  /**
   * Refunds a succeeded payment (docs/api.md#refunds-per-provider). Idempotent on refundId. Resolves with
   * 'succeeded' for a synchronous refund, 'pending' when the provider settles it later by
   * webhook; throws ProviderError('rejected', text) when the provider refuses (window passed,
   * already refunded...). Absent: the provider has no refund API (card_psp, docs/api.md#refunds-per-provider).
   */
  refund?(ctx: ProviderContext, input: RefundInput): Promise<RefundResult>;
  /**
   * Cancels an initiated payment at the provider (admin cancel, docs/api.md#admin-cancel), so the buyer can no
   * longer pay it. Absent: the provider has no cancel operation; the gateway cancels locally.
   */
  cancel?(ctx: ProviderContext, ref: ProviderPaymentRef): Promise<void>;
  /**
   * The merchant account's balances as the provider reports them (GET /admin/balances).
   * Absent: the provider has no balance API; the gateway shows a figure calculated from its
   * own records instead.
   */
  fetchBalances?(ctx: ProviderContext): Promise<ProviderBalances>;
  /**
   * Payouts to the merchant's bank account initiated in [since, until) (GET /admin/payouts).
   * Absent: the provider has no payout reporting API (source api_unavailable).
   */
  listPayouts?(ctx: ProviderContext, since: Date, until: Date): Promise<ProviderPayout[]>;
  /**
   * The provider's own record of the charges and refunds it made in [since, until)
   * (docs/api.md#reconciliation), from its reporting or list API. Absent: the provider has no
   * such API and its record comes from the settlement file an operator uploads.
   */
  listMovements?(ctx: ProviderContext, since: Date, until: Date): Promise<ProviderMovement[]>;
}

/** One movement of money as the provider records it (reconciliation). */
export interface ProviderMovement {
  type: MovementType;
  /** The provider's id of the movement. */
  providerRef: string;
  /** Our payment id where the provider echoes it (merchant data). */
  paymentId?: string;
  /** The provider's reference of the payment (what the gateway stores as provider_ref). */
  providerPaymentRef?: string;
  status: ProviderMovementStatus;
  currency: string;
  /** Signed: money in positive, money out negative. */
  amountMinor: number;
  /** What the provider kept (negative: a fee it gave back); null where it reports none. */
  feeMinor: number | null;
  occurredAt: Date;
}

/** One delivery as the provider names it (its age is bounded by verifyWebhook). */
export interface Transmission {
  id: string;
}

export type RegistrationLookup =
  { kind: 'found'; registration: RegisteredPayment } | { kind: 'none'; providerText: string };

export interface ProviderBalances {
  /** When the provider computed the figures. */
  asOf: Date;
  balances: { currency: string; availableMinor: number }[];
}

export interface ProviderPayout {
  /** The provider's id of the payout. */
  id: string;
  status: 'succeeded' | 'pending' | 'reversed' | 'denied';
  currency: string;
  /** Money that left the account, positive. */
  amountMinor: number;
  initiatedAt: Date;
  updatedAt: Date;
}

export interface RefundInput extends ProviderPaymentRef {
  refundId: string;
  amountMinor: number;
  /** The original payment amount, for providers that distinguish full and partial refunds. */
  paymentAmountMinor: number;
  currency: string;
  reason: string;
}

export interface RefundResult {
  status: 'succeeded' | 'pending';
  providerRefundRef: string;
}

export interface ProviderPaymentRef {
  paymentId: string;
  /** Null when registration never answered (the provider may still know the payment by id). */
  providerRef: string | null;
  /**
   * When the payment was created and with which method: lets a provider tell a hosted page
   * the buyer can still use from one that has lapsed (idr_psp: a Snap order nobody chose a
   * channel for is unknown to its status API until then, and forever after the page lapses).
   */
  createdAt?: Date;
  method?: string;
}
