import { useState } from 'preact/hooks';
import { api } from '../api';
import { Badge, Empty, errorText, Link, Load, Money, PageTitle, Time, useApi } from '../components';
import { shortId } from '../format';
import { href } from '../router';
import type { LastCheck, StuckPayment, StuckRefund } from '../types';

function Check({ check }: { check: LastCheck | null }) {
  if (!check) return <span class="muted">not asked yet</span>;
  return (
    <span class="last-check">
      <Time iso={check.at} />: asked {check.asked}; learned <strong>{check.learned}</strong>
    </span>
  );
}

/**
 * Work the gateway is waiting on: payments still initiated past their provider deadline and
 * refunds initiated for more than 15 minutes, with what the reconciler last asked and learned.
 * Sync asks the provider about a payment now and applies its answer.
 */
export function Stuck() {
  const r = useApi<{ payments: StuckPayment[]; refunds: StuckRefund[] }>('/admin/stuck');
  const [busy, setBusy] = useState<string | null>(null);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);

  const sync = async (id: string) => {
    setBusy(id);
    setResult(null);
    try {
      const p = await api<{ payment_id: string; status: string }>(
        'POST',
        `/admin/payments/${id}/sync`,
      );
      setResult({ ok: true, text: `Payment ${p.payment_id}: ${p.status} after sync.` });
      r.reload();
    } catch (err) {
      setResult({ ok: false, text: `Payment ${id}: ${errorText(err)}` });
    } finally {
      setBusy(null);
    }
  };

  return (
    <>
      <PageTitle title="Stuck work">Stuck work</PageTitle>
      {result && (
        <p
          class={`state ${result.ok ? 'success' : 'error'}`}
          role={result.ok ? 'status' : 'alert'}
          id="action-result"
        >
          {result.text}
        </p>
      )}
      <Load r={r} what="stuck work">
        {({ payments, refunds }) => (
          <>
            <h2>Payments past their provider deadline</h2>
            {payments.length === 0 ? (
              <Empty>No stuck payments.</Empty>
            ) : (
              <div class="table-wrap">
                <table id="stuck-payments">
                  <thead>
                    <tr>
                      <th>Payment</th>
                      <th>Created</th>
                      <th>Status</th>
                      <th class="num">Amount</th>
                      <th>Provider</th>
                      <th>Deadline</th>
                      <th>Last check</th>
                      <th>
                        <span class="sr-only">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {payments.map((p) => (
                      <tr key={p.id} data-id={p.id}>
                        <td>
                          <Link class="mono" href={href(`/payments/${p.id}`)} title={p.id}>
                            {shortId(p.id)}
                          </Link>
                        </td>
                        <td>
                          <Time iso={p.created_at} />
                        </td>
                        <td>
                          <Badge value={p.status} />
                        </td>
                        <td class="num">
                          <Money minor={p.amount_minor} currency={p.currency} />
                        </td>
                        <td>{p.provider}</td>
                        <td>
                          <Time iso={p.provider_deadline} />
                        </td>
                        <td>
                          <Check check={p.last_check} />
                        </td>
                        <td>
                          <button
                            type="button"
                            disabled={busy !== null}
                            onClick={() => void sync(p.id)}
                          >
                            {busy === p.id ? 'Syncing…' : 'Sync'}
                          </button>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            <h2>Refunds initiated for more than 15 minutes</h2>
            {refunds.length === 0 ? (
              <Empty>No stuck refunds.</Empty>
            ) : (
              <div class="table-wrap">
                <table id="stuck-refunds">
                  <thead>
                    <tr>
                      <th>Refund</th>
                      <th>Payment</th>
                      <th>Created</th>
                      <th class="num">Amount</th>
                      <th>Provider</th>
                      <th>Last check</th>
                    </tr>
                  </thead>
                  <tbody>
                    {refunds.map((f) => (
                      <tr key={f.id} data-id={f.id}>
                        <td class="mono" title={f.id}>
                          {shortId(f.id)}
                        </td>
                        <td>
                          <Link
                            class="mono"
                            href={href(`/payments/${f.payment_id}`)}
                            title={f.payment_id}
                          >
                            {shortId(f.payment_id)}
                          </Link>
                        </td>
                        <td>
                          <Time iso={f.created_at} />
                        </td>
                        <td class="num">
                          <Money minor={f.amount_minor} currency={f.currency} />
                        </td>
                        <td>{f.provider}</td>
                        <td>
                          <Check check={f.last_check} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </>
        )}
      </Load>
    </>
  );
}
