import { Badge, Link, Money, Time } from '../components';
import { ListPage } from '../ListPage';
import { shortId } from '../format';
import { href, type Location } from '../router';
import { LEDGER_TYPES, MODES, PROVIDERS, type LedgerEntry } from '../types';

const CURRENCIES = ['EUR', 'GBP', 'IDR', 'USD'] as const;

/**
 * The ledger (docs/api.md#ledger) per provider and currency: every movement of money,
 * newest first. With one provider and one currency chosen, the page's entries share a
 * currency and their sum is shown; the overview's net is the ledger's sum over its window.
 */
export function Ledger({ loc }: { loc: Location }) {
  const f = {
    provider: loc.params.get('provider') ?? '',
    currency: loc.params.get('currency') ?? '',
    type: loc.params.get('type') ?? '',
    mode: loc.params.get('mode') ?? '',
  };
  return (
    <ListPage<keyof typeof f, LedgerEntry>
      title="Ledger"
      path="/ledger"
      api="/admin/ledger"
      field="entries"
      what="ledger entries"
      noun="entries"
      filters={f}
      selects={[
        { name: 'provider', label: 'Provider', all: 'all providers', values: PROVIDERS },
        { name: 'currency', label: 'Currency', all: 'all currencies', values: CURRENCIES },
        { name: 'type', label: 'Type', all: 'all types', values: LEDGER_TYPES },
        { name: 'mode', label: 'Mode', all: 'all modes', values: MODES },
      ]}
      before={loc.params.get('before') ?? ''}
      cursor={(e) => e.id}
    >
      {(entries) => {
        const one = f.currency !== '' && entries.length > 0;
        // Entries are at most 2^53 − 1 each and a page holds 50: a Number sum stays exact.
        const pageSum = entries.reduce((s, e) => s + e.amount_minor, 0);
        return (
          <div class="table-wrap">
            <table id="ledger-table">
              <thead>
                <tr>
                  <th>Entry</th>
                  <th>Occurred</th>
                  <th>Type</th>
                  <th class="num">Amount</th>
                  <th class="num">Fee</th>
                  <th>Provider</th>
                  <th>Payment</th>
                  <th>Mode</th>
                </tr>
              </thead>
              <tbody>
                {entries.map((e) => (
                  <tr key={e.id} data-id={e.id} data-type={e.type}>
                    <td class="mono" title={e.id}>
                      {shortId(e.id)}
                    </td>
                    <td>
                      <Time iso={e.occurred_at} />
                    </td>
                    <td>
                      <Badge value={e.type} />
                    </td>
                    <td class="num" data-field="amount_minor">
                      <Money minor={e.amount_minor} currency={e.currency} />
                    </td>
                    <td class="num">
                      {e.fee_minor === null ? (
                        '—'
                      ) : (
                        <Money minor={e.fee_minor} currency={e.currency} />
                      )}
                    </td>
                    <td>{e.provider}</td>
                    <td>
                      <Link
                        class="mono"
                        href={href(`/payments/${e.payment_id}`)}
                        title={e.payment_id}
                      >
                        {shortId(e.payment_id)}
                      </Link>
                    </td>
                    <td>{e.mode}</td>
                  </tr>
                ))}
              </tbody>
              {one && (
                <tfoot>
                  <tr>
                    <th colSpan={3}>This page</th>
                    <td class="num" id="ledger-page-sum">
                      <Money minor={pageSum} currency={f.currency} />
                    </td>
                    <td colSpan={4} />
                  </tr>
                </tfoot>
              )}
            </table>
          </div>
        );
      }}
    </ListPage>
  );
}
