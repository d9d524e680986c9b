/**
 * Reference for the webhook scenario (bench/scenarios/webhook.ts): the least a correct Node
 * service does with an idr_psp settlement notification, to read the gateway's figures
 * against. A bare Fastify route, as the GET reference (get-server.ts): the gateway is built
 * on Fastify too, so the ratio is what the gateway does on top of its framework.
 *
 * Per notification: the signature_key checked and the body parsed by the gateway's own
 * functions; the provider's status API asked through the gateway's own HTTP client (a
 * notification's signature covers three fields only, so its status is a hint); one
 * conditional UPDATE with a synchronous commit (the outcome is on disk before the provider
 * hears 200 and before the app hears of it); the answer; then the signed delivery to the
 * app's receiver and its attempt recorded with an asynchronous commit. Nothing else: no
 * archive of the body, no event or delivery rows, no retries, no ledger.
 */
import http from 'node:http';
import Fastify from 'fastify';
import pg from 'pg';
import { signWebhook } from '../../src/delivery/signer.js';
import { paymentEventBody } from '../../src/domain/events.js';
import { newEventId } from '../../src/domain/ids.js';
import { providerExchange } from '../../src/providers/http.js';
import { mapTransactionStatus, type StatusFields } from '../../src/providers/idr_psp/mapping.js';
import { parseNotification, verifyNotification } from '../../src/providers/idr_psp/webhook.js';
import { basicAuth } from '../../src/providers/idr_psp/wire.js';
import type { InboundAction, InboundEvent } from '../../src/providers/types.js';

const env = (name: string) => process.env[name] ?? '';
/** The idr_psp simulator's base (…/sim/idr_psp), as the gateway's registry builds it. */
const providerUrl = env('REF_PROVIDER_URL');
const serverKey = env('REF_SERVER_KEY');
const webhookUrl = new URL(env('REF_WEBHOOK_URL'));
const webhookSecret = env('REF_WEBHOOK_SECRET');
// The gateway's defaults (PROVIDER_TIMEOUT_MS, DELIVERY_TIMEOUT_MS).
const PROVIDER_TIMEOUT_MS = 15_000;
const DELIVERY_TIMEOUT_MS = 10_000;

const pool = (synchronousCommit: 'on' | 'off', max: number) => {
  const p = new pg.Pool({
    connectionString: env('DATABASE_URL'),
    max,
    application_name: 'reference',
    options: `-c synchronous_commit=${synchronousCommit}`,
  });
  // A connection ended by the server (a shared machine) must not end the run.
  p.on('error', () => undefined);
  return p;
};
// As many connections as the gateway's main pool; attempt records need no more than the
// deliveries in flight.
const durable = pool('on', 20);
const records = pool('off', 8);

// Kept alive, at most DELIVERY_ENDPOINT_CONCURRENCY's default (8) requests at once to the
// app's receiver, as the gateway's delivery worker sends to one app.
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

interface Finalized {
  id: string;
  amount_minor: string;
  currency: string;
  provider_ref: string;
  metadata: Record<string, unknown>;
}

/** POST of the payment.succeeded event to the app, then its attempt recorded. */
function deliver(p: Finalized): void {
  const body = paymentEventBody(
    'payment.succeeded',
    {
      id: p.id,
      status: 'succeeded',
      amount_minor: Number(p.amount_minor),
      currency: p.currency,
      method: 'qris',
      provider: 'idr_psp',
      provider_ref: p.provider_ref,
      metadata: p.metadata,
    },
    new Date(),
  );
  const ts = String(Math.floor(Date.now() / 1000));
  const payload = Buffer.from(body, 'utf8');
  const record = (status: number | null) => {
    records
      .query(
        `UPDATE bench_ref_webhook SET delivery_attempts = delivery_attempts + 1,
           delivery_status = $2, delivered_at = now() WHERE id = $1`,
        [p.id, status],
      )
      .catch(() => undefined);
  };
  const req = http.request(
    webhookUrl,
    {
      method: 'POST',
      agent,
      headers: {
        'content-type': 'application/json',
        'content-length': String(payload.length),
        'x-pay-timestamp': ts,
        'x-pay-signature': signWebhook(webhookSecret, ts, body),
        'x-pay-event-id': newEventId(),
        'user-agent': 'Paygate-Webhooks/1',
      },
    },
    (res) => {
      res.resume();
      res.on('end', () => record(res.statusCode ?? null));
    },
  );
  // An attempt is bounded, as the gateway's: a receiver that never answers holds no socket.
  const timer = setTimeout(() => req.destroy(new Error('timeout')), DELIVERY_TIMEOUT_MS);
  req.on('close', () => clearTimeout(timer));
  req.on('error', () => record(null));
  req.end(payload);
}

const app = Fastify({ logger: false });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, b, done) => done(null, b));
app.get('/ready', async () => 'ok');
app.post('/webhooks/idr_psp', async (req, reply) => {
  const raw = req.body as Buffer;
  if (!verifyNotification(serverKey, raw)) {
    return reply.code(401).type('text/plain; charset=utf-8').send('bad signature');
  }
  let event: InboundEvent;
  try {
    // Parsed once: the verification's parse of the same Buffer is reused.
    event = parseNotification(raw);
  } catch {
    return reply.code(400).type('text/plain; charset=utf-8').send('bad reference');
  }
  const id = event.paymentId as string; // parseNotification's order_id, always present
  if (event.action.kind !== 'payment') return reply.code(200).send({ acknowledged: true });
  let tx: Partial<StatusFields>;
  let action: InboundAction;
  try {
    const answer = await providerExchange(`${providerUrl}/v2/${encodeURIComponent(id)}/status`, {
      method: 'GET',
      headers: { accept: 'application/json', authorization: basicAuth(serverKey) },
      timeoutMs: PROVIDER_TIMEOUT_MS,
    });
    tx = JSON.parse(answer.text) as Partial<StatusFields>;
    if (answer.status !== 200 || typeof tx.transaction_status !== 'string') throw new Error();
    // The provider's answer decides, read by the gateway's own mapping.
    action = mapTransactionStatus({
      transaction_status: tx.transaction_status,
      gross_amount: tx.gross_amount ?? '',
      status_message: tx.status_message ?? '',
      transaction_id: tx.transaction_id ?? '',
      currency: tx.currency ?? 'IDR',
    });
  } catch {
    // Unconfirmed: the provider sends the notification again.
    return reply.code(503).send({ error: 'unavailable' });
  }
  if (action.kind !== 'payment' || action.outcome !== 'succeeded') {
    return reply.code(200).send({ acknowledged: true, action: 'none' });
  }
  // Only an initiated payment of the amount paid is finalized: a redelivery changes nothing,
  // and money that does not match is never recorded as this payment's.
  const res = await durable.query<Finalized>(
    `UPDATE bench_ref_webhook SET status = 'succeeded', provider_ref = $2, finalized_at = now()
     WHERE id = $1 AND status = 'initiated' AND amount_minor = $3 AND currency = $4
     RETURNING id, amount_minor, currency, provider_ref, metadata`,
    [id, tx.transaction_id ?? '', action.paid.amountMinor, action.paid.currency],
  );
  const finalized = res.rows[0];
  if (!finalized) return reply.code(200).send({ acknowledged: true, action: 'none' });
  // The answer is handed to the socket before the delivery starts.
  reply.code(200).send({ acknowledged: true });
  deliver(finalized);
  return reply;
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
