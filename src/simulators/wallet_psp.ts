import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SimulatorHost } from './host.js';
import { header, rawBody, sendJson, sendText } from './reply.js';
import {
  WP_HEADER,
  type WpCapture,
  type WpOrder,
  type WpResourceType,
  type WpWebhookEvent,
} from '../providers/wallet_psp/wire.js';
import { simulatorEndpoint } from '../providers/testMode.js';
import { faultsFor, REGISTRATION_5XX_TEXT, registrationFault } from './faults.js';
import { pendingCapture, scenarioOfOrder } from './wallet_psp/faults.js';
import {
  SIM_ACTIONS,
  SimStore,
  deliverToGateway,
  renderCheckoutPage,
  replyToAction,
  type ActionResult,
  type SimClock,
} from './common.js';
import {
  TOKEN_LIFETIME_S,
  WpApiError,
  amountText,
  apiError,
  awaitsPayer,
  newAccessToken,
  newCapture,
  newOrder,
  orderCapture,
  providerId,
  providerTime,
  validateCreate,
  type SimOrder,
  type SimToken,
} from './wallet_psp/orders.js';
import {
  certPath,
  loadSigningKey,
  transmissionHeaders,
  verifyTransmission,
  type SigningKey,
  type SigningKeyRecord,
} from './wallet_psp/signing.js';
import { registerRefundRoutes } from './wallet_psp/refunds.js';
import { registerReportingRoutes } from './wallet_psp/reporting.js';

type SimAction = (typeof SIM_ACTIONS)[number];

function isSimAction(a: string): a is SimAction {
  return (SIM_ACTIONS as readonly string[]).includes(a);
}

