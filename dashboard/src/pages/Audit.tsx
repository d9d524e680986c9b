import { query } from '../api';
import { Empty, Load, PageTitle, Time, useApi } from '../components';
import { href, navigate, type Location } from '../router';
import { actorText, AUDIT_ACTIONS, type AuditEntry, type Operator } from '../types';

const LIMIT = 50;

/**
 * Every admin change, newest first: who did it (root or the operator, and the token), from
 * where (request id, address), what, and the outcome; filtered by person, action or target.
 */
export function Audit({ loc }: { loc: Location }) {
  const action = loc.params.get('action') ?? '';
  const target = loc.params.get('target_id') ?? '';
  const actor = loc.params.get('actor') ?? '';
  const before = loc.params.get('before') ?? '';
  const r = useApi<{ entries: AuditEntry[] }>(
    `/admin/audit${query({ action, target_id: target, actor, before, limit: LIMIT })}`,
  );
  const people = useApi<{ operators: Operator[] }>('/admin/operators');
  const go = (next: Record<string, string>) =>
    navigate(href('/audit', { action, target_id: target, actor, before: '', ...next }));

  return (
    <>
      <PageTitle title="Audit log">Audit log</PageTitle>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          const data = new FormData(e.currentTarget);
          go({ target_id: String(data.get('target_id') ?? '').trim() });
        }}
      >
        <label>
          Action
          <select
            name="action"
            value={action}
            onChange={(e) => go({ action: e.currentTarget.value })}
          >
            <option value="">any action</option>
            {AUDIT_ACTIONS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <label>
          Person
          <select name="actor" value={actor} onChange={(e) => go({ actor: e.currentTarget.value })}>
            <option value="">anyone</option>
            <option value="root">root (ADMIN_TOKEN)</option>
            {(people.data?.operators ?? []).map((o) => (
              <option key={o.id} value={o.id}>
                {o.email}
              </option>
            ))}
          </select>
        </label>
        <label>
          Target id
          <input name="target_id" class="mono" defaultValue={target} spellcheck={false} />
        </label>
        <button type="submit">Filter</button>
      </form>
      <Load r={r} what="audit entries">
        {({ entries }) => {
          const last = entries[entries.length - 1];
          return (
            <>
              {entries.length === 0 ? (
                <Empty>No audit entries.</Empty>
              ) : (
                <div class="table-wrap">
                  <table id="audit-table">
                    <thead>
                      <tr>
                        <th>When</th>
                        <th>Who</th>
                        <th>Action</th>
                        <th>Target</th>
                        <th>Outcome</th>
                        <th>Request</th>
                        <th>Source</th>
                        <th>Details</th>
                      </tr>
                    </thead>
                    <tbody>
                      {entries.map((e) => (
                        <tr key={e.id} data-id={e.id}>
                          <td>
                            <Time iso={e.at} />
                          </td>
                          <td data-field="actor">{actorText(e)}</td>
                          <td data-field="action">{e.action}</td>
                          <td class="mono small" data-field="target">
                            {e.target_type} {e.target_id}
                          </td>
                          <td data-field="outcome">{e.outcome}</td>
                          <td class="mono small">{e.request_id}</td>
                          <td class="mono small">{e.source_ip}</td>
                          <td class="mono small">{JSON.stringify(e.details)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
              <nav class="pager" aria-label="Pages">
                <button type="button" disabled={!before} onClick={() => go({ before: '' })}>
                  ← Newest
                </button>
                <button
                  type="button"
                  disabled={entries.length < LIMIT || !last}
                  onClick={() => last && go({ before: String(last.id) })}
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
