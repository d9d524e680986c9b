import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, query } from '../api';
import {
  Badge,
  ConfirmDialog,
  Empty,
  errorText,
  Link,
  Load,
  Money,
  PageTitle,
  RawBody,
  Time,
  useApi,
} from '../components';
import { formatMoney, isMinor, parseAmount } from '../format';
import { href } from '../router';
import { ScenarioBadge } from '../scenario';
import type { InboundEvent, PaymentDelivery, PaymentDetail, RefundRow } from '../types';
import { DisputeTable } from './Disputes';
import { OperatorActions } from './OperatorActions';

type Action = 'cancel' | 'refund' | 'retry';

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

function Fields({ o, currency }: { o: Record<string, unknown>; currency: string | undefined }) {
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

export function PaymentDetailPage({ id }: { id: string }) {
  const payment = useApi<PaymentDetail>(`/admin/payments/${encodeURIComponent(id)}`);
  const events = useApi<{ events: InboundEvent[] }>(
    `/admin/inbound_events${query({ payment_id: id })}`,
  );
  const [action, setAction] = useState<Action | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [formError, setFormError] = useState<string | null>(null);
  const [syncing, setSyncing] = useState(false);
  const [syncError, setSyncError] = useState<string | null>(null);

  const reload = () => {
    payment.reload();
    events.reload();
  };

  // Asks the provider now, as the reconciler would after the deadline (docs/testing.md: a lost
  // webhook). No confirmation: it only applies what the provider already says happened.
  const sync = async () => {
    setSyncing(true);
    setDone(null);
    setSyncError(null);
    try {
      const res = await api<{ payment_id: string; status: string }>(
        'POST',
        `/admin/payments/${id}/sync`,
      );
      setDone(`Payment ${res.payment_id}: ${res.status} after sync.`);
      reload();
    } catch (err) {
      setSyncError(errorText(err));
    } finally {
      setSyncing(false);
    }
  };

  return (
    <>
      <p class="crumbs">
        <Link href={href('/payments')}>← Payments</Link>
      </p>
      <PageTitle title="Payment">
        Payment <span class="mono title-id">{id}</span>
      </PageTitle>
      {payment.state === 'ok' && payment.data.mode === 'test' && (
        <ScenarioBadge
          value={(payment.data.metadata as { test_scenario?: unknown })?.test_scenario}
        />
      )}
      {done && (
        <p class="state success" role="status" id="action-result">
          {done}
        </p>
      )}
      {syncError && (
        <p class="state error" role="alert" id="action-result">
          {syncError}
        </p>
      )}
      <Load r={payment} what="the payment">
        {(p) => {
          const refund = p.refund ?? null;
          const activeRefund = refund !== null && refund.status !== 'failed';
          const refundMinor = amount.trim() === '' ? null : parseAmount(amount, p.currency);
          const refundLabel =
            refundMinor === null
              ? `the full ${formatMoney(p.amount_minor, p.currency)}`
              : formatMoney(refundMinor, p.currency);
          const run = async (a: Action) => {
            setSyncError(null);
            if (a === 'cancel') {
              const res = await api<Record<string, unknown>>(
                'POST',
                `/admin/payments/${id}/cancel`,
              );
              setDone(
                res.refund_id
                  ? `The payment had succeeded: refunded in full (refund ${String(res.refund_id)}, ${String(res.status)}).`
                  : `Payment canceled (status ${String(res.status)}).`,
              );
            } else if (a === 'refund') {
              const body: { amount_minor?: number; reason: string } = { reason };
              if (refundMinor !== null) body.amount_minor = refundMinor;
              const res = await api<Record<string, unknown>>(
                'POST',
                `/admin/payments/${id}/refund`,
                body,
              );
              setDone(`Refund ${String(res.refund_id)} created: ${String(res.status)}.`);
              setAmount('');
              setReason('');
            } else {
              const res = await api<{ delivery_id: string }>(
                'POST',
                `/admin/payments/${id}/retry-webhook`,
              );
              setDone(`Webhook re-enqueued as delivery ${res.delivery_id}.`);
            }
            setAction(null);
            reload();
          };
          return (
            <>
              <section class="card" aria-labelledby="actions-title">
                <h2 id="actions-title">Actions</h2>
                <div class="actions-row">
                  <button
                    type="button"
                    class="danger"
                    disabled={p.status !== 'initiated'}
                    onClick={() => {
                      setDone(null);
                      setAction('cancel');
                    }}
                  >
                    Cancel payment…
                  </button>
                  <button
                    type="button"
                    onClick={() => {
                      setDone(null);
                      setAction('retry');
                    }}
                  >
                    Retry webhook…
                  </button>
                  <button
                    type="button"
                    disabled={p.status !== 'initiated' || syncing}
                    onClick={() => void sync()}
                  >
                    {syncing ? 'Syncing…' : 'Sync with provider'}
                  </button>
                </div>
                {p.status === 'initiated' && (
                  <p class="muted small">
                    Sync asks the provider for this payment's status now, as the gateway does by
                    itself once the provider deadline passes; use it when a webhook was lost.
                  </p>
                )}
                {p.status === 'succeeded' && !activeRefund && (
                  <form
                    class="refund-form"
                    onSubmit={(e) => {
                      e.preventDefault();
                      if (amount.trim() !== '' && refundMinor === null) {
                        setFormError(
                          `Enter a positive amount in ${p.currency} (${p.currency === 'IDR' ? 'whole rupiah' : 'up to two decimals'}), or leave it empty for a full refund.`,
                        );
                        return;
                      }
                      setFormError(null);
                      setDone(null);
                      setAction('refund');
                    }}
                  >
                    <h3>Refund</h3>
                    <div class="form-grid">
                      <label>
                        Amount ({p.currency})
                        <input
                          name="amount"
                          inputMode="decimal"
                          value={amount}
                          placeholder={`full: ${formatMoney(p.amount_minor, p.currency)}`}
                          onInput={(e) => setAmount(e.currentTarget.value)}
                        />
                      </label>
                      <label>
                        Reason
                        <input
                          name="reason"
                          maxLength={500}
                          value={reason}
                          onInput={(e) => setReason(e.currentTarget.value)}
                        />
                      </label>
                    </div>
                    {formError && (
                      <p class="state error" role="alert">
                        {formError}
                      </p>
                    )}
                    <button type="submit" class="primary">
                      Refund…
                    </button>
                  </form>
                )}
                {p.status !== 'initiated' && (
                  <p class="muted small">
                    Only an initiated payment can be canceled
                    {p.status === 'succeeded' ? '; refund a succeeded one.' : '.'}
                  </p>
                )}
              </section>

              <ConfirmDialog
                open={action === 'cancel'}
                title="Cancel this payment?"
                confirmLabel="Cancel payment"
                danger
                onCancel={() => setAction(null)}
                run={() => run('cancel')}
              >
                <p>
                  The provider is asked to cancel it, and the app is sent payment.canceled. This
                  cannot be undone.
                </p>
              </ConfirmDialog>
              <ConfirmDialog
                open={action === 'refund'}
                title="Refund this payment?"
                confirmLabel="Refund"
                danger
                onCancel={() => setAction(null)}
                run={() => run('refund')}
              >
                <p>
                  Refund {refundLabel}
                  {reason ? ` (reason: ${reason})` : ''}. A payment has only one refund.
                </p>
              </ConfirmDialog>
              <ConfirmDialog
                open={action === 'retry'}
                title="Send the webhook again?"
                confirmLabel="Retry webhook"
                onCancel={() => setAction(null)}
                run={() => run('retry')}
              >
                <p>The payment's latest event is delivered to the app again, with the same id.</p>
              </ConfirmDialog>

              <section class="card" aria-labelledby="fields-title">
                <h2 id="fields-title">Details</h2>
                <div class="last-error" data-field="last_error">
                  <strong title="last_error">Last error:</strong>{' '}
                  {p.last_error ? (
                    <span class="error-text">{p.last_error}</span>
                  ) : (
                    <span class="muted">none</span>
                  )}
                </div>
                <Fields o={p} currency={p.currency} />
                <h3 title="metadata">Metadata</h3>
                <pre class="raw">{JSON.stringify(p.metadata ?? {}, null, 2)}</pre>
              </section>

              <section class="card" aria-labelledby="refund-title">
                <h2 id="refund-title">Refund</h2>
                {refund ? (
                  <RefundFields r={refund} currency={p.currency} />
                ) : (
                  <Empty>No refund.</Empty>
                )}
              </section>

              <section class="card" aria-labelledby="disputes-title">
                <h2 id="disputes-title">Disputes</h2>
                {p.disputes && p.disputes.length > 0 ? (
                  <DisputeTable disputes={p.disputes} withPayment={false} />
                ) : (
                  <Empty>No disputes.</Empty>
                )}
              </section>

              <section class="card" aria-labelledby="deliveries-title">
                <h2 id="deliveries-title">Outbound webhooks</h2>
                <Deliveries list={p.deliveries} />
              </section>
            </>
          );
        }}
      </Load>

      <section class="card" aria-labelledby="inbound-title">
        <h2 id="inbound-title">Inbound provider events</h2>
        <Load r={events} what="inbound events">
          {({ events: list }) =>
            list.length === 0 ? (
              <Empty>No provider events archived for this payment.</Empty>
            ) : (
              <ol class="events">
                {list.map((e) => (
                  <li key={e.id} class="event">
                    <div class="event-head">
                      <strong>{e.event_type ?? 'unknown event'}</strong>
                      <span>{e.provider}</span>
                      <Time iso={e.received_at} />
                      <Badge value={e.signature_valid ? 'signature_valid' : 'signature_invalid'} />
                      <span>outcome: {e.outcome}</span>
                    </div>
                    <details>
                      <summary>Raw body</summary>
                      <RawBody body={e.raw_body} />
                    </details>
                  </li>
                ))}
              </ol>
            )
          }
        </Load>
      </section>

      <OperatorActions key={done ?? ''} paymentId={id} />
    </>
  );
}

function RefundFields({ r, currency }: { r: RefundRow; currency: string }) {
  return <Fields o={r} currency={r.currency ?? currency} />;
}

function Deliveries({ list }: { list: PaymentDelivery[] | undefined }) {
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
