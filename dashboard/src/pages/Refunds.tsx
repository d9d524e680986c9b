import { Badge, Link, Money, Time } from '../components';
import { ListPage } from '../ListPage';
import { shortId } from '../format';
import { href, type Location } from '../router';
import { MODES, type RefundRow } from '../types';

export function Refunds({ loc }: { loc: Location }) {
  return (
    <ListPage<'mode', RefundRow>
      title="Refunds"
      path="/refunds"
      api="/admin/refunds"
      field="refunds"
      what="refunds"
      noun="refunds"
      filters={{ mode: loc.params.get('mode') ?? '' }}
      selects={[{ name: 'mode', label: 'Mode', all: 'all modes', values: MODES }]}
      before={loc.params.get('before') ?? ''}
      cursor={(f) => f.id}
    >
      {(refunds) => (
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
    </ListPage>
  );
}
