import { query } from '../api';
import { Empty, Load, Time, useApi } from '../components';
import { actorText, type AuditEntry } from '../types';

/** Who did what to one payment (the audit log's entries for it), newest first. */
export function OperatorActions({ paymentId }: { paymentId: string }) {
  const r = useApi<{ entries: AuditEntry[] }>(
    `/admin/audit${query({ target_id: paymentId, limit: 100 })}`,
  );
  return (
    <section class="card" aria-labelledby="operator-actions-title">
      <h2 id="operator-actions-title">Operator actions</h2>
      <Load r={r} what="operator actions">
        {({ entries }) =>
          entries.length === 0 ? (
            <Empty>No operator has acted on this payment.</Empty>
          ) : (
            <table id="operator-actions">
              <thead>
                <tr>
                  <th>When</th>
                  <th>Who</th>
                  <th>Action</th>
                  <th>Outcome</th>
                </tr>
              </thead>
              <tbody>
                {entries.map((e) => (
                  <tr key={e.id}>
                    <td>
                      <Time iso={e.at} />
                    </td>
                    <td data-field="actor">{actorText(e)}</td>
                    <td data-field="action">{e.action}</td>
                    <td data-field="outcome">{e.outcome}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Load>
    </section>
  );
}
