/**
 * A small merchant web app on @paygate/node: products, a QRIS checkout, a webhook endpoint
 * and an order page that shows the payment's status live. Orders live in memory: this is
 * an example, a real shop keeps them in its database.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
// In your app: import { Paygate, ... } from '@paygate/node';
import {
  Paygate,
  PaygateAuthenticationError,
  PaygateError,
  PaygateNotFoundError,
  PaygateWebhookError,
  type PaymentStatus,
  type WebhookEvent,
} from '../../sdk/src/index.js';
import { errorPage, orderPage, productsPage } from './pages.js';

export interface Product {
  id: string;
  name: string;
  description: string;
  /** Whole rupiah (IDR has no minor unit). */
  amount: number;
}

export const PRODUCTS: readonly Product[] = [
  {
    id: 'kopi',
    name: 'Kopi Toraja',
    description: '250 g of single-origin beans from South Sulawesi.',
    amount: 85_000,
  },
  {
    id: 'teh',
    name: 'Teh Melati',
    description: '100 g of jasmine tea from Central Java.',
    amount: 42_000,
  },
];

export interface Order {
  id: string;
  product: Product;
  email: string;
  paymentId: string;
  checkoutUrl: string;
  qrString?: string;
  qrImageUrl?: string;
  status: PaymentStatus;
  /** Webhook events recorded for this order, deduplicated on X-PAY-Event-Id. */
  events: { id: string; type: WebhookEvent['event']; timestamp: string }[];
}

export interface AppCredentials {
  apiKey: string;
  signingSecret: string;
  webhookSecret: string;
}

export interface ShopOptions {
  gatewayUrl: string;
  /**
   * Without credentials: the test-mode app named "Example shop" is found, or created once,
   * through the admin API.
   */
  adminToken?: string;
  /** Keeps that app's id and keys across starts (`npm run example:shop`: DATA_DIR/example-shop-app.json). */
  stateFile?: string;
  credentials?: AppCredentials;
  port?: number;
  host?: string;
  /** How the gateway and browsers reach the shop; default http://<host>:<port>. */
  publicUrl?: string;
}

export interface RunningShop {
  url: string;
  appId: string | undefined;
  /** The app existed before this start (found by name "Example shop"). */
  appReused: boolean;
  orders: Map<string, Order>;
  stop(): Promise<void>;
}

const WEBHOOK_PATH = '/webhooks/paygate';
const MAX_BODY = 64 * 1024;

/** The app the shop uses, and whether it existed before this start. */
interface ShopApp {
  appId: string;
  credentials: AppCredentials;
  reused: boolean;
}

/** What the shop keeps in its state file: the secrets are shown only at create or regenerate. */
interface KeptApp {
  app_id: string;
  api_key: string;
  signing_secret: string;
  webhook_secret: string;
}

export const SHOP_APP_NAME = 'Example shop';

function readKept(file: string | undefined): KeptApp | undefined {
  if (!file || !existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as KeptApp;
  } catch {
    return undefined; // damaged: the app is found by name and its keys regenerated
  }
}

function keep(file: string | undefined, app: KeptApp): void {
  if (!file) return;
  mkdirSync(path.dirname(file), { recursive: true });
  // Mode 600: the file holds the app's signing and webhook secrets.
  writeFileSync(file, JSON.stringify(app, null, 2) + '\n', { mode: 0o600 });
}

/** The kept keys still open /v1 (nobody regenerated them): a made-up payment is 404, not 401. */
async function keysWork(gatewayUrl: string, kept: KeptApp): Promise<boolean> {
  const paygate = new Paygate({
    baseUrl: gatewayUrl,
    apiKey: kept.api_key,
    signingSecret: kept.signing_secret,
  });
  try {
    await paygate.payments.get('0'.repeat(32));
    return true;
  } catch (err) {
    if (err instanceof PaygateNotFoundError) return true;
    if (err instanceof PaygateAuthenticationError) return false;
    throw err;
  }
}

/**
 * The operator's step, automated so the example runs with one command, and done once: every
 * start reuses the test-mode app named "Example shop" (the one whose id the state file
 * holds first), with the keys kept in the state file while they still work; only a gateway
 * without such an app gets a new one. Its webhook URL follows the shop's.
 */
