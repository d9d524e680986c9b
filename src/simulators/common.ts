import type { FastifyReply } from 'fastify';
import type { Pool, Queryable } from './db/pool.js';
import {
  findSimObject,
  findSimObjectByIdempotencyKey,
  insertSimObject,
  updateSimObject,
  type SimObjectKey,
} from './db/objects.js';
import { insertLinkedSimObject } from './db/linkedObjects.js';
import { MINOR_UNITS } from './money.js';
import type { SimulatorHost } from './host.js';

// The simulators' files take the clock from here (simulators/clock.ts).
export { SimClock } from './clock.js';

/** The simulated providers (each mounted at /sim/<provider>). */
export type SimProvider = 'idr_psp' | 'card_psp' | 'wallet_psp';

export const SIM_ACTIONS = ['pay', 'fail', 'cancel', 'expire'] as const;

/** Result of a simulator action: what the gateway answered to the provider's (last) webhook. */
export interface ActionResult {
  gateway_status: number;
  gateway_body: string;
}

/**
 * Simulator state lives in PostgreSQL (sim_objects) so every gateway instance, and a
 * restarted one, sees the same provider.
 */
export class SimStore<T extends object> {
  constructor(
    private readonly db: Queryable,
    private readonly provider: SimProvider,
    private readonly kind: string,
  ) {}

  private key(id: string): SimObjectKey {
    return { provider: this.provider, kind: this.kind, id };
  }

  async get(id: string): Promise<T | null> {
    // PostgreSQL text cannot hold NUL: no such object, rather than a query error.
    if (id.includes('\0')) return null;
    return findSimObject<T>(this.db, this.key(id));
  }

  async findByIdempotencyKey(key: string): Promise<T | null> {
    if (key.includes('\0')) return null;
    return findSimObjectByIdempotencyKey<T>(this.db, this.provider, this.kind, key);
  }

  /**
   * Inserts unless an object with the same id or idempotency key exists; returns the stored
   * object either way (a provider answers a retried create with the original).
   */
  async create(
    id: string,
    data: T,
    idempotencyKey: string | null = null,
  ): Promise<{ created: boolean; data: T }> {
    const inserted = await insertSimObject(this.db, this.key(id), data, idempotencyKey);
    if (inserted) return { created: true, data: inserted };
    const existing =
      (idempotencyKey && (await this.findByIdempotencyKey(idempotencyKey))) || (await this.get(id));
    if (!existing) throw new Error('simulator object vanished during create');
    return { created: false, data: existing };
  }

  /**
   * create() plus rows of other kinds pointing at it (reference aliases), in one statement
   * (shared with the registrations that go at the same time, db/linkedObjects.ts); the links
   * are written only when the object itself is new.
   */
  async createLinked(
    id: string,
    data: T,
    links: { kind: string; id: string; data: object }[],
  ): Promise<{ created: boolean; data: T }> {
    const inserted = await insertLinkedSimObject(this.db, this.key(id), data, links);
    if (inserted) return { created: true, data: inserted };
    const existing = await this.get(id);
    if (!existing) throw new Error('simulator object vanished during create');
    return { created: false, data: existing };
  }

  /**
   * Read-modify-write under a row lock, so two concurrent actions on one object serialize.
   * update returns the new data, or null to leave the object unchanged.
   */
  async update(id: string, update: (current: T) => T | null): Promise<T | null> {
    if (id.includes('\0')) return null;
    const db = this.db as Queryable & Partial<Pick<Pool, 'connect'>>;
    if (!db.connect) throw new Error('SimStore.update needs a pool');
    return updateSimObject(db as Pool, this.key(id), update);
  }
}

