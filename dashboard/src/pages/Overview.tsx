import { query } from '../api';
import { DailyChart, fillDays, type DailyPoint } from '../Chart';
import { Badge, Empty, Link, Load, Money, PageTitle, Time, useApi } from '../components';
import { formatCount } from '../format';
import { href, navigate, type Location } from '../router';
import {
  MODES,
  type CountFields,
  type CurrencyTotals,
  type Summary,
  type Timeseries,
} from '../types';

const WINDOWS = [1, 7, 30, 90, 366];

const isQuiet = (c: CurrencyTotals) =>
  c.succeeded_count === 0 &&
  Number(c.refunded_minor) === 0 &&
  !c.failed_count &&
  !c.canceled_count &&
  !c.initiated_count;

function Amounts({
  rows,
  field,
}: {
  rows: CurrencyTotals[] | undefined;
  field: keyof CurrencyTotals;
}) {
  if (!rows || rows.length === 0) return <span class="muted">—</span>;
  return (
    <ul class="amounts">
      {rows.map((c) => (
        <li key={c.currency}>
          <Money minor={Number(c[field])} currency={c.currency} />
        </li>
      ))}
    </ul>
  );
}

function CountCells({ row, amounts }: { row: CountFields; amounts: boolean }) {
  const n = (v: number | undefined) => (v === undefined ? '—' : formatCount(v));
  return (
    <>
      <td class="num">{n(row.succeeded_count)}</td>
      <td class="num">{n(row.failed_count)}</td>
      <td class="num">{n(row.canceled_count)}</td>
      <td class="num">{n(row.initiated_count)}</td>
      <td class="num">{n(row.refunded_count)}</td>
      {amounts && <AmountCells row={row} />}
    </>
  );
}

function AmountCells({ row }: { row: CountFields }) {
  return (
    <>
      <td class="num">
        <Amounts rows={row.by_currency} field="succeeded_minor" />
      </td>
      <td class="num">
        <Amounts rows={row.by_currency} field="refunded_minor" />
      </td>
      <td class="num">
        <Amounts rows={row.by_currency} field="net_minor" />
      </td>
    </>
  );
}

function CountHeaders({ amounts }: { amounts: boolean }) {
  return (
    <>
      <th class="num">Succeeded</th>
      <th class="num">Failed</th>
      <th class="num">Canceled</th>
      <th class="num">Initiated</th>
      <th class="num">Refunds</th>
      {amounts && (
        <>
          <th class="num">Amount</th>
          <th class="num">Refunded</th>
          <th class="num">Net</th>
        </>
      )}
    </>
  );
}

// Money columns need currencies: rows without by_currency (a provider's) show counts only.
const hasAmounts = (rows: CountFields[]) => rows.some((r) => r.by_currency !== undefined);

