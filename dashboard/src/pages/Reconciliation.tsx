import { useState } from 'preact/hooks';
import { api, download, query, uploadFile } from '../api';
import { Badge, Empty, errorText, Link, Load, Money, PageTitle, Time, useApi } from '../components';
import { formatCount, shortId } from '../format';
import { href, navigate, type Location } from '../router';
import {
  MODES,
  type Reconciliation as Day,
  type ReconciliationImport,
  type ReconciliationItem,
} from '../types';

const PROVIDERS = ['wallet_psp', 'card_psp', 'idr_psp'] as const;
const DAY_MS = 86_400_000;
const yesterday = () => new Date(Date.now() - DAY_MS).toISOString().slice(0, 10);

/** The day's sums, one row per currency: amounts of two currencies are never added. */
function Totals({ day }: { day: Day }) {
  if (day.by_currency.length === 0) return null;
  return (
    <div class="table-wrap">
      <table id="reconciliation-totals">
        <thead>
          <tr>
            <th>Currency</th>
            <th>Gateway net</th>
            <th>Provider net</th>
            <th>Provider fees</th>
          </tr>
        </thead>
        <tbody>
          {day.by_currency.map((c) => (
            <tr key={c.currency} data-currency={c.currency}>
              <td>{c.currency}</td>
              <td data-field="gateway_net_minor">
                <Money minor={c.gateway_net_minor} currency={c.currency} />
              </td>
              <td data-field="provider_net_minor">
                <Money minor={c.provider_net_minor} currency={c.currency} />
              </td>
              <td data-field="fees_minor">
                <Money minor={c.fees_minor} currency={c.currency} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Amount({ item, minor }: { item: ReconciliationItem; minor: number | null }) {
  return minor === null ? <>—</> : <Money minor={minor} currency={item.currency} />;
}

/**
 * Reconciliation (docs/api.md#reconciliation) per provider, mode and UTC day: the status of
 * the day's newest run, its sums and fees, each difference with a link to its payment; run it
 * now; idr_psp's settlement files uploaded here; the day and its ledger exported as CSV.
 */
export function Reconciliation({ loc }: { loc: Location }) {
  const f = {
    provider: loc.params.get('provider') ?? 'wallet_psp',
    mode: loc.params.get('mode') ?? 'live',
    date: loc.params.get('date') ?? yesterday(),
  };
  const r = useApi<Day>(`/admin/reconciliation${query(f)}`);
  const byFile = f.provider === 'idr_psp';
  const imports = useApi<{ imports: ReconciliationImport[] }>(
    byFile ? `/admin/reconciliation/imports${query({ provider: 'idr_psp', limit: 20 })}` : null,
  );
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const [file, setFile] = useState<File | null>(null);

  const act = async (what: () => Promise<string>) => {
    setBusy(true);
    setResult(null);
    try {
      setResult({ ok: true, text: await what() });
    } catch (err) {
      setResult({ ok: false, text: errorText(err) });
    } finally {
      setBusy(false);
    }
  };
  const runNow = () =>
    act(async () => {
      const day = await api<Day>('POST', '/admin/reconciliation/runs', f);
      r.reload();
      return `Reconciled: ${day.status}, ${day.items.length} difference(s).`;
    });
  const upload = () =>
    act(async () => {
      if (!file) throw new Error('choose a settlement file first');
      const imp = await uploadFile<ReconciliationImport>(
        `/admin/reconciliation/imports${query({ ...f, filename: file.name })}`,
        file,
      );
      imports.reload();
      return `Imported ${imp.filename}: ${formatCount(imp.row_count)} rows for ${imp.date}.`;
    });
  const exportDay = () =>
    act(async () => {
      await download(
        `/admin/reconciliation/export.csv${query(f)}`,
        `reconciliation-${f.provider}-${f.mode}-${f.date}.csv`,
      );
      return 'Differences exported.';
    });
  const exportLedger = () =>
    act(async () => {
      const until = new Date(Date.parse(`${f.date}T00:00:00Z`) + DAY_MS).toISOString();
      await download(
        `/admin/ledger/export.csv${query({ provider: f.provider, mode: f.mode, since: f.date, until })}`,
        `ledger-${f.provider}-${f.mode}-${f.date}.csv`,
      );
      return 'Ledger of the day exported.';
    });

  const set = (name: keyof typeof f, value: string) =>
    navigate(href('/reconciliation', { ...f, [name]: value }));

  return (
    <>
      <PageTitle title="Reconciliation">Reconciliation</PageTitle>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Provider
          <select
            name="provider"
            value={f.provider}
            onChange={(e) => set('provider', e.currentTarget.value)}
          >
            {PROVIDERS.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <label>
          Mode
          <select name="mode" value={f.mode} onChange={(e) => set('mode', e.currentTarget.value)}>
            {MODES.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
        <label>
          Day (UTC)
          <input
            type="date"
            name="date"
            value={f.date}
            onChange={(e) => e.currentTarget.value && set('date', e.currentTarget.value)}
          />
        </label>
        <button type="button" class="primary" id="run-now" disabled={busy} onClick={runNow}>
          Run now
        </button>
        <button type="button" id="export-items" disabled={busy} onClick={exportDay}>
          Export differences (CSV)
        </button>
        <button type="button" id="export-ledger" disabled={busy} onClick={exportLedger}>
          Export ledger of the day (CSV)
        </button>
      </form>
      {result && (
        <p
          class={`state ${result.ok ? 'success' : 'error'}`}
          role={result.ok ? 'status' : 'alert'}
          id="action-result"
        >
          {result.text}
        </p>
      )}
      <Load r={r} what="the reconciliation">
        {(day) => {
          return (
            <>
              <dl class="fields" id="reconciliation-summary">
                <div>
                  <dt>Status</dt>
                  <dd data-field="status">
                    <Badge value={day.status} />
                  </dd>
                </div>
                <div>
                  <dt>Run</dt>
                  <dd>{day.ran_at ? <Time iso={day.ran_at} /> : 'not yet'}</dd>
                </div>
                <div>
                  <dt>Matched</dt>
                  <dd data-field="matched_count">{formatCount(day.matched_count)}</dd>
                </div>
              </dl>
              <Totals day={day} />
              <h2>Differences</h2>
              {day.items.length === 0 ? (
                <Empty>
                  {day.status === 'pending' ? 'Not reconciled yet.' : 'No differences.'}
                </Empty>
              ) : (
                <div class="table-wrap">
                  <table id="reconciliation-items">
                    <thead>
                      <tr>
                        <th>Difference</th>
                        <th>Movement</th>
                        <th>Provider reference</th>
                        <th>Payment</th>
                        <th class="num">Gateway</th>
                        <th class="num">Provider</th>
                        <th>Provider status</th>
                        <th>Exception</th>
                      </tr>
                    </thead>
                    <tbody>
                      {day.items.map((i) => (
                        <tr key={`${i.kind}:${i.provider_ref}`} data-kind={i.kind}>
                          <td>
                            <Badge value={i.kind} />
                          </td>
                          <td>{i.movement}</td>
                          <td class="mono">{i.provider_ref}</td>
                          <td>
                            {i.payment_id ? (
                              <Link
                                class="mono"
                                href={href(`/payments/${i.payment_id}`)}
                                title={i.payment_id}
                              >
                                {shortId(i.payment_id)}
                              </Link>
                            ) : (
                              'unknown to the gateway'
                            )}
                          </td>
                          <td class="num">
                            <Amount item={i} minor={i.gateway_amount_minor} />
                          </td>
                          <td class="num">
                            <Amount item={i} minor={i.provider_amount_minor} />
                          </td>
                          <td>{i.provider_status ?? '—'}</td>
                          <td class="mono" title={i.exception_id ?? ''}>
                            {i.exception_id ? shortId(i.exception_id) : '—'}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </>
          );
        }}
      </Load>
      {byFile && (
        <>
          <h2>Settlement files</h2>
          <form
            class="filters"
            id="upload-form"
            onSubmit={(e) => {
              e.preventDefault();
              void upload();
            }}
          >
            <label>
              Settlement report of {f.date} (CSV)
              <input
                type="file"
                name="file"
                accept=".csv,text/csv"
                onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
              />
            </label>
            <button type="submit" class="primary" disabled={busy || !file}>
              Upload
            </button>
          </form>
          <Load r={imports} what="settlement files">
            {({ imports: list }) =>
              list.length === 0 ? (
                <Empty>No file uploaded yet.</Empty>
              ) : (
                <div class="table-wrap">
                  <table id="imports-table">
                    <thead>
                      <tr>
                        <th>File</th>
                        <th>Day</th>
                        <th>Mode</th>
                        <th class="num">Rows</th>
                        <th>Uploaded</th>
                        <th>By (source, request)</th>
                      </tr>
                    </thead>
                    <tbody>
                      {list.map((i) => (
                        <tr key={i.import_id}>
                          <td>{i.filename}</td>
                          <td>{i.date}</td>
                          <td>{i.mode}</td>
                          <td class="num">{formatCount(i.row_count)}</td>
                          <td>
                            <Time iso={i.uploaded_at} />
                          </td>
                          <td class="mono">
                            {i.uploaded_by.source_ip} · {i.uploaded_by.request_id}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )
            }
          </Load>
        </>
      )}
    </>
  );
}
