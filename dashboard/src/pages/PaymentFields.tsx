/** A payment's fields, its refund's and its deliveries, as the payment detail page shows them. */
import type { ComponentChildren } from 'preact';
import { Badge, Empty, Money, Time } from '../components';
import { isMinor } from '../format';
import type { PaymentDelivery, RefundRow } from '../types';

/** The first of several names the field may carry, as a string. */
function pick(o: Record<string, unknown>, ...names: string[]): string | undefined {
  for (const n of names) {
    const v = o[n];
    if (v !== undefined && v !== null && v !== '') return String(v);
  }
  return undefined;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const isTime = (k: string, v: string) => k.endsWith('_at') || RFC3339.test(v);

/** One field's value: money in its currency, times local with UTC on hover, JSON pretty. */
function Value({
  k,
  v,
  currency,
}: {
  k: string;
  v: unknown;
  currency: string | undefined;
}): ComponentChildren {
  if (v === null || v === undefined || v === '') return <span class="muted">—</span>;
  if (k.endsWith('_minor') && isMinor(v) && currency)
    return <Money minor={v} currency={currency} />;
  if (typeof v === 'string' && isTime(k, v)) return <Time iso={v} />;
  if (k === 'status' || k.endsWith('_status')) return <Badge value={String(v)} />;
  if (typeof v === 'object') return <pre class="raw small">{JSON.stringify(v, null, 2)}</pre>;
  return (
    <span class={k.endsWith('id') || k.endsWith('ref') ? 'mono' : undefined}>{String(v)}</span>
  );
}

const FIRST = ['id', 'payment_id', 'status', 'amount_minor', 'currency', 'method', 'provider'];

/** What an operator calls each field; the API's name stays on hover (title) for support and docs. */
const LABELS: Record<string, string> = {
  id: 'ID',
  payment_id: 'Payment',
  app_id: 'App',
  mode: 'Mode',
  status: 'Status',
  amount_minor: 'Amount',
  currency: 'Currency',
  method: 'Method',
  provider: 'Provider',
  provider_ref: 'Provider reference',
  external_user_id: 'Buyer ID',
  email: 'Buyer email',
  return_url: 'Return URL',
  invoice_number: 'Invoice number',
  checkout_url: 'Checkout URL',
  qr_string: 'QR string',
  qr_image_url: 'QR image URL',
  provider_deadline: 'Provider deadline',
  finalized_at: 'Finalized',
  subscription_id: 'Subscription',
  parent_payment_id: 'Renewal of payment',
  created_at: 'Created',
  updated_at: 'Updated',
  succeeded_at: 'Succeeded',
  reason: 'Reason',
  inbound_events_count: 'Provider events received',
};

/** A field the table above does not know yet (a newer API): its name in words. */
export function fieldLabel(k: string): string {
  const known = LABELS[k];
  if (known) return known;
  const words = k.replace(/_minor$/, '').replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
const NESTED = new Set(['refund', 'disputes', 'deliveries', 'metadata', 'last_error']);

export function Fields({
  o,
  currency,
}: {
  o: Record<string, unknown>;
  currency: string | undefined;
}) {
  const keys = Object.keys(o).filter((k) => !NESTED.has(k));
  keys.sort((a, b) => {
    const ia = FIRST.indexOf(a);
    const ib = FIRST.indexOf(b);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib);
  });
  return (
    <dl class="fields">
      {keys.map((k) => (
        <div key={k} data-field={k}>
          <dt title={k}>{fieldLabel(k)}</dt>
          <dd>
            <Value k={k} v={o[k]} currency={currency} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

export function RefundFields({ r, currency }: { r: RefundRow; currency: string }) {
  return <Fields o={r} currency={r.currency ?? currency} />;
}

export function Deliveries({ list }: { list: PaymentDelivery[] | undefined }) {
  if (!list || list.length === 0) return <Empty>No outbound deliveries.</Empty>;
  return (
    <ol class="deliveries">
      {list.map((d, i) => {
        const attempts = Array.isArray(d.attempts) ? d.attempts : [];
        return (
          <li key={pick(d, 'delivery_id', 'id') ?? i} class="delivery">
            <div class="event-head">
              <strong>{pick(d, 'event_type', 'event') ?? 'event'}</strong>
              <Badge value={pick(d, 'status')} />
              <span class="mono small">{pick(d, 'delivery_id', 'id')}</span>
              <span>attempts: {pick(d, 'attempts_count') ?? attempts.length}</span>
              {pick(d, 'delivered_at') && (
                <span>
                  delivered <Time iso={pick(d, 'delivered_at')} />
                </span>
              )}
              {pick(d, 'next_attempt_at') && (
                <span>
                  next attempt <Time iso={pick(d, 'next_attempt_at')} />
                </span>
              )}
            </div>
            {attempts.length === 0 ? (
              <Empty>No attempts yet.</Empty>
            ) : (
              <div class="table-wrap">
                <table class="compact attempts">
                  <thead>
                    <tr>
                      <th>#</th>
                      <th>Time</th>
                      <th>Status</th>
                      <th>Outcome</th>
                      <th class="num">Took</th>
                      <th>Answer</th>
                      <th>Error</th>
                    </tr>
                  </thead>
                  <tbody>
                    {attempts.map((a, j) => (
                      <tr key={j}>
                        <td>{pick(a, 'attempt', 'attempt_no', 'n') ?? j + 1}</td>
                        <td>
                          <Time iso={pick(a, 'started_at', 'attempted_at', 'at', 'created_at')} />
                        </td>
                        <td>{pick(a, 'status_code', 'status') ?? '—'}</td>
                        <td>{pick(a, 'outcome') ?? ''}</td>
                        <td class="num">
                          {pick(a, 'duration_ms') !== undefined
                            ? `${pick(a, 'duration_ms')} ms`
                            : ''}
                        </td>
                        <td class="answer" data-field="response_body">
                          {pick(a, 'response_body') !== undefined && (
                            <code class="answer-body">{pick(a, 'response_body')}</code>
                          )}
                        </td>
                        <td class="error-text">{pick(a, 'error', 'last_error') ?? ''}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </li>
        );
      })}
    </ol>
  );
}
