/**
 * POST /v1/payments (docs/api.md#create-a-payment): parse, route, store, register with the
 * provider, answer idempotently; the fresh-key path in two transactions (issue 28).
 */
import type { AppRow } from '../../db/apps.js';
import * as idem from '../../db/idempotency.js';
import type { CreatedPayment, CreationBatchers, FreshClaim } from '../../db/paymentCreation.js';
import * as paymentsDb from '../../db/payments.js';
import type { PaymentRow } from '../../db/payments.js';
import type { Pool } from '../../db/pool.js';
import { isDatabaseUnavailable } from '../../db/connection.js';
import { ApiError, apiError, notConfigured } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import {
  parseCreatePayment,
  parseJsonObject,
  type CreatePaymentRequest,
} from '../../domain/paymentRequest.js';
import { routePayment } from '../../domain/routing.js';
import { requestedTestScenario } from '../../domain/testScenarios.js';
import type { Mode, ProviderSlug } from '../../domain/types.js';
import type { ProviderEndpointConfig } from '../../config.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import { ProviderError, type RegisteredPayment } from '../../providers/types.js';
import { bodySha256Hex } from '../../auth/crypto.js';
import {
  CLAIM_LEASE_MS,
  idempotencyScope,
  runIdempotent,
  validIdempotencyKey,
  type Claim,
  type StoredResponse,
} from '../idempotency.js';

