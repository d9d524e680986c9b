import { useState } from 'preact/hooks';
import { api } from '../api';
import {
  Badge,
  ConfirmDialog,
  CopyButton,
  Empty,
  Link,
  Load,
  PageTitle,
  Time,
  useApi,
} from '../components';
import { href } from '../router';
import { EVENT_TYPES, type App, type Endpoint, type EndpointStats } from '../types';

/** The webhook endpoints of one app (docs/api.md#webhook-endpoints). */
export function Endpoints({ appId }: { appId: string }) {
  const base = `/admin/apps/${encodeURIComponent(appId)}/endpoints`;
  const apps = useApi<{ apps: App[] }>('/admin/apps');
  const r = useApi<{ endpoints: Endpoint[] }>(base);
  const [creating, setCreating] = useState(false);
  // A secret exists only here, in memory, until dismissed: the API never returns it again.
  const [secret, setSecret] = useState<{ title: string; secret: string; note?: string } | null>(
    null,
  );
  const [rotate, setRotate] = useState<Endpoint | null>(null);
  const [recover, setRecover] = useState<Endpoint | null>(null);
  const [stats, setStats] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const app = apps.state === 'ok' ? apps.data.apps.find((a) => a.app_id === appId) : undefined;

  const toggle = async (ep: Endpoint) => {
    await api('PATCH', `${base}/${ep.endpoint_id}`, { disabled: !ep.disabled });
    setStatus(`${ep.url}: ${ep.disabled ? 'enabled' : 'disabled'}.`);
    r.reload();
  };

  return (
    <>
      <PageTitle title="Webhook endpoints">
        Webhook endpoints {app ? `of ${app.name}` : ''}
      </PageTitle>
      <p>
        <Link href={href('/apps')}>All apps</Link>. The app's webhook_url (
        <span class="mono">{app?.webhook_url ?? 'none'}</span>) is its default endpoint for payment,
        refund and subscription events; the endpoints below get the kinds they subscribe to,
        disputes included, each with its own secret and queue.
      </p>
      {status && (
        <p class="state success" role="status" id="action-result">
          {status}
        </p>
      )}
      {secret && (
        <section class="card secrets" aria-label="New secret">
          <h2>{secret.title}</h2>
          <p>Shown once. Store it in the receiver's configuration now.</p>
          <p class="mono" data-field="secret">
            {secret.secret} <CopyButton text={secret.secret} label="secret" />
          </p>
          {secret.note && <p data-field="rotation-note">{secret.note}</p>}
          <button type="button" onClick={() => setSecret(null)}>
            Done
          </button>
        </section>
      )}
      {creating ? (
        <EndpointForm
          base={base}
          onCancel={() => setCreating(false)}
          onCreated={(s) => {
            setCreating(false);
            setSecret({ title: `Endpoint ${s.url} created`, secret: s.secret });
            r.reload();
          }}
        />
      ) : (
        <p>
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            New endpoint
          </button>
        </p>
      )}
      <Load r={r} what="endpoints">
        {({ endpoints }) =>
          endpoints.length === 0 ? (
            <Empty>No endpoints: events go to the webhook_url only.</Empty>
          ) : (
            <ul class="app-list">
              {endpoints.map((ep) => (
                <li key={ep.endpoint_id} class="card app" data-endpoint-id={ep.endpoint_id}>
                  <div class="app-head">
                    <h2 class="mono">{ep.url}</h2>
                    <Badge value={ep.disabled ? 'disabled' : 'enabled'} />
                  </div>
                  <dl class="fields">
                    <div>
                      <dt>endpoint_id</dt>
                      <dd class="mono">{ep.endpoint_id}</dd>
                    </div>
                    <div class="wide">
                      <dt>events</dt>
                      <dd data-field="event_types">{ep.event_types.join(', ')}</dd>
                    </div>
                    {ep.description && (
                      <div class="wide">
                        <dt>description</dt>
                        <dd>{ep.description}</dd>
                      </div>
                    )}
                    {ep.disabled_reason && (
                      <div class="wide">
                        <dt>disabled</dt>
                        <dd data-field="disabled_reason">{ep.disabled_reason}</dd>
                      </div>
                    )}
                    {ep.failing_since && (
                      <div>
                        <dt>failing since</dt>
                        <dd data-field="failing_since">
                          <Time iso={ep.failing_since} />
                        </dd>
                      </div>
                    )}
                    {ep.rotates_at && Date.parse(ep.rotates_at) > Date.now() && (
                      <div class="wide">
                        <dt>rotation window</dt>
                        <dd data-field="rotation">
                          old secret signs until <Time iso={ep.rotates_at} />
                        </dd>
                      </div>
                    )}
                  </dl>
                  <div class="actions-row">
                    <button
                      type="button"
                      onClick={() => setStats(stats === ep.endpoint_id ? null : ep.endpoint_id)}
                    >
                      {stats === ep.endpoint_id ? 'Hide stats' : 'Stats and attempts'}
                    </button>
                    <button type="button" onClick={() => setRecover(ep)} disabled={ep.disabled}>
                      Recover…
                    </button>
                    <button type="button" onClick={() => setRotate(ep)}>
                      Rotate secret…
                    </button>
                    <button
                      type="button"
                      class={ep.disabled ? '' : 'danger'}
                      onClick={() => void toggle(ep)}
                    >
                      {ep.disabled ? 'Enable' : 'Disable'}
                    </button>
                  </div>
                  {stats === ep.endpoint_id && <Stats path={`${base}/${ep.endpoint_id}/stats`} />}
                </li>
              ))}
            </ul>
          )
        }
      </Load>
      <RotateDialog
        base={base}
        ep={rotate}
        onClose={() => setRotate(null)}
        onDone={(s, note) => {
          setSecret({ title: `New secret for ${rotate?.url ?? ''}`, secret: s, note });
          setRotate(null);
          r.reload();
        }}
      />
      <RecoverDialog
        base={base}
        ep={recover}
        onClose={() => setRecover(null)}
        onDone={(text) => {
          setStatus(text);
          setRecover(null);
        }}
      />
    </>
  );
}

