import { query } from '../api';
import { Badge, Empty, Link, Load, Money, PageTitle, Time, useApi } from '../components';
import { shortId } from '../format';
import { href, navigate, type Location } from '../router';
import { MODES, type RefundRow } from '../types';

export function Refunds({ loc }: { loc: Location }) {
  const mode = loc.params.get('mode') ?? '';
  const before = loc.params.get('before') ?? '';
  const limit = 50;
  const r = useApi<{ refunds: RefundRow[] }>(`/admin/refunds${query({ mode, limit, before })}`);
  return (
    <>
      <PageTitle title="Refunds">Refunds</PageTitle>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Mode
          <select
            name="mode"
            value={mode}
            onChange={(e) => navigate(href('/refunds', { mode: e.currentTarget.value }))}
          >
            <option value="">all modes</option>
            {MODES.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
      </form>
      <Load r={r} what="refunds">
        {({ refunds }) => {
          const last = refunds[refunds.length - 1];
          return (
            <>
              {refunds.length === 0 ? (
                <Empty>{before ? 'No older refunds.' : 'No refunds.'}</Empty>
              ) : (
                <div class="table-wrap">
                  <table id="refunds-table">
                    <thead>
                      <tr>
                        <th>Refund</th>
                        <th>Created</th>
                        <th>Status</th>
                        <th class="num">Amount</th>
                        <th>Payment</th>
                        <th>Mode</th>
                        <th>Reason</th>
                      </tr>
                    </thead>
                    <tbody>
                      {refunds.map((f) => (
                        <tr key={f.id} data-id={f.id}>
                          <td class="mono" title={f.id}>
                            {shortId(f.id)}
                          </td>
                          <td>
                            <Time iso={f.created_at} />
                          </td>
                          <td>
                            <Badge value={f.status} />
                          </td>
                          <td class="num">
                            {f.currency ? (
                              <Money minor={f.amount_minor} currency={f.currency} />
                            ) : (
                              f.amount_minor
                            )}
                          </td>
                          <td>
                            {f.payment_id ? (
                              <Link
                                class="mono"
                                href={href(`/payments/${f.payment_id}`)}
                                title={f.payment_id}
                              >
                                {shortId(f.payment_id)}
                              </Link>
                            ) : (
                              '—'
                            )}
                          </td>
                          <td>{f.mode}</td>
                          <td>{f.reason ?? ''}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
              <nav class="pager" aria-label="Pages">
                <button
                  type="button"
                  disabled={!before}
                  onClick={() => navigate(href('/refunds', { mode }))}
                >
                  ← Newest
                </button>
                <button
                  type="button"
                  disabled={refunds.length < limit || !last}
                  onClick={() => last && navigate(href('/refunds', { mode, before: last.id }))}
                >
                  Older →
                </button>
              </nav>
            </>
          );
        }}
      </Load>
    </>
  );
}
