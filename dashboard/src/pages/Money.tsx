import { query } from '../api';
import { Badge, Empty, Load, Money, PageTitle, Time, useApi } from '../components';
import { formatLocal, isMinor } from '../format';
import { href, navigate, type Location } from '../router';
import type { Balances as BalancesBody, Payouts } from '../types';

const PERIODS = [7, 30, 90, 365];

/** Balances (real from the provider, or calculated from our records) and payouts per PSP. */
export function Balances({ loc }: { loc: Location }) {
  const periodParam = Number(loc.params.get('payout_days') ?? '30');
  const period = PERIODS.includes(periodParam) ? periodParam : 30;
  const since = new Date(Date.now() - period * 86_400_000).toISOString().slice(0, 10);
  const balances = useApi<BalancesBody>('/admin/balances');
  const payouts = useApi<Payouts>(`/admin/payouts${query({ since })}`);
  return (
    <>
      <PageTitle title="Balances and payouts">Balances and payouts</PageTitle>
      <section aria-labelledby="balances-title">
        <h2 id="balances-title">Balances</h2>
        <p class="muted small">
          <Badge value="real" /> is the provider's live balance; <Badge value="calculated" /> is
          succeeded minus refunded from the gateway's own records, per mode.
        </p>
        <Load r={balances} what="balances">
          {({ balances: list, errors }) =>
            list.length === 0 ? (
              <Empty>No balances yet: no succeeded payments and no provider balance API.</Empty>
            ) : (
              <>
                {errors && errors.length > 0 && (
                  <div class="state error" role="alert">
                    {errors.map((e) => (
                      <p key={`${e.provider}-${e.mode}`}>
                        {e.provider} ({e.mode}): {e.error}
                      </p>
                    ))}
                  </div>
                )}
                <div class="table-wrap">
                  <table id="balances-table">
                    <thead>
                      <tr>
                        <th>Provider</th>
                        <th>Mode</th>
                        <th>Currency</th>
                        <th class="num">Available</th>
                        <th>Source</th>
                        <th>As of</th>
                      </tr>
                    </thead>
                    <tbody>
                      {list.map((b) => (
                        <tr
                          key={`${b.provider}-${b.mode ?? ''}-${b.currency}-${b.source}`}
                          data-source={b.source}
                        >
                          <th scope="row">{b.provider}</th>
                          <td>{b.mode ? <Badge value={b.mode} /> : '—'}</td>
                          <td>{b.currency}</td>
                          <td class="num">
                            <Money minor={b.available_minor} currency={b.currency} />
                          </td>
                          <td>
                            <Badge value={b.source} />
                            {b.error && <div class="error-text small">{b.error}</div>}
                          </td>
                          <td>{b.as_of ? <Time iso={b.as_of} /> : <span class="muted">—</span>}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              </>
            )
          }
        </Load>
      </section>
      <section aria-labelledby="payouts-title">
        <h2 id="payouts-title">Payouts</h2>
        <form class="filters" onSubmit={(e) => e.preventDefault()}>
          <label>
            Period
            <select
              name="payout_days"
              value={String(period)}
              onChange={(e) =>
                navigate(href('/balances', { payout_days: e.currentTarget.value }), true)
              }
            >
              {PERIODS.map((d) => (
                <option key={d} value={String(d)}>
                  last {d} days
                </option>
              ))}
            </select>
          </label>
        </form>
        <Load r={payouts} what="payouts">
          {({ payouts: list }) =>
            list.length === 0 ? (
              <Empty>No payout sources.</Empty>
            ) : (
              <div class="cards">
                {list.map((p) => (
                  <article
                    class="card payout"
                    key={`${p.provider}-${p.mode ?? ''}`}
                    data-provider={p.provider}
                  >
                    <h3>
                      {p.provider} {p.mode && <Badge value={p.mode} />} <Badge value={p.source} />
                    </h3>
                    {p.source === 'api_unavailable' ? (
                      <p class="muted">This provider has no payout interface.</p>
                    ) : p.error ? (
                      <p class="state error" role="alert">
                        {p.error}
                      </p>
                    ) : p.items.length === 0 ? (
                      <Empty>No payouts in this period.</Empty>
                    ) : (
                      <PayoutItems items={p.items} />
                    )}
                  </article>
                ))}
              </div>
            )
          }
        </Load>
      </section>
    </>
  );
}

/** Payout items as the provider reports them: a column per field, money and times shaped. */
function PayoutItems({ items }: { items: Record<string, unknown>[] }) {
  const keys = [...new Set(items.flatMap((i) => Object.keys(i)))];
  const cell = (item: Record<string, unknown>, k: string) => {
    const v = item[k];
    const currency = typeof item.currency === 'string' ? item.currency : undefined;
    if (k.endsWith('_minor') && isMinor(v) && currency)
      return <Money minor={v} currency={currency} />;
    if (typeof v === 'string' && (k.endsWith('_at') || k === 'date') && formatLocal(v) !== v)
      return <Time iso={v} />;
    if (v === null || v === undefined) return '—';
    return typeof v === 'object' ? JSON.stringify(v) : String(v);
  };
  return (
    <div class="table-wrap">
      <table class="compact">
        <thead>
          <tr>
            {keys.map((k) => (
              <th key={k}>{k}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {items.map((item, i) => (
            <tr key={i}>
              {keys.map((k) => (
                <td key={k} class={k.endsWith('_minor') ? 'num' : undefined}>
                  {cell(item, k)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