async function shopApp(
  gatewayUrl: string,
  adminToken: string,
  webhookUrl: string,
  stateFile: string | undefined,
): Promise<ShopApp> {
  const admin = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(new URL(path, gatewayUrl), {
      method,
      headers: {
        authorization: `Bearer ${adminToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 200 && res.status !== 201) {
      throw new Error(`${method} ${path} for the shop's app failed: ${res.status} ${text}`);
    }
    return JSON.parse(text) as T;
  };
  const done = (app: KeptApp, reused: boolean): ShopApp => {
    keep(stateFile, app);
    return {
      appId: app.app_id,
      credentials: {
        apiKey: app.api_key,
        signingSecret: app.signing_secret,
        webhookSecret: app.webhook_secret,
      },
      reused,
    };
  };

  const kept = readKept(stateFile);
  const { apps } = await admin<{
    apps: { app_id: string; name: string; mode: string; webhook_url: string | null }[];
  }>('GET', '/admin/apps');
  const ours = (a: { name: string; mode: string }) => a.name === SHOP_APP_NAME && a.mode === 'test';
  const found = apps.find((a) => a.app_id === kept?.app_id && ours(a)) ?? apps.find((a) => ours(a));
  if (!found) {
    return done(
      await admin<KeptApp>('POST', '/admin/apps', {
        name: SHOP_APP_NAME,
        mode: 'test',
        webhook_url: webhookUrl,
      }),
      false,
    );
  }
  if (found.webhook_url !== webhookUrl) {
    await admin('PATCH', `/admin/apps/${found.app_id}`, { webhook_url: webhookUrl });
  }
  if (kept?.app_id === found.app_id && (await keysWork(gatewayUrl, kept))) return done(kept, true);
  // Its secrets cannot be read back: new ones, which the state file keeps from now on.
  return done(await admin<KeptApp>('POST', `/admin/apps/${found.app_id}/regenerate-keys`), true);
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error('body too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: http.ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
}
const html = (res: http.ServerResponse, status: number, body: string) =>
  send(res, status, 'text/html; charset=utf-8', body);
const text = (res: http.ServerResponse, status: number, body: string) =>
  send(res, status, 'text/plain; charset=utf-8', body);

export async function startShop(options: ShopOptions): Promise<RunningShop> {
  const orders = new Map<string, Order>();
  const seenEvents = new Set<string>();
  // Set once the shop's app exists; the server answers 503 until then.
  const ready: { paygate?: Paygate; webhookSecret?: string } = {};

  function record(event: WebhookEvent, eventId: string): void {
    const orderId = event.metadata.order_id;
    const order = typeof orderId === 'string' ? orders.get(orderId) : undefined;
    // Events of payments this shop does not know (another shop's app) are acknowledged.
    if (!order || order.paymentId !== event.payment_id) return;
    order.events.push({ id: eventId, type: event.event, timestamp: event.timestamp });
    switch (event.event) {
      case 'payment.succeeded':
      case 'payment.failed':
      case 'payment.canceled':
        // Terminal statuses never change again, whatever order events arrive in.
        if (order.status === 'initiated') order.status = event.status;
    }
  }

  async function checkout(
    paygate: Paygate,
    req: http.IncomingMessage,
    res: http.ServerResponse,
    base: string,
  ) {
    const form = new URLSearchParams((await readBody(req)).toString('utf8'));
    const product = PRODUCTS.find((p) => p.id === form.get('product'));
    const email = (form.get('email') ?? '').trim();
    if (!product || !email) return html(res, 400, errorPage('choose a product and an email'));
    const id = randomBytes(8).toString('hex');
    try {
      const payment = await paygate.payments.create(
        {
          external_user_id: `shop-buyer-${id}`,
          email,
          amount_minor: product.amount,
          currency: 'IDR',
          method: 'qris',
          return_url: `${base}/orders/${id}`,
          metadata: { order_id: id, product: product.id },
        },
        // The order id makes a retried checkout (a double click, a restart) one payment.
        { idempotencyKey: `order-${id}` },
      );
      orders.set(id, {
        id,
        product,
        email,
        paymentId: payment.payment_id,
        checkoutUrl: payment.checkout_url,
        ...(payment.qr_string ? { qrString: payment.qr_string } : {}),
        ...(payment.qr_image_url ? { qrImageUrl: payment.qr_image_url } : {}),
        status: 'initiated',
        events: [],
      });
      // Both response shapes: a QR we can show ourselves, or the provider's hosted page.
      const next = payment.qr_string ? `/orders/${id}` : payment.checkout_url;
      res.writeHead(303, { location: next }).end();
    } catch (err) {
      if (err instanceof PaygateError) return html(res, 502, errorPage(err.message));
      throw err;
    }
  }

  async function webhook(
    paygate: Paygate,
    webhookSecret: string,
    req: http.IncomingMessage,
    res: http.ServerResponse,
  ) {
    const raw = await readBody(req);
    let event: WebhookEvent;
    try {
      event = paygate.webhooks.verify(raw, req.headers, webhookSecret);
    } catch (err) {
      if (err instanceof PaygateWebhookError) return text(res, 400, err.message);
      throw err;
    }
    const eventId = paygate.webhooks.eventId(req.headers) ?? '';
    // At-least-once delivery: a retry of an event already recorded changes nothing.
    if (!seenEvents.has(eventId)) {
      seenEvents.add(eventId);
      record(event, eventId);
    }
    res.writeHead(204).end();
  }

  /** The order page's poll. A pending order also asks the gateway, in case a webhook is late. */
  async function status(paygate: Paygate, order: Order, res: http.ServerResponse) {
    if (order.status === 'initiated') {
      const p = await paygate.payments.get(order.paymentId);
      if (order.status === 'initiated') order.status = p.status;
    }
    send(
      res,
      200,
      'application/json; charset=utf-8',
      JSON.stringify({ status: order.status, events: order.events }),
    );
  }

  const server = http.createServer((req, res) => {
    const base = publicUrl;
    const url = new URL(req.url ?? '/', base);
    const route = `${req.method} ${url.pathname}`;
    const orderMatch = /^\/orders\/([0-9a-f]{16})(\/status)?$/.exec(url.pathname);
    const handle = async () => {
      const { paygate, webhookSecret } = ready;
      if (!paygate || !webhookSecret) return text(res, 503, 'starting');
      if (route === 'GET /') return html(res, 200, productsPage(PRODUCTS));
      if (route === 'POST /checkout') return checkout(paygate, req, res, base);
      if (route === `POST ${WEBHOOK_PATH}`) return webhook(paygate, webhookSecret, req, res);
      if (req.method === 'GET' && orderMatch) {
        const order = orders.get(orderMatch[1] as string);
        if (!order) return text(res, 404, 'order not found');
        return orderMatch[2] ? status(paygate, order, res) : html(res, 200, orderPage(order));
      }
      return text(res, 404, 'not found');
    };
    handle().catch((err: unknown) => {
      process.stderr.write(`shop: ${route} failed: ${String(err)}\n`);
      if (!res.headersSent) text(res, 500, 'internal error');
      else res.destroy();
    });
  });

  await new Promise<void>((resolve) =>
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve),
  );
  const port = (server.address() as AddressInfo).port;
  const host = options.host ?? '127.0.0.1';
  const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  const publicUrl = (options.publicUrl ?? `http://${shownHost}:${port}`).replace(/\/+$/, '');

  let appId: string | undefined;
  let appReused = false;
  let credentials = options.credentials;
  try {
    if (!credentials) {
      if (!options.adminToken) throw new Error('give the app credentials or an admin token');
      const app = await shopApp(
        options.gatewayUrl,
        options.adminToken,
        publicUrl + WEBHOOK_PATH,
        options.stateFile,
      );
      appId = app.appId;
      appReused = app.reused;
      credentials = app.credentials;
    }
  } catch (err) {
    server.close();
    throw err;
  }
  ready.paygate = new Paygate({
    baseUrl: options.gatewayUrl,
    apiKey: credentials.apiKey,
    signingSecret: credentials.signingSecret,
  });
  ready.webhookSecret = credentials.webhookSecret;

  return {
    url: publicUrl,
    appId,
    appReused,
    orders,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