function sameSecret(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

function sendApiError(reply: FastifyReply, err: WpApiError): FastifyReply {
  return sendJson(reply, err.status, err.body);
}

function notFound(id: string): WpApiError {
  return apiError(404, {
    field: 'order_id',
    value: id,
    location: 'path',
    issue: 'INVALID_RESOURCE_ID',
    description:
      'Specified resource ID does not exist. Please check the resource ID and try again.',
  });
}

/** The wallet provider as seen from outside: everything the adapter and the buyer talk to. */
export interface WalletPspSim {
  /** Base URL of the provider API (the adapter's baseUrl in test mode). */
  apiBase(): string;
  credentials(): Record<string, string>;
  signingKey(): Promise<SigningKey>;
  /** A webhook exactly as the provider would transmit it: body and signed headers. */
  signedEvent(
    eventType: string,
    resourceType: WpResourceType,
    resource: unknown,
    summary: string,
  ): Promise<{ headers: Record<string, string>; body: string }>;
  orders: SimStore<SimOrder>;
  tokens: SimStore<SimToken>;
}

const keyCache = new WeakMap<SimulatorHost, Promise<SigningKey>>();

export function walletPspSim(gw: SimulatorHost, clock: SimClock): WalletPspSim {
  const keys = new SimStore<SigningKeyRecord>(gw.pool, 'wallet_psp', 'signing_key');
  const apiBase = () => `${gw.urls.internal}/sim/wallet_psp`;
  const credentials = () =>
    simulatorEndpoint('wallet_psp', gw.config.masterKey, apiBase()).credentials;
  const signingKey = () => {
    let p = keyCache.get(gw);
    if (!p) {
      p = loadSigningKey(keys, clock.now());
      // A failed load (database hiccup) must not stick: the next event tries again.
      p.catch(() => keyCache.delete(gw));
      keyCache.set(gw, p);
    }
    return p;
  };
  return {
    apiBase,
    credentials,
    signingKey,
    async signedEvent(eventType, resourceType, resource, summary) {
      const now = clock.now();
      const event: WpWebhookEvent = {
        id: `WH-${providerId(17)}-${providerId(17)}`,
        event_version: '1.0',
        create_time: providerTime(now),
        resource_type: resourceType,
        resource_version: '2.0',
        event_type: eventType,
        summary,
        resource,
        links: [],
      };
      const body = JSON.stringify(event);
      const headers = transmissionHeaders({
        key: await signingKey(),
        baseUrl: apiBase(),
        webhookId: credentials().webhookId ?? '',
        body,
        now,
      });
      return { headers, body };
    },
    orders: new SimStore<SimOrder>(gw.pool, 'wallet_psp', 'order'),
    tokens: new SimStore<SimToken>(gw.pool, 'wallet_psp', 'access_token'),
  };
}

/**
 * The wallet provider simulator (PayPal REST style): OAuth2 client credentials, Orders v2
 * create/get/capture, webhook certificates, the buyer's approval page and the scripted
 * buyer actions of docs/api.md#test-mode; capture refunds and the reporting API (balances, payouts) are in simulators/wallet_psp/.
 */
export function walletPspSimulator(gw: SimulatorHost, clock: SimClock) {
  const sim = walletPspSim(gw, clock);
  const { orders, tokens } = sim;
  const publicBase = () => `${gw.urls.public}/sim/wallet_psp`;
  const pageUrl = (id: string) => `${publicBase()}/checkoutnow?token=${encodeURIComponent(id)}`;

  async function deliver(
    eventType: string,
    resourceType: WpResourceType,
    resource: unknown,
    summary: string,
  ): Promise<ActionResult> {
    const { headers, body } = await sim.signedEvent(eventType, resourceType, resource, summary);
    return deliverToGateway(gw, 'wallet_psp', headers, body);
  }

  function deliverCapture(order: WpOrder, capture: WpCapture): Promise<ActionResult> {
    const amount = `${capture.amount.value} ${capture.amount.currency_code}`;
    const resource: WpCapture = {
      ...capture,
      links: [
        { href: `${sim.apiBase()}/v2/checkout/orders/${order.id}`, rel: 'up', method: 'GET' },
      ],
    };
    const send = () =>
      capture.status === 'COMPLETED'
        ? deliver(
            'PAYMENT.CAPTURE.COMPLETED',
            'capture',
            resource,
            `Payment completed for ${amount}`,
          )
        : deliver('PAYMENT.CAPTURE.DENIED', 'capture', resource, `Payment denied for ${amount}`);
    // docs/testing.md: the order's test_scenario decides how the capture event goes out.
    const stale = () =>
      deliver(
        'PAYMENT.CAPTURE.PENDING',
        'capture',
        pendingCapture(resource),
        `Payment pending for ${amount}`,
      );
    return faultsFor(gw).deliver(scenarioOfOrder(order), send, stale);
  }

  /** Bearer token of an API call, or null after answering 401 as the provider does. */
  async function authorize(req: FastifyRequest, reply: FastifyReply): Promise<SimToken | null> {
    const auth = header(req, 'authorization') ?? '';
    const m = /^Bearer (\S+)$/.exec(auth);
    const token = m?.[1] ? await tokens.get(m[1]) : null;
    if (!token || token.expiresAt <= clock.now()) {
      sendJson(reply, 401, {
        error: 'invalid_token',
        error_description: token ? 'Access Token expired' : 'Token signature verification failed',
      });
      return null;
    }
    return token;
  }

  return async (app: FastifyInstance) => {
    registerRefundRoutes(app, { gw, clock, apiBase: sim.apiBase, orders, authorize, deliver });
    registerReportingRoutes(app, { gw, clock, authorize });

    // The provider's own check of a webhook delivery, for merchants that do not verify the
    // certificate themselves (the adapter's fallback).
    app.post('/v1/notifications/verify-webhook-signature', async (req, reply) => {
      if (!(await authorize(req, reply))) return reply;
      let body: unknown;
      try {
        body = JSON.parse(rawBody(req).toString('utf8'));
      } catch {
        body = null;
      }
      const fields = [
        'auth_algo',
        'cert_url',
        'transmission_id',
        'transmission_sig',
        'transmission_time',
        'webhook_id',
      ];
      const b = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
      const missing = fields.find((f) => typeof b[f] !== 'string' || b[f] === '');
      const event = b.webhook_event;
      if (missing || typeof event !== 'object' || event === null) {
        return sendApiError(
          reply,
          apiError(400, {
            field: missing ?? 'webhook_event',
            location: 'body',
            issue: 'MISSING_REQUIRED_PARAMETER',
            description: 'A required field is missing.',
          }),
        );
      }
      const status = verifyTransmission(
        await sim.signingKey(),
        sim.credentials().webhookId ?? '',
        b,
      );
      return sendJson(reply, 200, { verification_status: status });
    });

    app.post('/v1/oauth2/token', async (req, reply) => {
      const creds = sim.credentials();
      const m = /^Basic (\S+)$/.exec(header(req, 'authorization') ?? '');
      const decoded = m?.[1] ? Buffer.from(m[1], 'base64').toString('utf8') : '';
      const sep = decoded.indexOf(':');
      const clientId = sep === -1 ? '' : decoded.slice(0, sep);
      const secret = sep === -1 ? '' : decoded.slice(sep + 1);
      if (
        !sameSecret(clientId, creds.clientId ?? '') ||
        !sameSecret(secret, creds.clientSecret ?? '')
      ) {
        return sendJson(reply, 401, {
          error: 'invalid_client',
          error_description: 'Client Authentication failed',
        });
      }
      const form = new URLSearchParams(rawBody(req).toString('utf8'));
      if (form.get('grant_type') !== 'client_credentials') {
        return sendJson(reply, 400, {
          error: 'unsupported_grant_type',
          error_description: 'Grant Type is NULL or not supported',
        });
      }
      const accessToken = newAccessToken();
      await tokens.create(accessToken, {
        clientId,
        expiresAt: clock.now() + TOKEN_LIFETIME_S * 1000,
      });
      return sendJson(reply, 200, {
        scope: 'https://uri.paypal.com/services/payments/payment',
        access_token: accessToken,
        token_type: 'Bearer',
        app_id: `APP-${clientId.slice(1, 18).toUpperCase()}`,
        expires_in: TOKEN_LIFETIME_S,
        nonce: `${providerTime(clock.now())}${providerId(20)}`,
      });
    });

    app.post('/v2/checkout/orders', async (req, reply) => {
      const token = await authorize(req, reply);
      if (!token) return reply;
      let body: unknown;
      try {
        body = JSON.parse(rawBody(req).toString('utf8'));
      } catch {
        body = undefined;
      }
      const valid = validateCreate(body);
      if (valid instanceof WpApiError) return sendApiError(reply, valid);
      const requestId = header(req, WP_HEADER.requestId);
      const orderId = providerId();
      const order = newOrder(valid, {
        orderId,
        now: clock.now(),
        apiBase: sim.apiBase(),
        publicBase: publicBase(),
      });
      const stored = await orders.create(
        orderId,
        {
          order,
          clientId: token.clientId,
          approval: null,
          captureRequestId: null,
          actionInFlight: false,
          captureEventPending: false,
        },
        requestId ? `${token.clientId}:${requestId}` : null,
      );
      // docs/testing.md: the first answer of a registration_* scenario is lost or a 500.
      const created = stored.data.order;
      const fault = await registrationFault(orders, created.id, scenarioOfOrder(created));
      if (fault === 'registration_5xx') {
        return sendJson(reply, 500, {
          name: 'INTERNAL_SERVER_ERROR',
          message: REGISTRATION_5XX_TEXT,
          debug_id: providerId(13).toLowerCase(),
        });
      }
      if (fault === 'registration_timeout') return faultsFor(gw).loseAnswer(reply);
      // A replayed request id answers with the original order, 200 instead of 201.
      return sendJson(reply, stored.created ? 201 : 200, stored.data.order);
    });

    app.get<{ Params: { id: string } }>('/v2/checkout/orders/:id', async (req, reply) => {
      const token = await authorize(req, reply);
      if (!token) return reply;
      const found = await orders.get(req.params.id);
      if (!found || found.clientId !== token.clientId) {
        return sendApiError(reply, notFound(req.params.id));
      }
      return sendJson(reply, 200, found.order);
    });

    app.post<{ Params: { id: string } }>('/v2/checkout/orders/:id/capture', async (req, reply) => {
      const token = await authorize(req, reply);
      if (!token) return reply;
      const id = req.params.id;
      const requestId = header(req, WP_HEADER.requestId) ?? null;
      const now = clock.now();
      let refusal = null as WpApiError | null;
      let replay = false;
      let sendNow = false;
      const updated = await orders.update(id, (o) => {
        if (o.clientId !== token.clientId) {
          refusal = notFound(id);
          return null;
        }
        const status = o.order.status;
        if (status === 'COMPLETED') {
          if (requestId && requestId === o.captureRequestId) replay = true;
          else {
            refusal = apiError(422, {
              issue: 'ORDER_ALREADY_CAPTURED',
              description:
                "Order already captured. If 'intent=CAPTURE' only one capture per order is allowed.",
            });
          }
          return null;
        }
        if (status !== 'APPROVED') {
          refusal = apiError(422, {
            issue: status === 'VOIDED' ? 'ORDER_VOIDED' : 'ORDER_NOT_APPROVED',
            description:
              status === 'VOIDED'
                ? 'The order was voided and can no longer be captured.'
                : 'Payer has not yet approved the Order for payment.',
          });
          return null;
        }
        const capture = newCapture(o.order, o.approval === 'fail', now);
        const [unit, ...rest] = o.order.purchase_units;
        if (!unit) return null;
        // Captured during a buyer action: that action sends the capture's event after the
        // gateway has answered the approval; otherwise it is sent from here.
        sendNow = !o.actionInFlight;
        return {
          ...o,
          order: {
            ...o.order,
            status: 'COMPLETED',
            update_time: providerTime(now),
            purchase_units: [{ ...unit, payments: { captures: [capture] } }, ...rest],
          },
          captureRequestId: requestId,
          captureEventPending: !sendNow,
        };
      });
      if (!updated) return sendApiError(reply, notFound(id));
      if (refusal) return sendApiError(reply, refusal);
      if (replay) return sendJson(reply, 200, updated.order);
      const capture = orderCapture(updated.order);
      if (sendNow && capture) {
        const order = updated.order;
        setTimeout(() => {
          deliverCapture(order, capture).catch((err: unknown) =>
            gw.log.warn({ err, order_id: order.id }, 'wallet_psp simulator: capture event failed'),
          );
        }, 10);
      }
      return sendJson(reply, 201, updated.order);
    });

    app.get<{ Params: { name: string } }>('/v1/notifications/certs/:name', async (req, reply) => {
      const key = await sim.signingKey();
      if (certPath(key.keyId) !== `/v1/notifications/certs/${req.params.name}`) {
        return sendText(reply, 404, 'not found');
      }
      return reply.code(200).type('application/x-pem-file').send(key.certificatePem);
    });

    app.get<{ Querystring: { token?: string } }>('/checkoutnow', async (req, reply) => {
      const id = req.query.token ?? '';
      const found = id ? await orders.get(id) : null;
      if (!found) return sendText(reply, 404, 'unknown reference');
      const order = found.order;
      const unit = order.purchase_units[0];
      const details: [string, string][] = [];
      if (unit?.custom_id) details.push(['Merchant reference', unit.custom_id]);
      const email = order.payment_source?.paypal?.email_address;
      if (email) details.push(['Buyer', email]);
      const returnUrl = order.payment_source?.paypal?.experience_context?.return_url;
      return renderCheckoutPage(reply, {
        provider: 'wallet_psp',
        title: 'Pay with your wallet',
        reference: order.id,
        amountText: amountText(order),
        status: order.status,
        details,
        actionBase: `payments/${order.id}`,
        ...(returnUrl ? { returnUrl } : {}),
      });
    });

    app.post<{ Params: { ref: string; action: string } }>(
      '/payments/:ref/:action',
      async (req, reply) => {
        const { ref, action } = req.params;
        if (!isSimAction(action)) return sendText(reply, 404, 'unknown action');
        const now = clock.now();
        let refusal = null as string | null;
        const updated = await orders.update(ref, (o) => {
          const status = o.order.status;
          const base = { ...o.order, update_time: providerTime(now) };
          if (action === 'pay' || action === 'fail') {
            if (!awaitsPayer(o.order)) {
              refusal = `cannot ${action}: order ${ref} is ${status}, not CREATED or PAYER_ACTION_REQUIRED`;
              return null;
            }
            return {
              ...o,
              approval: action,
              actionInFlight: true,
              order: {
                ...base,
                status: 'APPROVED',
                payer: {
                  payer_id: providerId(13),
                  ...(o.order.payment_source?.paypal?.email_address
                    ? { email_address: o.order.payment_source.paypal.email_address }
                    : {}),
                },
              },
            };
          }
          if ((!awaitsPayer(o.order) && status !== 'APPROVED') || o.actionInFlight) {
            refusal = `cannot ${action}: order ${ref} is ${status}${o.actionInFlight ? ' and being captured' : ''}`;
            return null;
          }
          return { ...o, order: { ...base, status: 'VOIDED' } };
        });
        if (!updated) return sendText(reply, 404, 'unknown reference');
        if (refusal) return sendText(reply, 409, refusal);
        const returnUrl = updated.order.payment_source?.paypal?.experience_context?.return_url;
        const back = { pageUrl: pageUrl(ref), ...(returnUrl ? { returnUrl } : {}) };

        let result: ActionResult;
        try {
          if (action === 'cancel' || action === 'expire') {
            const summary =
              action === 'cancel'
                ? 'Checkout Order voided: canceled by the payer'
                : 'Checkout Order voided: expired before it was captured';
            result = await faultsFor(gw).deliver(scenarioOfOrder(updated.order), () =>
              deliver('CHECKOUT.ORDER.VOIDED', 'checkout-order', updated.order, summary),
            );
          } else {
            result = await approveAndSettle(ref, updated.order);
          }
        } catch (err) {
          gw.log.warn({ err, order_id: ref }, 'wallet_psp simulator: gateway unreachable');
          return sendText(reply, 502, 'simulator could not reach the gateway');
        }
        return replyToAction(req.headers.accept, reply, result, back);
      },
    );
  };

  /**
   * The wallet flow: the approval goes to the gateway, which captures while handling it;
   * then the capture's own event (COMPLETED, or DENIED for Fail) settles the payment. The
   * answer reported is that of the last event sent.
   */
  async function approveAndSettle(ref: string, order: WpOrder): Promise<ActionResult> {
    let approved: ActionResult;
    let claimed: SimOrder | null = null;
    try {
      approved = await faultsFor(gw).deliver(scenarioOfOrder(order), () =>
        deliver(
          'CHECKOUT.ORDER.APPROVED',
          'checkout-order',
          order,
          'An order has been approved by buyer',
        ),
      );
    } finally {
      await orders.update(ref, (o) => {
        if (o.captureEventPending && orderCapture(o.order)) {
          claimed = o;
          return { ...o, actionInFlight: false, captureEventPending: false };
        }
        return { ...o, actionInFlight: false };
      });
    }
    const settled = claimed as SimOrder | null;
    const capture = settled ? orderCapture(settled.order) : undefined;
    if (!settled || !capture) return approved;
    return deliverCapture(settled.order, capture);
  }
}
