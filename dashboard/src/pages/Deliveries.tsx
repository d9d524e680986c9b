import { useState } from 'preact/hooks';
import { api } from '../api';
import { ConfirmDialog, Empty, Link, Load, PageTitle, Time, useApi } from '../components';
import { shortId } from '../format';
import { href } from '../router';
import type { Delivery } from '../types';

/** Deliveries the gateway gave up on (docs/api.md#deliveries), each with a retry of its payment's webhook. */
export function Deliveries() {
  const r = useApi<{ deliveries: Delivery[] }>('/admin/deliveries?status=dead&limit=200');
  const [target, setTarget] = useState<Delivery | null>(null);
  const [done, setDone] = useState<string | null>(null);
  return (
    <>
      <PageTitle title="Dead deliveries">Dead deliveries</PageTitle>
      <p class="muted">
        Outbound webhooks that failed every attempt. Retry sends the payment's latest event again
        once the app's endpoint is back.
      </p>
      {done && (
        <p class="state success" role="status" id="action-result">
          {done}
        </p>
      )}
      <Load r={r} what="dead deliveries">
        {({ deliveries }) =>
          deliveries.length === 0 ? (
            <Empty>No dead deliveries.</Empty>
          ) : (
            <div class="table-wrap">
              <table id="deliveries-table">
                <thead>
                  <tr>
                    <th>Delivery</th>
                    <th>Event</th>
                    <th>Payment</th>
                    <th>App</th>
                    <th class="num">Attempts</th>
                    <th>Last answer</th>
                    <th>Gave up</th>
                    <th>
                      <span class="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {deliveries.map((d) => (
                    <tr key={d.delivery_id} data-id={d.delivery_id}>
                      <td class="mono" title={d.delivery_id}>
                        {shortId(d.delivery_id)}
                      </td>
                      <td>{d.event_type}</td>
                      <td>
                        {d.payment_id ? (
                          <Link
                            class="mono"
                            href={href(`/payments/${d.payment_id}`)}
                            title={d.payment_id}
                          >
                            {shortId(d.payment_id)}
                          </Link>
                        ) : (
                          '—'
                        )}
                      </td>
                      <td class="mono small" title={d.app_id}>
                        {shortId(d.app_id)}
                      </td>
                      <td class="num">{d.attempts}</td>
                      <td class="answer" data-field="last_answer">
                        <span class="error-text">
                          {d.last_status_code !== null ? `HTTP ${d.last_status_code}` : ''}
                          {d.last_error ? ` ${d.last_error}` : ''}
                        </span>
                        {/* What the app said, so the operator sees why it refused. */}
                        {d.last_response_body ? (
                          <code class="answer-body">{d.last_response_body}</code>
                        ) : null}
                      </td>
                      <td>
                        <Time iso={d.updated_at} />
                      </td>
                      <td>
                        {d.payment_id && (
                          <button
                            type="button"
                            onClick={() => {
                              setDone(null);
                              setTarget(d);
                            }}
                          >
                            Retry…
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Load>
      <ConfirmDialog
        open={target !== null}
        title="Retry this webhook?"
        confirmLabel="Retry webhook"
        onCancel={() => setTarget(null)}
        run={async () => {
          if (!target?.payment_id) return;
          const res = await api<{ delivery_id: string }>(
            'POST',
            `/admin/payments/${target.payment_id}/retry-webhook`,
          );
          setDone(
            `Payment ${target.payment_id}: webhook re-enqueued as delivery ${res.delivery_id}.`,
          );
          setTarget(null);
          r.reload();
        }}
      >
        <p>
          The latest event of payment <span class="mono">{target?.payment_id}</span> is delivered to
          its app again, with the same event id.
        </p>
      </ConfirmDialog>
    </>
  );
}