export interface PaymentServiceDeps {
  pool: Pool;
  durablePool: Pool;
  /** The fresh path's two statements, shared by the requests that reach them together. */
  creations: CreationBatchers;
  providers: ProviderRegistry;
  idrPspDirectQr: boolean;
  providerTimeoutMs: number;
  log: { error(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** The gateway's clock (Gateway.now): registration deadlines are set on it. */
  now(): number;
}

/** An unanswered registration is asked about again after this long (the reconciler). */
const UNANSWERED_REGISTRATION_RECHECK_MS = 5 * 60_000;

/**
 * How long a registration may take before the reconciler treats the payment as stranded
 * (its creating process died before storing the provider's answer): two minutes past the
 * provider timeout, so a registration still in flight is never asked about.
 */
export function registrationGraceMs(providerTimeoutMs: number): number {
  return providerTimeoutMs + 2 * 60_000;
}

function createdResponse(
  p: Pick<
    PaymentRow,
    'id' | 'status' | 'checkout_url' | 'invoice_number' | 'qr_string' | 'qr_image_url'
  >,
): StoredResponse {
  const body: Record<string, string> = {
    payment_id: p.id,
    status: p.status,
    checkout_url: p.checkout_url ?? '',
  };
  if (p.invoice_number) body.invoice_number = p.invoice_number;
  if (p.qr_string) body.qr_string = p.qr_string;
  if (p.qr_image_url) body.qr_image_url = p.qr_image_url;
  return { status: 201, body: JSON.stringify(body) };
}

export async function createPayment(
  deps: PaymentServiceDeps,
  app: AppRow,
  rawBody: Buffer,
  idempotencyKey: string | undefined,
): Promise<StoredResponse> {
  const fresh = await createFresh(deps, app, rawBody, idempotencyKey);
  if (fresh) return fresh;
  const scope = idempotencyScope(app.id, 'POST /v1/payments', idempotencyKey);
  return runIdempotent(deps.pool, deps.durablePool, scope, rawBody, async (claim) => {
    const req = parseCreatePayment(parseJsonObject(rawBody));
    const provider = routePayment(req.currency, req.method, {
      allowedProviders: app.allowed_providers,
      allowedMethods: app.allowed_methods,
    });
    requestedTestScenario(app.mode, req.metadata, provider);
    const resumed = claim.resumeId ? await paymentsDb.findPayment(deps.pool, claim.resumeId) : null;
    if (resumed && resumed.status === 'initiated' && resumed.app_id === app.id) {
      if (resumed.provider_ref) return createdResponse(resumed);
      const endpoint = configuredEndpoint(deps, provider, resumed.mode);
      // Claimed first, so the reconciler cannot fail it while this registers it again.
      const deadline = new Date(deps.now() + registrationGraceMs(deps.providerTimeoutMs));
      const claimed = await paymentsDb.claimRegistration(deps.pool, resumed.id, deadline);
      if (claimed) return register(deps, claimed, provider, endpoint);
      const now = await paymentsDb.findPayment(deps.pool, resumed.id);
      if (now?.status === 'initiated' && now.provider_ref) return createdResponse(now);
      // The reconciler resolved it meanwhile (failed: the provider had none); a new payment.
    }
    // Before anything is written: a payment that cannot be registered is never stored.
    const endpoint = configuredEndpoint(deps, provider, app.mode);
    const payment = await insertNew(deps, app, req, provider, claim);
    return register(deps, payment, provider, endpoint);
  });
}

/**
 * The common case in two transactions (issue 28): a valid request with a fresh key (or none).
 * The key is claimed in the payment's own insert, and the provider's answer is stored with
 * the key's completion in one synchronous commit, which is also the reply's durability
 * barrier. Anything else (a bad request, a key seen before) returns undefined before
 * writing anything, and createPayment takes the general path, whose answers and their order
 * (a reused key's conflict before the body's errors) stay as documented.
 */
async function createFresh(
  deps: PaymentServiceDeps,
  app: AppRow,
  rawBody: Buffer,
  idempotencyKey: string | undefined,
): Promise<StoredResponse | undefined> {
  if (idempotencyKey !== undefined && !validIdempotencyKey(idempotencyKey)) return undefined;
  let req: CreatePaymentRequest;
  let provider: ProviderSlug;
  let endpoint: ProviderEndpointConfig;
  try {
    req = parseCreatePayment(parseJsonObject(rawBody));
    provider = routePayment(req.currency, req.method, {
      allowedProviders: app.allowed_providers,
      allowedMethods: app.allowed_methods,
    });
    requestedTestScenario(app.mode, req.metadata, provider);
    endpoint = configuredEndpoint(deps, provider, app.mode);
  } catch (err) {
    if (err instanceof ApiError) return undefined;
    throw err;
  }
  const scope = idempotencyScope(app.id, 'POST /v1/payments', idempotencyKey);
  const claim = scope && { scope, requestHash: bodySha256Hex(rawBody), leaseMs: CLAIM_LEASE_MS };
  const payment = await insertNew(deps, app, req, provider, { scope, resumeId: null }, claim);
  if (!payment) return undefined;
  try {
    return await register(deps, payment, provider, endpoint, scope);
  } catch (err) {
    if (scope) await idem.release(deps.pool, scope).catch(() => undefined);
    throw err;
  }
}

async function insertNew(
  deps: PaymentServiceDeps,
  app: AppRow,
  req: CreatePaymentRequest,
  provider: ProviderSlug,
  claim: Claim,
): Promise<PaymentRow>;
async function insertNew(
  deps: PaymentServiceDeps,
  app: AppRow,
  req: CreatePaymentRequest,
  provider: ProviderSlug,
  claim: Claim,
  fresh: FreshClaim | null,
): Promise<CreatedPayment | null>;
/**
 * The new payment. On the fresh path (`fresh` given: the key to claim, or null without a
 * key) the statement is shared with concurrent creates and the key is claimed in it (the
 * answer is null when the key is taken); otherwise the general path's own statement.
 */
async function insertNew(
  deps: PaymentServiceDeps,
  app: AppRow,
  req: CreatePaymentRequest,
  provider: ProviderSlug,
  claim: Claim,
  fresh?: FreshClaim | null,
): Promise<CreatedPayment | null> {
  const payment = {
    id: newId(),
    app_id: app.id,
    mode: app.mode,
    amount_minor: req.amountMinor,
    currency: req.currency,
    method: req.method,
    provider,
    external_user_id: req.externalUserId,
    email: req.email,
    return_url: req.returnUrl,
    metadata: req.metadata,
  };
  const ctx = {
    invoicePrefix: req.invoicePrefix,
    claim: claim.scope,
    registrationDeadline: new Date(deps.now() + registrationGraceMs(deps.providerTimeoutMs)),
  };
  try {
    return fresh !== undefined
      ? await deps.creations.creates.submit({ payment, ctx, claim: fresh })
      : await paymentsDb.createPaymentRecord(deps.pool, payment, ctx);
  } catch (err) {
    // No writable primary (a failover, a read-only server): the request may be retried as
    // it is, and the error handler answers 503 with Retry-After; with a fresh key the claim
    // is in this statement, so this is where such a failure first shows.
    if (isDatabaseUnavailable(err)) throw err;
    const table = (err as { table?: string }).table;
    deps.log.error({ err }, 'creating the payment record failed');
    throw apiError(table === 'customers' ? 'customer_upsert_failed' : 'payment_create_failed');
  }
}

/** The provider's endpoint for the mode (docs/api.md#modes); none: the checkout fails with 502. */
function configuredEndpoint(
  deps: PaymentServiceDeps,
  slug: ProviderSlug,
  mode: Mode,
): ProviderEndpointConfig {
  const endpoint = deps.providers.endpoint(slug, mode);
  if (!endpoint) throw apiError('provider_checkout_failed', notConfigured(slug, mode));
  return endpoint;
}

/**
 * Registers the payment with its provider and stores the answer. `completing` (the fresh
 * path): the answer is stored with the key's completion (or, without a key, alone) in one
 * synchronous commit, and the response says it is durable.
 */
async function register(
  deps: PaymentServiceDeps,
  payment: CreatedPayment,
  slug: ProviderSlug,
  endpoint: ProviderEndpointConfig,
  completing?: idem.IdempotencyScope | null,
): Promise<StoredResponse> {
  let reg: RegisteredPayment;
  try {
    reg = await deps.providers.get(slug).register(
      { mode: payment.mode, endpoint, timeoutMs: deps.providerTimeoutMs, now: () => deps.now() },
      {
        paymentId: payment.id,
        amountMinor: payment.amount_minor,
        currency: payment.currency,
        method: payment.method,
        email: payment.email,
        externalUserId: payment.external_user_id,
        returnUrl: payment.return_url,
        metadata: payment.metadata,
        directQr: deps.idrPspDirectQr,
      },
    );
  } catch (err) {
    if (err instanceof ProviderError && err.kind === 'rejected') {
      await paymentsDb.markRegistrationRejected(deps.pool, payment.id, err.providerText);
      throw apiError('provider_checkout_failed', err.providerText);
    }
    // Indeterminate: the provider may hold the registration. The payment stays initiated;
    // a retry with the same key resumes it and the reconciler asks the provider later. 504,
    // not 502: only a refusal is final (D15).
    const text = err instanceof ProviderError ? err.providerText : 'provider unreachable';
    deps.log.warn({ err, payment_id: payment.id }, 'provider registration indeterminate');
    await paymentsDb
      .setProviderDeadline(
        deps.pool,
        payment.id,
        new Date(deps.now() + UNANSWERED_REGISTRATION_RECHECK_MS),
      )
      .catch(() => undefined);
    throw apiError('provider_checkout_unknown', text);
  }
  const answer = {
    providerRef: reg.providerRef,
    checkoutUrl: reg.checkoutUrl,
    qrString: reg.qrString ?? null,
    qrImageUrl: reg.qrImageUrl ?? null,
    providerDeadline: reg.expiresAt ?? null,
  };
  let stored: PaymentRow | null;
  try {
    if (completing !== undefined) {
      // What createdResponse makes of the row once stored, if it is still initiated (the
      // statement writes nothing otherwise).
      const response = createdResponse({
        ...payment,
        status: 'initiated',
        checkout_url: answer.checkoutUrl,
        qr_string: answer.qrString,
        qr_image_url: answer.qrImageUrl,
      });
      const completion = completing && { scope: completing, ...response };
      if (await deps.creations.registrations.submit({ id: payment.id, reg: answer, completion })) {
        return { ...response, durable: true };
      }
    }
    stored = await paymentsDb.storeRegistration(deps.pool, payment.id, answer);
  } catch (err) {
    deps.log.error({ err, payment_id: payment.id }, 'storing provider_ref failed');
    throw apiError('store_provider_ref');
  }
  if (!stored) throw apiError('store_provider_ref');
  const response = createdResponse(stored);
  if (!completing) return response;
  await idem.complete(deps.durablePool, completing, response.status, response.body);
  return { ...response, durable: true };
}
