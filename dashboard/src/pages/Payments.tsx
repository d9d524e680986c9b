import { useState } from 'preact/hooks';
import { query } from '../api';
import { Badge, Empty, Link, Load, Money, PageTitle, Time, useApi } from '../components';
import { shortId } from '../format';
import { href, navigate, type Location } from '../router';
import { ScenarioBadge } from '../scenario';
import { MODES, PAYMENT_STATUSES, type App, type PaymentRow } from '../types';

const LIMITS = [25, 50, 100];
const SEARCH_FIELDS = ['q', 'app_id', 'created_from', 'created_to', 'amount_min', 'amount_max'];
const HEX32 = /^[0-9a-f]{32}$/;

// Cursors of the pages before this one, so "Newer" walks back the way "Older" came.
const trail: string[] = [];

export function Payments({ loc }: { loc: Location }) {
  const mode = loc.params.get('mode') ?? '';
  const status = loc.params.get('status') ?? '';
  const limitParam = Number(loc.params.get('limit') ?? '50');
  const limit =
    Number.isInteger(limitParam) && limitParam >= 1 && limitParam <= 1000 ? limitParam : 50;
  const before = loc.params.get('before') ?? '';
  const search = Object.fromEntries(SEARCH_FIELDS.map((f) => [f, loc.params.get(f) ?? '']));
  const r = useApi<{ payments: PaymentRow[]; next_before: string | null }>(
    `/admin/payments${query({ mode, status, limit, before, ...search })}`,
  );
  // Names for the App column; until they arrive (or if the list fails) the short id stands in.
  const apps = useApi<{ apps: App[] }>('/admin/apps');
  const appName = (appId: string | undefined): string => {
    if (!appId) return '—';
    const found = apps.state === 'ok' ? apps.data.apps.find((a) => a.app_id === appId) : undefined;
    return found?.name ?? shortId(appId);
  };
  const go = (next: Record<string, string | number>, keepTrail = false) => {
    if (!keepTrail) trail.length = 0;
    navigate(href('/payments', { mode, status, limit, before: '', ...search, ...next }));
  };

  return (
    <>
      <PageTitle title="Payments">Payments</PageTitle>
      <div class="toolbar">
        <form class="filters" onSubmit={(e) => e.preventDefault()}>
          <label>
            Mode
            <select name="mode" value={mode} onChange={(e) => go({ mode: e.currentTarget.value })}>
              <option value="">all modes</option>
              {MODES.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          </label>
          <label>
            Status
            <select
              name="status"
              value={status}
              onChange={(e) => go({ status: e.currentTarget.value })}
            >
              <option value="">any status</option>
              {PAYMENT_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
          <label>
            Per page
            <select
              name="limit"
              value={String(limit)}
              onChange={(e) => go({ limit: Number(e.currentTarget.value) })}
            >
              {(LIMITS.includes(limit) ? LIMITS : [...LIMITS, limit].sort((a, b) => a - b)).map(
                (l) => (
                  <option key={l} value={String(l)}>
                    {l}
                  </option>
                ),
              )}
            </select>
          </label>
        </form>
        <OpenById />
      </div>
      <SearchFilters
        key={SEARCH_FIELDS.map((f) => search[f]).join('|')}
        values={search}
        apply={(next) => go(next)}
      />

      <Load r={r} what="payments">
        {({ payments, next_before: next }) => {
          // The status filter is the API's; this keeps the page honest if a row slips through.
          const rows = status ? payments.filter((p) => p.status === status) : payments;
          // A search reads a bounded number of payments a page (docs/api.md#bounded-search): a
          // page shorter than the limit, even an empty one, may have more after it; only a null
          // next_before is the end.
          const stopped = next !== null && payments.length < limit;
          return (
            <>
              {rows.length === 0 ? (
                <Empty>
                  {stopped
                    ? 'No match among the payments searched so far: Older → searches further.'
                    : before
                      ? 'No older payments.'
                      : 'No payments match these filters.'}
                </Empty>
              ) : (
                <div class="table-wrap">
                  <table id="payments-table">
                    <thead>
                      <tr>
                        <th>Payment</th>
                        <th>App</th>
                        <th>Created</th>
                        <th>Status</th>
                        <th class="num">Amount</th>
                        <th>Method</th>
                        <th>Provider</th>
                        <th>Mode</th>
                        <th>Refund</th>
                      </tr>
                    </thead>
                    <tbody>
                      {rows.map((p) => (
                        <tr key={p.id} data-id={p.id}>
                          <td>
                            <Link class="mono" href={href(`/payments/${p.id}`)} title={p.id}>
                              {shortId(p.id)}
                            </Link>
                            <ScenarioBadge value={p.test_scenario} />
                          </td>
                          <td data-field="app" title={p.app_id}>
                            {appName(p.app_id)}
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
                          <td>{p.method}</td>
                          <td>{p.provider}</td>
                          <td>{p.mode}</td>
                          <td data-field="refund">
                            <Badge value={p.refund_status} />
                            {p.refund_amount_minor !== null &&
                              p.refund_amount_minor !== undefined && (
                                <span class="refund-amount">
                                  {' '}
                                  <Money minor={p.refund_amount_minor} currency={p.currency} />
                                  {p.refund_amount_minor < p.amount_minor ? ' (partial)' : ''}
                                </span>
                              )}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
              {stopped && rows.length > 0 && (
                <p class="muted" id="payments-partial">
                  The search stopped after a bounded number of payments: Older → searches further.
                </p>
              )}
              <nav class="pager" aria-label="Pages">
                <button
                  type="button"
                  disabled={!before}
                  onClick={() => {
                    const prev = trail.pop();
                    go({ before: prev ?? '' }, true);
                  }}
                >
                  ← Newer
                </button>
                <button
                  type="button"
                  disabled={next === null}
                  onClick={() => {
                    if (next === null) return;
                    trail.push(before);
                    go({ before: next }, true);
                  }}
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

/** The search parameters of GET /admin/payments; the API's 400 explains a bad value. */
function SearchFilters({
  values,
  apply,
}: {
  values: Record<string, string>;
  apply: (next: Record<string, string>) => void;
}) {
  const field = (name: string, label: string, date = false) => (
    <label>
      {label}
      {date ? (
        <input name={name} type="date" defaultValue={values[name]} />
      ) : (
        <input name={name} type="text" defaultValue={values[name]} spellcheck={false} />
      )}
    </label>
  );
  return (
    <form
      class="filters search-filters"
      aria-label="Search payments"
      onSubmit={(e) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        apply(Object.fromEntries(SEARCH_FIELDS.map((f) => [f, String(data.get(f) ?? '').trim()])));
      }}
    >
      {field('q', 'Search')}
      {field('app_id', 'App id')}
      {field('created_from', 'Created from', true)}
      {field('created_to', 'Created before', true)}
      {field('amount_min', 'Amount min (minor)')}
      {field('amount_max', 'Amount max (minor)')}
      <button type="submit">Apply</button>
      <button
        type="button"
        onClick={() => apply(Object.fromEntries(SEARCH_FIELDS.map((f) => [f, ''])))}
      >
        Clear
      </button>
    </form>
  );
}

function OpenById() {
  const [id, setId] = useState('');
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      class="open-by-id"
      onSubmit={(e) => {
        e.preventDefault();
        const v = id.trim().toLowerCase();
        if (!HEX32.test(v)) {
          setError('A payment id is 32 hex characters.');
          return;
        }
        setError(null);
        navigate(href(`/payments/${v}`));
      }}
    >
      <label for="open-id">Open payment by id</label>
      <div class="inline">
        <input
          id="open-id"
          class="mono"
          value={id}
          spellcheck={false}
          autoComplete="off"
          placeholder="32 hex characters"
          onInput={(e) => setId(e.currentTarget.value)}
          aria-describedby={error ? 'open-id-error' : undefined}
        />
        <button type="submit">Open</button>
      </div>
      {error && (
        <p id="open-id-error" class="state error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
