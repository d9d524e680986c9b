import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SimulatorHost } from './host.js';
import { header, rawBody, sendJson, sendText } from './reply.js';
import { basicAuth, formatProviderTime, QR_EXPIRY_MINUTES } from '../providers/idr_psp/wire.js';
import {
  deliverToGateway,
  renderCheckoutPage,
  replyToAction,
  SIM_ACTIONS,
  SimStore,
  type ActionResult,
  type SimClock,
} from './common.js';
import { simulatorEndpoint } from '../providers/testMode.js';
import {
  decideCancel,
  decideRefund,
  hasPendingRefund,
  parseCancelBody,
  settlePendingRefund,
  type CancelOutcome,
} from './idr_psp/refunds.js';
import { faultsFor, REGISTRATION_5XX_TEXT } from './faults.js';
import {
  pendingView,
  registrationFaultOf,
  scenarioOfTransaction,
  settleRefundLater,
} from './idr_psp/faults.js';
import { qrPng } from './idr_psp/qrImage.js';
import {
  applyAction,
  buildIdrNotification,
  expired,
  FINISHED_WORD,
  isDue,
  isChosen,
  isPaid,
  isSimChannel,
  signatureKey,
  choose,
  merchantIdFor,
  newTransaction,
  qrCodeUrl,
  rupiahText,
  SIM_CHANNELS,
  transactionWire,
  type SimChannel,
  type SimRef,
  type SimRefund,
  type SimTransaction,
} from './idr_psp/transactions.js';

export { buildIdrNotification } from './idr_psp/transactions.js';

const SWEEP_INTERVAL_MS = 5_000;

interface Sim {
  gw: SimulatorHost;
  clock: SimClock;
  serverKey: string;
  transactions: SimStore<SimTransaction>;
  refs: SimStore<SimRef>;
}

function simFor(gw: SimulatorHost, clock: SimClock): Sim {
  return {
    gw,
    clock,
    serverKey: simulatorEndpoint('idr_psp', gw.config.masterKey, '').credentials.serverKey ?? '',
    transactions: new SimStore<SimTransaction>(gw.pool, 'idr_psp', 'transaction'),
    refs: new SimStore<SimRef>(gw.pool, 'idr_psp', 'ref'),
  };
}

/** Where browsers (checkout pages, QR images) reach the simulator. */
function publicBase(gw: SimulatorHost): string {
  return `${gw.urls.public}/sim/idr_psp`;
}

async function notify(
  sim: Sim,
  tx: SimTransaction,
  failedRefund?: SimRefund,
): Promise<ActionResult> {
  const send = (t: SimTransaction, refund?: SimRefund) => () => {
    const body = buildIdrNotification(t, sim.serverKey, publicBase(sim.gw), refund);
    return deliverToGateway(sim.gw, 'idr_psp', {}, JSON.stringify(body));
  };
  // docs/testing.md: the payment's test_scenario decides how the notification goes out.
  const earlier = failedRefund ? null : pendingView(tx);
  return faultsFor(sim.gw).deliver(
    scenarioOfTransaction(tx),
    send(tx, failedRefund),
    earlier ? send(earlier) : undefined,
  );
}

/** The paying-wallet actions on a paid transaction with a pending cross-wallet refund. */
const REFUND_ACTIONS = ['refund_succeed', 'refund_fail'] as const;
type RefundAction = (typeof REFUND_ACTIONS)[number];

function isRefundAction(a: string): a is RefundAction {
  return (REFUND_ACTIONS as readonly string[]).includes(a);
}

/** A wallet app name as QRIS issuers are named (gopay, ovo, dana, shopeepay...). */
const WALLET = /^[a-z][a-z0-9_]{0,31}$/;

/** An action parameter from the query string or, for the page's forms, the form body. */
function actionParam(req: FastifyRequest, name: string): string | undefined {
  const q = req.query as Record<string, unknown> | undefined;
  const fromQuery = q?.[name];
  if (typeof fromQuery === 'string') return fromQuery;
  if ((header(req, 'content-type') ?? '').startsWith('application/x-www-form-urlencoded')) {
    return new URLSearchParams(rawBody(req).toString('utf8')).get(name) ?? undefined;
  }
  return undefined;
}