function EndpointForm({
  base,
  onCancel,
  onCreated,
}: {
  base: string;
  onCancel: () => void;
  onCreated: (e: { url: string; secret: string }) => void;
}) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [all, setAll] = useState(true);
  const [kinds, setKinds] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const created = await api<{ url: string; secret: string }>('POST', base, {
        url,
        event_types: all ? ['*'] : kinds,
        description,
      });
      onCreated(created);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <form class="card" onSubmit={(e) => void submit(e)} aria-label="New endpoint">
      <label>
        URL
        <input
          name="url"
          type="url"
          required
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
      </label>
      <label>
        Description
        <input
          name="description"
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
      </label>
      <fieldset>
        <legend>Events</legend>
        <label>
          <input
            type="checkbox"
            name="all"
            checked={all}
            onChange={(e) => setAll(e.currentTarget.checked)}
          />{' '}
          every kind (*)
        </label>
        {!all &&
          EVENT_TYPES.map((k) => (
            <label key={k}>
              <input
                type="checkbox"
                name={k}
                checked={kinds.includes(k)}
                onChange={(e) =>
                  setKinds(e.currentTarget.checked ? [...kinds, k] : kinds.filter((x) => x !== k))
                }
              />{' '}
              {k}
            </label>
          ))}
      </fieldset>
      {error && (
        <p class="state error" role="alert">
          {error}
        </p>
      )}
      <div class="actions-row">
        <button type="submit" class="primary">
          Create endpoint
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function Stats({ path }: { path: string }) {
  const [days, setDays] = useState(7);
  const r = useApi<EndpointStats>(`${path}?days=${days}`);
  return (
    <section class="endpoint-stats" aria-label="Endpoint stats">
      <label>
        Days{' '}
        <select value={days} onChange={(e) => setDays(Number(e.currentTarget.value))}>
          {[1, 7, 30, 90].map((d) => (
            <option key={d} value={d}>
              {d}
            </option>
          ))}
        </select>
      </label>
      <Load r={r} what="stats">
        {(s) => (
          <>
            <p data-field="stats">
              {s.attempts} attempts, {s.delivered} delivered, success rate{' '}
              {s.success_rate === null ? '–' : `${(s.success_rate * 100).toFixed(1)} %`}; latency
              p50 {s.latency_ms.p50 ?? '–'} ms, p90 {s.latency_ms.p90 ?? '–'} ms, p99{' '}
              {s.latency_ms.p99 ?? '–'} ms
            </p>
            {s.recent_attempts.length > 0 && (
              <table>
                <caption>Latest attempts</caption>
                <thead>
                  <tr>
                    <th>When</th>
                    <th>Event</th>
                    <th>Outcome</th>
                    <th>Status</th>
                    <th>ms</th>
                    <th>Answer</th>
                  </tr>
                </thead>
                <tbody>
                  {s.recent_attempts.map((a) => (
                    <tr key={`${a.delivery_id}-${a.attempt}`}>
                      <td>
                        <Time iso={a.started_at} />
                      </td>
                      <td>{a.event_type}</td>
                      <td>
                        <Badge value={a.outcome} />
                      </td>
                      <td>{a.status_code ?? '–'}</td>
                      <td>{a.duration_ms}</td>
                      <td class="mono" data-field="response_body">
                        {a.response_body ?? a.error ?? ''}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </>
        )}
      </Load>
    </section>
  );
}

function RotateDialog({
  base,
  ep,
  onClose,
  onDone,
}: {
  base: string;
  ep: Endpoint | null;
  onClose: () => void;
  onDone: (secret: string, note: string) => void;
}) {
  const [hours, setHours] = useState(24);
  return (
    <ConfirmDialog
      open={ep !== null}
      title="Rotate this endpoint's secret?"
      confirmLabel="Rotate secret"
      danger
      onCancel={onClose}
      run={async () => {
        if (!ep) return;
        const res = await api<{ secret: string; rotates_at: string }>(
          'POST',
          `${base}/${ep.endpoint_id}/rotate-secret`,
          { grace_hours: hours },
        );
        onDone(
          res.secret,
          hours === 0
            ? 'The old secret stopped signing now.'
            : `Until ${new Date(res.rotates_at).toUTCString()} deliveries carry X-PAY-Signature under the old secret and X-PAY-Signature-Next under this one.`,
        );
      }}
    >
      <p>
        <span class="mono">{ep?.url}</span> gets a new secret.
      </p>
      <label>
        Grace window (hours, 0 to 168; 0 replaces the secret at once)
        <input
          name="grace_hours"
          type="number"
          min={0}
          max={168}
          value={hours}
          onInput={(e) => setHours(Number(e.currentTarget.value))}
        />
      </label>
    </ConfirmDialog>
  );
}

function RecoverDialog({
  base,
  ep,
  onClose,
  onDone,
}: {
  base: string;
  ep: Endpoint | null;
  onClose: () => void;
  onDone: (text: string) => void;
}) {
  const [since, setSince] = useState(() =>
    new Date(Date.now() - 86_400_000).toISOString().slice(0, 16),
  );
  return (
    <ConfirmDialog
      open={ep !== null}
      title="Recover missed events?"
      confirmLabel="Recover"
      onCancel={onClose}
      run={async () => {
        if (!ep) return;
        const res = await api<{ deliveries: number }>('POST', `${base}/${ep.endpoint_id}/recover`, {
          since: new Date(`${since}:00Z`).toISOString(),
        });
        onDone(`${ep.url}: ${res.deliveries} deliveries enqueued.`);
      }}
    >
      <p>Every event since the time below that this endpoint did not get is sent again.</p>
      <label>
        Since (UTC)
        <input
          name="since"
          type="datetime-local"
          value={since}
          onInput={(e) => setSince(e.currentTarget.value)}
        />
      </label>
    </ConfirmDialog>
  );
}
