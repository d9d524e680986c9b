import { useState } from 'preact/hooks';
import { api } from '../api';
import { Badge, CopyButton, Empty, Link, Load, PageTitle, Time, useApi } from '../components';
import { href } from '../router';
import { EVENT_TYPES, type App, type Endpoint } from '../types';
import { RecoverDialog, RotateDialog, Stats } from './EndpointParts';

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
