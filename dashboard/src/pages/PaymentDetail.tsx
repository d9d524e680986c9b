import { useState } from 'preact/hooks';
import { api, query } from '../api';
import {
  Badge,
  ConfirmDialog,
  Empty,
  errorText,
  Link,
  Load,
  PageTitle,
  RawBody,
  Time,
  useApi,
} from '../components';
import { formatMoney, parseAmount } from '../format';
import { href } from '../router';
import { ScenarioBadge } from '../scenario';
import type { InboundEvent, PaymentDetail } from '../types';
import { DisputeTable } from './Disputes';
import { OperatorActions } from './OperatorActions';
import { Deliveries, Fields, RefundFields } from './PaymentFields';

type Action = 'cancel' | 'refund' | 'retry';

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
                      {e.raw_body_error ? (
                        <div class="error-text">{e.raw_body_error}</div>
                      ) : (
                        <RawBody body={e.raw_body} />
                      )}
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