/** Posts a provider webhook to the gateway exactly as the real provider would. */
export async function deliverToGateway(
  gw: Pick<SimulatorHost, 'urls'>,
  provider: SimProvider,
  headers: Record<string, string>,
  body: string,
): Promise<ActionResult> {
  const res = await fetch(`${gw.urls.gateway ?? gw.urls.internal}/webhooks/${provider}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    signal: AbortSignal.timeout(30_000),
  });
  return { gateway_status: res.status, gateway_body: await res.text() };
}

const CURRENCY_FORMATS = new Map<string, Intl.NumberFormat>();

/**
 * "$19.99", "€19.99", "£19.99": a checkout page's amount as a buyer reads it, with the
 * currency's own number of decimals from the simulators' table of minor units (money.ts).
 * en-US for every currency: the simulators' pages are English. IDR pages use rupiahText.
 */
export function currencyText(minor: number, currency: string): string {
  const exp = MINOR_UNITS[currency.toUpperCase()];
  if (exp === undefined) return `${minor} ${currency.toUpperCase()} (minor units)`;
  return decimalCurrencyText((minor / 10 ** exp).toFixed(exp), currency);
}

/** currencyText of an amount written as the provider writes it ("25.99"). */
export function decimalCurrencyText(value: string, currency: string): string {
  const code = currency.toUpperCase();
  const exp = MINOR_UNITS[code];
  const n = Number(value);
  if (exp === undefined || !Number.isFinite(n)) return `${value} ${code}`;
  let f = CURRENCY_FORMATS.get(code);
  if (!f) {
    f = new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency: code,
      minimumFractionDigits: exp,
      maximumFractionDigits: exp,
    });
    CURRENCY_FORMATS.set(code, f);
  }
  return f.format(n);
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface CheckoutPageInfo {
  provider: SimProvider;
  title: string;
  reference: string;
  amountText: string;
  status: string;
  /** Extra rows (VA number, QR string...) shown to the buyer. */
  details?: [string, string][];
  /** Path (under /sim/<provider>) the buttons post to, e.g. payments/<ref>. */
  actionBase: string;
  actions?: readonly string[];
  returnUrl?: string;
  /** A picture for the buyer to scan (the QR code image), shown above the details. */
  imageUrl?: string;
}

/** The hosted page a test-mode buyer sees: one button per simulator action. */
export function renderCheckoutPage(reply: FastifyReply, info: CheckoutPageInfo): FastifyReply {
  const actions = info.actions ?? SIM_ACTIONS;
  const base: [string, string][] = [
    ['Reference', info.reference],
    ['Amount', info.amountText],
    ['Status', info.status],
  ];
  const rows = [...base, ...(info.details ?? [])]
    .map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`)
    .join('');
  const buttons = actions
    .map(
      (a) =>
        `<form method="post" action="/sim/${info.provider}/${escapeHtml(info.actionBase)}/${a}">` +
        `<button type="submit" name="action" value="${a}">${a[0]?.toUpperCase()}${a.slice(1)}</button></form>`,
    )
    .join('');
  const back = info.returnUrl
    ? `<p><a href="${escapeHtml(info.returnUrl)}">Return to merchant</a></p>`
    : '';
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(info.title)} (test mode)</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.4rem;border-bottom:1px solid #ddd;vertical-align:top}
th{white-space:nowrap}td{overflow-wrap:anywhere}
form{display:inline-block;margin:.5rem .5rem 0 0}button{font-size:1rem;padding:.5rem 1rem}
.banner{background:#fff3cd;padding:.5rem;border-radius:4px}</style></head>
<body><p class="banner">Test mode: ${escapeHtml(info.provider)} simulator. No money moves.</p>
<h1>${escapeHtml(info.title)}</h1>${
    info.imageUrl
      ? `<p><img class="qr" src="${escapeHtml(info.imageUrl)}" alt="QR code to scan" width="264" height="264"></p>`
      : ''
  }<table>${rows}</table>
<div>${buttons}</div>${back}</body></html>`;
  return reply.code(200).type('text/html; charset=utf-8').send(html);
}

/**
 * Scripts get JSON (docs/api.md#test-mode); the checkout page's buttons (a browser asking for HTML) get a small
 * page with the outcome and a way back.
 */
export function replyToAction(
  acceptHeader: string | undefined,
  reply: FastifyReply,
  result: ActionResult,
  backTo: { pageUrl: string; returnUrl?: string },
): FastifyReply {
  if (!(acceptHeader ?? '').includes('text/html')) {
    return reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify(result));
  }
  const ok = result.gateway_status >= 200 && result.gateway_status < 300;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Simulator result</title></head>
<body style="font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto">
<h1>${ok ? 'Done' : 'The gateway did not accept the event'}</h1>
<p>Gateway answered <strong>${result.gateway_status}</strong>: <code>${escapeHtml(result.gateway_body)}</code></p>
<p><a href="${escapeHtml(backTo.pageUrl)}">Back to the checkout page</a>${
    backTo.returnUrl ? ` · <a href="${escapeHtml(backTo.returnUrl)}">Return to merchant</a>` : ''
  }</p></body></html>`;
  return reply.code(200).type('text/html; charset=utf-8').send(html);
}

/** The furthest POST /sim/clock may move the simulators ahead of real time: ten years. */
export const MAX_SIM_CLOCK_OFFSET_MS = 10 * 365 * 86_400_000;