/**
 * Expires every pending transaction past its expiry (QR: 20 minutes of the sim clock) and
 * sends each one's expire notification. Safe on several instances at once: the row lock in
 * SimStore.update lets exactly one of them move a transaction, and only that one notifies.
 */
export async function expireDueIdrTransactions(
  gw: SimulatorHost,
  clock: SimClock,
): Promise<number> {
  const sim = simFor(gw, clock);
  const now = clock.now();
  const due = await gw.pool.query<{ id: string }>(
    `SELECT id FROM sim_objects
      WHERE provider = 'idr_psp' AND kind = 'transaction'
        AND data->>'transaction_status' = 'pending' AND (data->>'expiry_ms')::bigint <= $1
        AND coalesce(data->>'chosen', 'true') <> 'false'
      ORDER BY (data->>'expiry_ms')::bigint LIMIT 100`,
    [now],
  );
  let count = 0;
  for (const { id } of due.rows) {
    let moved = false;
    const tx = await sim.transactions.update(id, (cur) => {
      if (!isDue(cur, now)) return null;
      moved = true;
      return expired(cur);
    });
    if (!moved || !tx) continue;
    count++;
    try {
      const res = await notify(sim, tx);
      gw.log.info(
        { order_id: tx.order_id, gateway_status: res.gateway_status },
        'idr_psp simulator sent expire notification',
      );
    } catch (err) {
      gw.log.warn({ err, order_id: tx.order_id }, 'idr_psp simulator: expire notification failed');
    }
  }
  return count;
}

