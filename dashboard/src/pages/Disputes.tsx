import { Badge, Link, Money, Time } from '../components';
import { ListPage } from '../ListPage';
import { shortId } from '../format';
import { href, type Location } from '../router';
import { DISPUTE_STATUSES, MODES, PROVIDERS, type DisputeRow } from '../types';

/** docs/api.md#dispute-object: a dispute's rows, shared by this page and the payment detail. */
export function DisputeTable({
  disputes,
  withPayment,
}: {
  disputes: DisputeRow[];
  withPayment: boolean;
}) {
  return (
    <div class="table-wrap">
      <table class="disputes-table">
        <thead>
          <tr>
            <th>Dispute</th>
            <th>Opened</th>
            <th>Status</th>
            <th class="num">Amount</th>
            <th>Evidence due</th>
            <th>Closed</th>
            {withPayment && <th>Payment</th>}
            <th>Provider</th>
            <th>Reason</th>
          </tr>
        </thead>
        <tbody>
          {disputes.map((d) => (
            <tr key={d.dispute_id} data-id={d.dispute_id} data-status={d.status}>
              <td class="mono" title={`${d.dispute_id} (${d.provider_ref})`}>
                {shortId(d.dispute_id)}
              </td>
              <td>
                <Time iso={d.opened_at} />
              </td>
              <td>
                <Badge value={d.status} />
              </td>
              <td class="num">
                <Money minor={d.amount_minor} currency={d.currency} />
              </td>
              <td data-field="evidence_due_by">
                <Time iso={d.evidence_due_by} />
              </td>
              <td>
                <Time iso={d.closed_at} />
              </td>
              {withPayment && (
                <td>
                  <Link class="mono" href={href(`/payments/${d.payment_id}`)} title={d.payment_id}>
                    {shortId(d.payment_id)}
                  </Link>
                </td>
              )}
              {/* The provider's reference is long (a UUID for idr_psp): shown on hover. */}
              <td title={d.provider_ref}>{d.provider}</td>
              <td>{d.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Money providers took back (GET /admin/disputes), newest first. */
export function Disputes({ loc }: { loc: Location }) {
  const filters = {
    status: loc.params.get('status') ?? '',
    provider: loc.params.get('provider') ?? '',
    mode: loc.params.get('mode') ?? '',
  };
  return (
    <ListPage<keyof typeof filters, DisputeRow>
      title="Disputes"
      path="/disputes"
      api="/admin/disputes"
      field="disputes"
      what="disputes"
      noun="disputes"
      filters={filters}
      selects={[
        { name: 'status', label: 'Status', all: 'all', values: DISPUTE_STATUSES },
        { name: 'provider', label: 'Provider', all: 'all', values: PROVIDERS },
        { name: 'mode', label: 'Mode', all: 'all', values: MODES },
      ]}
      before={loc.params.get('before') ?? ''}
      cursor={(d) => d.dispute_id}
    >
      {(disputes) => <DisputeTable disputes={disputes} withPayment />}
    </ListPage>
  );
}