export function Overview({ loc }: { loc: Location }) {
  const daysParam = Number(loc.params.get('days') ?? '30');
  const days = Number.isInteger(daysParam) && daysParam >= 1 && daysParam <= 366 ? daysParam : 30;
  const mode = loc.params.get('mode') ?? '';
  const summary = useApi<Summary>(`/admin/summary${query({ days, mode })}`);
  const series = useApi<Timeseries>(`/admin/timeseries${query({ days, mode })}`);
  const set = (next: { days?: number; mode?: string }) =>
    navigate(href('/', { days: next.days ?? days, mode: next.mode ?? mode }), true);

  return (
    <>
      <PageTitle title="Overview">Overview</PageTitle>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Window
          <select
            name="days"
            value={String(days)}
            onChange={(e) => set({ days: Number(e.currentTarget.value) })}
          >
            {(WINDOWS.includes(days) ? WINDOWS : [...WINDOWS, days].sort((a, b) => a - b)).map(
              (d) => (
                <option key={d} value={String(d)}>
                  {d === 1 ? 'last day' : `last ${d} days`}
                </option>
              ),
            )}
          </select>
        </label>
        <label>
          Mode
          <select name="mode" value={mode} onChange={(e) => set({ mode: e.currentTarget.value })}>
            <option value="">all modes</option>
            {MODES.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
      </form>

      <Load r={summary} what="the summary">
        {(s) => (
          <>
            <p class="muted window">
              From <Time iso={s.since} /> to <Time iso={s.as_of} />
              {s.mode ? ` · ${s.mode} mode` : ' · all modes'}
            </p>
            <section aria-labelledby="by-currency">
              <h2 id="by-currency">By currency</h2>
              {s.by_currency.every(isQuiet) ? (
                <Empty>No payments in this window.</Empty>
              ) : (
                <div class="cards">
                  {s.by_currency.map((c) => (
                    <article
                      class={`card currency${isQuiet(c) ? ' quiet' : ''}`}
                      key={c.currency}
                      data-currency={c.currency}
                    >
                      <h3>{c.currency}</h3>
                      <dl>
                        <dt>Succeeded</dt>
                        <dd data-field="succeeded_count" data-value={c.succeeded_count}>
                          {formatCount(c.succeeded_count)}
                        </dd>
                        <dt>Amount</dt>
                        <dd data-field="succeeded_minor">
                          <Money minor={c.succeeded_minor} currency={c.currency} />
                        </dd>
                        <dt>
                          Refunded
                          {c.refunded_count !== undefined && (
                            <span class="muted small"> ({formatCount(c.refunded_count)})</span>
                          )}
                        </dt>
                        <dd data-field="refunded_minor">
                          <Money minor={c.refunded_minor} currency={c.currency} />
                        </dd>
                        {c.disputed_minor !== undefined && String(c.disputed_minor) !== '0' && (
                          <>
                            <dt>Disputed</dt>
                            <dd data-field="disputed_minor">
                              <Money minor={c.disputed_minor} currency={c.currency} />
                            </dd>
                          </>
                        )}
                        <dt title="The sum of the ledger: late charges, their refunds and disputes included">
                          Net
                        </dt>
                        <dd data-field="net_minor" class="net">
                          <Link href={href('/ledger', { currency: c.currency })}>
                            <Money minor={c.net_minor} currency={c.currency} />
                          </Link>
                        </dd>
                      </dl>
                    </article>
                  ))}
                </div>
              )}
            </section>
          </>
        )}
      </Load>

      <section aria-labelledby="daily">
        <h2 id="daily">Daily succeeded</h2>
        <Load r={series} what="the daily series">
          {(t) => <DailyCharts t={t} />}
        </Load>
      </section>

      <Load r={summary} what="the tables">
        {(s) => (
          <>
            <section aria-labelledby="by-app">
              <h2 id="by-app">By app</h2>
              {s.by_app.length === 0 ? (
                <Empty>No apps with payments in this window.</Empty>
              ) : (
                <div class="table-wrap">
                  <table id="table-by-app">
                    <thead>
                      <tr>
                        <th>App</th>
                        <th>Mode</th>
                        <CountHeaders amounts={hasAmounts(s.by_app)} />
                      </tr>
                    </thead>
                    <tbody>
                      {s.by_app.map((a) => (
                        <tr key={a.app_id} data-app-id={a.app_id}>
                          <th scope="row">
                            {a.app_name}
                            <div class="muted mono small">{a.app_id}</div>
                          </th>
                          <td>
                            <Badge value={a.app_mode} />
                          </td>
                          <CountCells row={a} amounts={hasAmounts(s.by_app)} />
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </section>
            <section aria-labelledby="by-provider">
              <h2 id="by-provider">By provider</h2>
              {s.by_provider.length === 0 ? (
                <Empty>No provider activity in this window.</Empty>
              ) : (
                <div class="table-wrap">
                  <table id="table-by-provider">
                    <thead>
                      <tr>
                        <th>Provider</th>
                        <CountHeaders amounts={hasAmounts(s.by_provider)} />
                      </tr>
                    </thead>
                    <tbody>
                      {s.by_provider.map((p) => (
                        <tr key={p.provider} data-provider={p.provider}>
                          <th scope="row">{p.provider}</th>
                          <CountCells row={p} amounts={hasAmounts(s.by_provider)} />
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </section>
          </>
        )}
      </Load>
    </>
  );
}

function DailyCharts({ t }: { t: Timeseries }) {
  const byCurrency = new Map<string, DailyPoint[]>();
  for (const b of t.buckets) {
    const list = byCurrency.get(b.currency) ?? [];
    list.push(b);
    byCurrency.set(b.currency, list);
  }
  // Every known currency comes with a bucket per day; chart the ones that sold something.
  const active = [...byCurrency.entries()]
    .filter(([, buckets]) => buckets.some((b) => b.succeeded_count > 0))
    .sort(([a], [b]) => a.localeCompare(b));
  if (active.length === 0) return <Empty>No succeeded payments in this window.</Empty>;
  return (
    <div class="charts">
      {active.map(([currency, buckets]) => {
        const points = fillDays(buckets);
        return (
          <figure class="card chart-card" key={currency} data-currency={currency}>
            <figcaption>{currency} per day (UTC)</figcaption>
            <DailyChart currency={currency} points={points} />
            <details>
              <summary>Table</summary>
              <div class="table-wrap">
                <table class="compact">
                  <thead>
                    <tr>
                      <th>Day</th>
                      <th class="num">Succeeded</th>
                      <th class="num">Amount</th>
                    </tr>
                  </thead>
                  <tbody>
                    {points
                      .filter((p) => p.succeeded_count > 0)
                      .map((p) => (
                        <tr key={p.day}>
                          <td>{p.day}</td>
                          <td class="num">{formatCount(p.succeeded_count)}</td>
                          <td class="num">
                            <Money minor={p.succeeded_minor} currency={currency} />
                          </td>
                        </tr>
                      ))}
                  </tbody>
                </table>
              </div>
            </details>
          </figure>
        );
      })}
    </div>
  );
}