function authorized(sim: Sim, req: FastifyRequest): boolean {
  const given = Buffer.from(header(req, 'authorization') ?? '', 'utf8');
  const expected = Buffer.from(basicAuth(sim.serverKey), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function parseBody(req: FastifyRequest): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(rawBody(req).toString('utf8'));
    return v !== null && typeof v === 'object' && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

function obj(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : {};
}

const UNAUTHORIZED =
  'Access denied due to unauthorized transaction, please check client or server key';

function snapError(reply: FastifyReply, status: number, ...messages: string[]): FastifyReply {
  return sendJson(reply, status, { error_messages: messages });
}

function coreError(
  reply: FastifyReply,
  status: number,
  statusMessage: string,
  validation?: string[],
): FastifyReply {
  return sendJson(reply, status, {
    status_code: String(status),
    status_message: statusMessage,
    ...(validation ? { validation_messages: validation } : {}),
    id: randomUUID(),
  });
}

/** The charge answer's status_message per channel, as the provider words it. */
const CHARGE_CREATED: Record<SimChannel, string> = {
  other_qris: 'QRIS transaction is created',
  bca_va: 'Success, Bank Transfer transaction is created',
  bni_va: 'Success, Bank Transfer transaction is created',
  bri_va: 'Success, Bank Transfer transaction is created',
  permata_va: 'Success, PERMATA VA transaction is successful',
  echannel: 'OK, Mandiri Bill transaction is successful',
};

/** The channel a Core API charge asks for (payment_type, bank_transfer.bank). */
function chargeChannel(body: Record<string, unknown>): SimChannel | { problem: string } {
  switch (body.payment_type) {
    case 'qris':
      return 'other_qris';
    case 'echannel':
      return 'echannel';
    case 'bank_transfer': {
      const bank = obj(body.bank_transfer).bank;
      const channel = typeof bank === 'string' ? `${bank}_va` : '';
      return isSimChannel(channel)
        ? channel
        : { problem: 'bank_transfer.bank must be one of bca, bni, bri, permata' };
    }
    default:
      return {
        problem: 'payment_type must be qris, bank_transfer or echannel (the channels simulated)',
      };
  }
}

/** The registration rules both Snap and the Core API enforce; null when the request is fine. */
function registrationProblem(
  details: Record<string, unknown>,
  customer: Record<string, unknown>,
  channel: SimChannel,
): string | null {
  const orderId = details.order_id;
  if (typeof orderId !== 'string' || orderId === '' || orderId.length > 50) {
    return 'transaction_details.order_id is required (at most 50 characters)';
  }
  const gross = details.gross_amount;
  if (typeof gross !== 'number' || !Number.isSafeInteger(gross) || gross <= 0) {
    return 'transaction_details.gross_amount must be a positive integer';
  }
  // The QR's amount field (EMV ID 54) holds at most 13 characters.
  if (channel === 'other_qris' && gross > 9_999_999_999_999) {
    return 'transaction_details.gross_amount is too large for qris';
  }
  const email = customer.email;
  if (typeof email !== 'string' || !/^[^\s@]+@[^\s@]+$/.test(email)) {
    const name = channel === 'other_qris' ? 'qris' : channel;
    return typeof email === 'string' && email !== ''
      ? `customer_details.email is not a valid email for ${name}`
      : `customer_details.email is required for ${name}`;
  }
  return null;
}

/** A duplicate order_id is answered with the original, unless it asks for something else. */
function sameRegistration(a: SimTransaction, b: SimTransaction): boolean {
  return a.flow === b.flow && a.channel === b.channel && a.gross_amount === b.gross_amount;
}

async function store(sim: Sim, tx: SimTransaction): Promise<SimTransaction | null> {
  const refs = (t: SimTransaction) =>
    [t.token, t.transaction_id]
      .filter((r): r is string => Boolean(r))
      .map((r) => ({ kind: 'ref', id: r, data: { order_id: t.order_id } }));
  // The transaction and the references that find it, in one statement.
  const { created, data } = await sim.transactions.createLinked(tx.order_id, tx, refs(tx));
  if (!sameRegistration(data, tx)) return null;
  if (!created) {
    // A retried registration answers with the original: make sure its references exist.
    for (const r of refs(data)) await sim.refs.create(r.id, r.data);
  }
  return data;
}

async function byRef(sim: Sim, ref: string): Promise<SimTransaction | null> {
  const r = await sim.refs.get(ref);
  return r ? sim.transactions.get(r.order_id) : null;
}

/**
 * The transaction a Core API path names, by order_id or transaction_id. A Snap order whose
 * buyer has not chosen a channel is no transaction yet: the provider answers 404 for it.
 */
async function coreTransaction(sim: Sim, id: string): Promise<SimTransaction | null> {
  let tx = await sim.transactions.get(id);
  if (!tx) {
    const byId = await byRef(sim, id);
    tx = byId && byId.transaction_id === id ? byId : null;
  }
  return tx && isChosen(tx) ? tx : null;
}

/** The status as the provider would report it now: a pending one past expiry has expired. */
function current(tx: SimTransaction, now: number): SimTransaction {
  return isDue(tx, now) ? expired(tx) : tx;
}

function renderPage(sim: Sim, reply: FastifyReply, ref: string, tx: SimTransaction) {
  const ch = SIM_CHANNELS[tx.channel];
  const view = current(tx, sim.clock.now());
  const details: [string, string][] = [['Order ID', tx.order_id]];
  if (!isChosen(tx)) {
    // No channel chosen yet: Pay (and the other actions) choose the first one offered.
    const offered = (tx.enabled ?? [tx.channel]).map((c) => SIM_CHANNELS[c].label);
    details.push(['Methods offered', offered.join(', ')]);
  } else {
    details.push(['Method', ch.label]);
    if (tx.va_number) details.push(['VA number', tx.va_number]);
    if (tx.bill_key && tx.biller_code) {
      details.push(['Biller code', tx.biller_code], ['Bill key', tx.bill_key]);
    }
    if (tx.qr_string) details.push(['QR string', tx.qr_string]);
  }
  details.push(['Expires', `${formatProviderTime(tx.expiry_ms)} WIB`]);
  return renderCheckoutPage(reply, {
    provider: 'idr_psp',
    title: isChosen(tx)
      ? `Pay ${rupiahText(tx.gross_amount)} with ${ch.label}`
      : `Pay ${rupiahText(tx.gross_amount)}`,
    reference: ref,
    amountText: rupiahText(tx.gross_amount),
    status: view.transaction_status,
    details,
    actionBase: `payments/${ref}`,
    actions: isPaid(tx) && hasPendingRefund(tx) ? REFUND_ACTIONS : SIM_ACTIONS,
    ...(tx.qr_string ? { imageUrl: qrCodeUrl(publicBase(sim.gw), tx) } : {}),
    ...(tx.finish_url ? { returnUrl: tx.finish_url } : {}),
  });
}

/**
 * refund_succeed / refund_fail: the paying wallet settles a pending cross-wallet refund, and
 * the provider notifies (refund or partial_refund; a declined one as a failed refunds[] entry).
 * Optional parameters: refund_key (which pending refund), reason (refund_fail's text).
 */
async function refundAction(
  sim: Sim,
  req: FastifyRequest,
  reply: FastifyReply,
  found: SimTransaction,
  action: RefundAction,
  ref: string,
): Promise<FastifyReply> {
  const refundKey = actionParam(req, 'refund_key');
  const failureMessage = actionParam(req, 'reason');
  const now = sim.clock.now();
  const held: { problem?: string; refund?: SimRefund } = {};
  const tx = await sim.transactions.update(found.order_id, (cur) => {
    const r = settlePendingRefund(cur, action === 'refund_succeed' ? 'succeeded' : 'failed', now, {
      ...(refundKey !== undefined ? { refundKey } : {}),
      ...(failureMessage ? { failureMessage } : {}),
    });
    if ('problem' in r) {
      held.problem = r.problem;
      return null;
    }
    held.refund = r.refund;
    return r.next;
  });
  if (!tx) return sendText(reply, 404, 'unknown reference');
  if (held.problem || !held.refund)
    return sendText(reply, 409, held.problem ?? 'no pending refund');
  let result: ActionResult;
  try {
    result = await notify(sim, tx, held.refund.status === 'failed' ? held.refund : undefined);
  } catch (err) {
    sim.gw.log.warn({ err, order_id: tx.order_id }, 'idr_psp simulator: notification failed');
    return sendText(reply, 502, 'notification delivery to the gateway failed');
  }
  return replyToAction(req.headers.accept, reply, result, {
    pageUrl: `${publicBase(sim.gw)}/payments/${ref}`,
    ...(tx.finish_url ? { returnUrl: tx.finish_url } : {}),
  });
}

/**
 * The buyer chooses a channel on a Snap page (parameter `method`, one of the page's channels;
 * by default the first): the provider's transaction comes into being, pending, and the
 * provider notifies it. Answers the chosen transaction, or null after replying with the
 * refusal (409 for an expired page or a channel already chosen, 400 for a channel not offered).
 */
async function chooseChannel(
  sim: Sim,
  req: FastifyRequest,
  reply: FastifyReply,
  found: SimTransaction,
): Promise<SimTransaction | null> {
  const offered = found.enabled ?? [found.channel];
  const method = actionParam(req, 'method') ?? offered[0];
  if (!isSimChannel(method) || !offered.includes(method)) {
    sendText(reply, 400, `method must be one of ${offered.join(', ')}`);
    return null;
  }
  const now = sim.clock.now();
  let problem = '';
  let changed = false;
  const tx = await sim.transactions.update(found.order_id, (cur) => {
    if (isChosen(cur)) {
      problem = cur.channel === method ? '' : `channel already chosen: ${cur.channel}`;
      return null;
    }
    // The page lapses with the order's expiry; no transaction is ever made (and no notice).
    if (now >= cur.expiry_ms) {
      problem = 'the payment page has expired';
      return null;
    }
    changed = true;
    return choose(cur, method, now);
  });
  if (!tx) {
    sendText(reply, 404, 'unknown reference');
    return null;
  }
  if (problem) {
    sendText(reply, 409, problem);
    return null;
  }
  if (changed) {
    await notify(sim, tx).catch((err: unknown) =>
      sim.gw.log.warn({ err, order_id: tx.order_id }, 'idr_psp simulator: notification failed'),
    );
  }
  return tx;
}

/** docs/api.md#test-mode: the idr_psp simulator (Midtrans-style Snap + Core API), mounted at /sim/idr_psp. */
export function idrPspSimulator(gw: SimulatorHost, clock: SimClock) {
  return async (app: FastifyInstance) => {
    const sim = simFor(gw, clock);

    app.post('/snap/v1/transactions', async (req, reply) => {
      if (!authorized(sim, req)) return snapError(reply, 401, UNAUTHORIZED);
      const body = parseBody(req);
      if (!body) return snapError(reply, 400, 'request body must be a JSON object');
      // No enabled_payments (or an empty list): the page offers every channel.
      const payments = body.enabled_payments ?? [];
      if (!Array.isArray(payments) || !payments.every(isSimChannel)) {
        return snapError(
          reply,
          400,
          `enabled_payments must name channels among ${Object.keys(SIM_CHANNELS).join(', ')}`,
        );
      }
      const enabled: SimChannel[] =
        payments.length > 0 ? [...new Set(payments)] : (Object.keys(SIM_CHANNELS) as SimChannel[]);
      const channel = enabled[0] as SimChannel;
      const details = obj(body.transaction_details);
      const customer = obj(body.customer_details);
      const problem = registrationProblem(details, customer, channel);
      if (problem) return snapError(reply, 400, problem);
      let qrExpiryMinutes: number | undefined;
      if (enabled.length === 1 && channel === 'other_qris' && body.expiry !== undefined) {
        const e = obj(body.expiry);
        const perUnit: Record<string, number> = {
          minute: 1,
          minutes: 1,
          hour: 60,
          hours: 60,
          day: 1440,
          days: 1440,
        };
        const factor = typeof e.unit === 'string' ? perUnit[e.unit] : undefined;
        const minutes =
          factor !== undefined && Number.isSafeInteger(e.duration) && (e.duration as number) > 0
            ? (e.duration as number) * factor
            : null;
        if (minutes === null)
          return snapError(reply, 400, 'expiry.unit or expiry.duration is invalid');
        if (minutes > QR_EXPIRY_MINUTES) {
          return snapError(
            reply,
            400,
            `expiry for qris cannot exceed ${QR_EXPIRY_MINUTES} minutes`,
          );
        }
        qrExpiryMinutes = minutes;
      }
      const finish = obj(body.callbacks).finish;
      const tx = await store(
        sim,
        newTransaction({
          orderId: details.order_id as string,
          flow: 'snap',
          channel,
          enabled,
          grossAmount: details.gross_amount as number,
          email: customer.email as string,
          finishUrl: typeof finish === 'string' ? finish : null,
          merchantId: merchantIdFor(sim.serverKey),
          now: clock.now(),
          ...(qrExpiryMinutes !== undefined ? { qrExpiryMinutes } : {}),
          customField1: typeof body.custom_field1 === 'string' ? body.custom_field1 : null,
        }),
      );
      if (!tx || !tx.token) {
        return snapError(reply, 400, 'transaction_details.order_id has already been taken');
      }
      const fault = await registrationFaultOf(sim.transactions, tx);
      if (fault === 'registration_5xx') return snapError(reply, 500, REGISTRATION_5XX_TEXT);
      if (fault === 'registration_timeout') return faultsFor(gw).loseAnswer(reply);
      return sendJson(reply, 201, {
        token: tx.token,
        redirect_url: `${publicBase(gw)}/snap/v2/vtweb/${tx.token}`,
      });
    });

    app.post('/v2/charge', async (req, reply) => {
      if (!authorized(sim, req)) return coreError(reply, 401, UNAUTHORIZED);
      const body = parseBody(req);
      if (!body) return coreError(reply, 400, 'Request body is not valid JSON');
      const channel = chargeChannel(body);
      if (typeof channel !== 'string') {
        return coreError(reply, 400, 'One or more parameters in the payload is invalid.', [
          channel.problem,
        ]);
      }
      const details = obj(body.transaction_details);
      const problem = registrationProblem(details, obj(body.customer_details), channel);
      if (problem) {
        return coreError(reply, 400, 'One or more parameters in the payload is invalid.', [
          problem,
        ]);
      }
      let qrExpiryMinutes: number | undefined;
      if (body.custom_expiry !== undefined && channel === 'other_qris') {
        const e = obj(body.custom_expiry);
        const perUnit: Record<string, number> = { minute: 1, hour: 60, day: 1440 };
        const factor = typeof e.unit === 'string' ? perUnit[e.unit] : undefined;
        const d = e.expiry_duration;
        if (factor === undefined || typeof d !== 'number' || !Number.isSafeInteger(d) || d <= 0) {
          return coreError(reply, 400, 'One or more parameters in the payload is invalid.', [
            'custom_expiry.expiry_duration and custom_expiry.unit are invalid',
          ]);
        }
        if (d * factor > QR_EXPIRY_MINUTES) {
          return coreError(reply, 400, 'One or more parameters in the payload is invalid.', [
            `custom_expiry for qris cannot exceed ${QR_EXPIRY_MINUTES} minutes`,
          ]);
        }
        qrExpiryMinutes = d * factor;
      }
      const tx = await store(
        sim,
        newTransaction({
          orderId: details.order_id as string,
          flow: 'charge',
          channel,
          grossAmount: details.gross_amount as number,
          email: obj(body.customer_details).email as string,
          finishUrl: null,
          merchantId: merchantIdFor(sim.serverKey),
          now: clock.now(),
          ...(qrExpiryMinutes !== undefined ? { qrExpiryMinutes } : {}),
          customField1: typeof body.custom_field1 === 'string' ? body.custom_field1 : null,
        }),
      );
      const fault = tx && (await registrationFaultOf(sim.transactions, tx));
      if (fault === 'registration_5xx') return coreError(reply, 500, REGISTRATION_5XX_TEXT);
      if (fault === 'registration_timeout') return faultsFor(gw).loseAnswer(reply);
      if (!tx) {
        return coreError(
          reply,
          406,
          'The request could not be completed due to a conflict with the current state of the target resource, please try again',
        );
      }
      const w = transactionWire(current(tx, clock.now()), {
        simBase: publicBase(gw),
        forStatusApi: true,
      });
      const isNew = w.transaction_status === 'pending';
      return sendJson(reply, 200, {
        ...w,
        ...(isNew ? { status_code: '201', status_message: CHARGE_CREATED[channel] } : {}),
      });
    });

    // The Core API names a transaction by order_id or by transaction_id, everywhere.
    app.get<{ Params: { order_id: string } }>('/v2/:order_id/status', async (req, reply) => {
      if (!authorized(sim, req)) return coreError(reply, 401, UNAUTHORIZED);
      const tx = await coreTransaction(sim, req.params.order_id);
      if (!tx) return coreError(reply, 404, "Transaction doesn't exist.");
      const w = transactionWire(current(tx, clock.now()), {
        simBase: publicBase(gw),
        forStatusApi: true,
      });
      return sendJson(reply, 200, { ...w, signature_key: signatureKey(w, sim.serverKey) });
    });

    // Expire: a pending transaction is made unpayable at once (answered 407, then notified).
    app.post<{ Params: { order_id: string } }>('/v2/:order_id/expire', async (req, reply) => {
      if (!authorized(sim, req)) return coreError(reply, 401, UNAUTHORIZED);
      const found = await coreTransaction(sim, req.params.order_id);
      if (!found) return coreError(reply, 404, "Transaction doesn't exist.");
      let moved = false;
      const tx = await sim.transactions.update(found.order_id, (cur) => {
        if (cur.transaction_status !== 'pending') return null;
        moved = true;
        return { ...expired(cur), status_message: 'Transaction expired by the merchant' };
      });
      if (!tx || !moved) {
        return coreError(reply, 412, 'Merchant cannot modify the status of the transaction');
      }
      sendJson(reply, 200, {
        status_code: '407',
        status_message: 'Success, transaction has expired',
        transaction_id: tx.transaction_id,
        order_id: tx.order_id,
        gross_amount: `${tx.gross_amount}.00`,
        currency: tx.currency,
        payment_type: SIM_CHANNELS[tx.channel].paymentType,
        transaction_time: formatProviderTime(tx.transaction_time_ms),
        transaction_status: 'expire',
        fraud_status: 'accept',
      });
      setImmediate(() => {
        notify(sim, tx).catch((err: unknown) =>
          gw.log.warn({ err, order_id: tx.order_id }, 'idr_psp simulator: notification failed'),
        );
      });
      return reply;
    });

    // Core API cancel (pending transactions only) and refund (paid ones; the online direct
    // path is the same operation here).
    const coreAction =
      (op: 'cancel' | 'refund') =>
      async (req: FastifyRequest<{ Params: { order_id: string } }>, reply: FastifyReply) => {
        if (!authorized(sim, req)) return coreError(reply, 401, UNAUTHORIZED);
        // A cancel takes no body (midtrans-client sends `null`); a refund's body is checked.
        const parsed = op === 'cancel' ? { request: null } : parseCancelBody(rawBody(req));
        if (!('request' in parsed)) return sendJson(reply, parsed.http, parsed.body);
        const request = parsed.request;
        const now = clock.now();
        const held: { out?: CancelOutcome } = {};
        const found = await coreTransaction(sim, req.params.order_id);
        if (!found) return coreError(reply, 404, "Transaction doesn't exist.");
        const tx = await sim.transactions.update(found.order_id, (cur) => {
          const out = op === 'cancel' ? decideCancel(cur, now) : decideRefund(cur, request, now);
          held.out = out;
          return out.kind === 'answered' ? null : out.next;
        });
        const out = held.out;
        if (!tx || !out) return coreError(reply, 404, "Transaction doesn't exist.");
        if (out.kind === 'lapsed') {
          await notify(sim, tx).catch((err: unknown) =>
            gw.log.warn({ err, order_id: tx.order_id }, 'idr_psp simulator: notification failed'),
          );
        }
        // docs/testing.md: refund_timeout loses the answer; refund_pending settles it later.
        const scenario = out.kind === 'refunded' ? scenarioOfTransaction(tx) : null;
        if (scenario === 'refund_timeout') return faultsFor(gw).loseAnswer(reply);
        if (scenario === 'refund_pending' && typeof out.answer.body.refund_key === 'string') {
          const key = out.answer.body.refund_key;
          settleRefundLater(
            faultsFor(gw),
            sim.transactions,
            () => clock.now(),
            tx.order_id,
            key,
            (t) => notify(sim, t),
          );
        }
        sendJson(reply, out.answer.http, out.answer.body);
        if (out.kind === 'canceled') {
          // Like the provider, the notification follows the answer rather than preceding it.
          setImmediate(() => {
            notify(sim, tx).then(
              (res) =>
                gw.log.info(
                  { order_id: tx.order_id, gateway_status: res.gateway_status },
                  'idr_psp simulator sent cancel notification',
                ),
              (err: unknown) =>
                gw.log.warn(
                  { err, order_id: tx.order_id },
                  'idr_psp simulator: notification failed',
                ),
            );
          });
        }
        return reply;
      };
    app.post('/v2/:order_id/cancel', coreAction('cancel'));
    app.post('/v2/:order_id/refund', coreAction('refund'));
    app.post('/v2/:order_id/refund/online/direct', coreAction('refund'));

    app.get<{ Params: { token: string } }>('/snap/v2/vtweb/:token', async (req, reply) => {
      const tx = await byRef(sim, req.params.token);
      if (!tx || tx.token !== req.params.token) return sendText(reply, 404, 'unknown reference');
      return renderPage(sim, reply, req.params.token, tx);
    });

    app.get<{ Params: { ref: string } }>('/payments/:ref', async (req, reply) => {
      const tx = await byRef(sim, req.params.ref);
      if (!tx) return sendText(reply, 404, 'unknown reference');
      return renderPage(sim, reply, req.params.ref, tx);
    });

    // The Core API's generate-qr-code action. Browsers navigating here (it is the checkout_url
    // of a direct QR payment) get the checkout page; image requests get the QR picture.
    app.get<{ Params: { id: string } }>('/v2/qris/:id/qr-code', async (req, reply) => {
      const tx = await byRef(sim, req.params.id);
      if (!tx || tx.transaction_id !== req.params.id || !tx.qr_string) {
        return sendText(reply, 404, 'unknown reference');
      }
      if ((header(req, 'accept') ?? '').includes('text/html')) {
        return renderPage(sim, reply, req.params.id, tx);
      }
      return reply
        .code(200)
        .type('image/png')
        .send(await qrPng(tx.qr_string));
    });

    app.post<{ Params: { ref: string; action: string } }>(
      '/payments/:ref/:action',
      async (req, reply) => {
        const { ref, action } = req.params;
        let found = await byRef(sim, ref);
        if (!found) return sendText(reply, 404, 'unknown reference');
        if (isRefundAction(action)) return refundAction(sim, req, reply, found, action, ref);
        if (action !== 'choose' && !(SIM_ACTIONS as readonly string[]).includes(action)) {
          return sendText(reply, 404, 'unknown action');
        }
        if (!isChosen(found) || action === 'choose') {
          const picked = await chooseChannel(sim, req, reply, found);
          if (!picked) return reply;
          found = picked;
          if (action === 'choose') {
            return sendJson(reply, 200, {
              ...transactionWire(found, { simBase: publicBase(gw), forStatusApi: true }),
            });
          }
        }
        const act = action as (typeof SIM_ACTIONS)[number];
        const wallet = act === 'pay' ? actionParam(req, 'wallet') : undefined;
        if (wallet !== undefined) {
          if (found.qr_string === null) {
            return sendText(reply, 400, 'wallet applies to QRIS payments only');
          }
          if (!WALLET.test(wallet)) {
            return sendText(reply, 400, 'wallet must be a wallet name such as gopay or ovo');
          }
        }
        const now = clock.now();
        let outcome = 'finished' as 'applied' | 'lapsed' | 'finished';
        const tx = await sim.transactions.update(found.order_id, (cur) => {
          if (cur.transaction_status !== 'pending') {
            outcome = 'finished';
            return null;
          }
          // Past its expiry the provider has already expired it; only that can be reported.
          if (isDue(cur, now) && act !== 'expire') {
            outcome = 'lapsed';
            return expired(cur);
          }
          outcome = 'applied';
          return applyAction(cur, act, now, wallet ?? null);
        });
        if (!tx) return sendText(reply, 404, 'unknown reference');
        if (outcome === 'finished' || outcome === 'lapsed') {
          if (outcome === 'lapsed') {
            await notify(sim, tx).catch((err: unknown) =>
              gw.log.warn({ err, order_id: tx.order_id }, 'idr_psp simulator: notification failed'),
            );
          }
          const status = tx.transaction_status;
          const word = status === 'pending' ? 'pending' : FINISHED_WORD[status];
          return sendText(reply, 409, `transaction already ${word}`);
        }
        let result: ActionResult;
        try {
          result = await notify(sim, tx);
        } catch (err) {
          gw.log.warn({ err, order_id: tx.order_id }, 'idr_psp simulator: notification failed');
          return sendText(reply, 502, 'notification delivery to the gateway failed');
        }
        return replyToAction(req.headers.accept, reply, result, {
          pageUrl: `${publicBase(gw)}/payments/${ref}`,
          ...(tx.finish_url ? { returnUrl: tx.finish_url } : {}),
        });
      },
    );

    let sweeping = false;
    const timer = setInterval(() => {
      if (sweeping || gw.phase !== 'ready') return;
      sweeping = true;
      expireDueIdrTransactions(gw, clock)
        .catch((err: unknown) => gw.log.warn({ err }, 'idr_psp simulator: expiry sweep failed'))
        .finally(() => {
          sweeping = false;
        });
    }, SWEEP_INTERVAL_MS);
    timer.unref();
    app.addHook('onClose', async () => clearInterval(timer));
    app.addHook('onClose', async () => faultsFor(gw).close());
  };
}
