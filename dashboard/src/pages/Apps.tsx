import { useState } from 'preact/hooks';
import { api } from '../api';
import { href } from '../router';
import { Badge, ConfirmDialog, Empty, Link, Load, PageTitle, Time, useApi } from '../components';
import { type App, type AppSecrets } from '../types';
import { RedeliverDialog, SecretsPanel } from './AppDialogs';
import { AppForm } from './AppForm';

export function Apps() {
  const r = useApi<{ apps: App[] }>('/admin/apps');
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const [regen, setRegen] = useState<App | null>(null);
  const [graceHours, setGraceHours] = useState(0);
  const [redeliver, setRedeliver] = useState<App | null>(null);
  const [redelivered, setRedelivered] = useState<string | null>(null);
  // Secrets exist only here, in memory, until dismissed: the API never returns them again.
  const [secrets, setSecrets] = useState<{ title: string; app: AppSecrets } | null>(null);

  return (
    <>
      <PageTitle title="Apps">Apps</PageTitle>
      {redelivered && (
        <p class="state success" role="status" id="action-result">
          {redelivered}
        </p>
      )}
      {secrets && (
        <SecretsPanel title={secrets.title} app={secrets.app} onDone={() => setSecrets(null)} />
      )}
      {creating ? (
        <AppForm
          app={null}
          onCancel={() => setCreating(false)}
          onSaved={(created) => {
            setCreating(false);
            setSecrets({ title: `App "${created.name}" created`, app: created as AppSecrets });
            r.reload();
          }}
        />
      ) : (
        <p>
          <button
            type="button"
            class="primary"
            onClick={() => {
              setSecrets(null);
              setEditing(null);
              setCreating(true);
            }}
          >
            New app
          </button>
        </p>
      )}
      <Load r={r} what="apps">
        {({ apps }) =>
          apps.length === 0 ? (
            <Empty>No apps yet. Create one to start taking payments.</Empty>
          ) : (
            <ul class="app-list">
              {apps.map((a) => (
                <li key={a.app_id} class="card app" data-app-id={a.app_id}>
                  {editing === a.app_id ? (
                    <AppForm
                      app={a}
                      onCancel={() => setEditing(null)}
                      onSaved={() => {
                        setEditing(null);
                        r.reload();
                      }}
                    />
                  ) : (
                    <>
                      <div class="app-head">
                        <h2>{a.name}</h2>
                        <Badge value={a.mode} />
                      </div>
                      <dl class="fields">
                        <div>
                          <dt>app_id</dt>
                          <dd class="mono">{a.app_id}</dd>
                        </div>
                        <div>
                          <dt>api_key</dt>
                          <dd class="mono" data-field="api_key">
                            {a.api_key}
                          </dd>
                        </div>
                        <div>
                          <dt>webhook_url</dt>
                          <dd class="mono" data-field="webhook_url">
                            {a.webhook_url ?? <span class="muted">none</span>}
                          </dd>
                        </div>
                        <div>
                          <dt>created</dt>
                          <dd>
                            <Time iso={a.created_at} />
                          </dd>
                        </div>
                        <div class="wide">
                          <dt>providers and methods</dt>
                          <dd data-field="allowed">
                            {a.allowed_providers.length === 0 ? (
                              <span class="muted">none allowed</span>
                            ) : (
                              <ul class="plain">
                                {a.allowed_providers.map((p) => (
                                  <li key={p}>
                                    <strong>{p}</strong>:{' '}
                                    {(a.allowed_methods[p] ?? []).join(', ') || (
                                      <span class="muted">no methods</span>
                                    )}
                                  </li>
                                ))}
                              </ul>
                            )}
                          </dd>
                        </div>
                      </dl>
                      <div class="actions-row">
                        <button
                          type="button"
                          onClick={() => {
                            setCreating(false);
                            setEditing(a.app_id);
                          }}
                        >
                          Edit
                        </button>
                        <button
                          type="button"
                          onClick={() => {
                            setRedelivered(null);
                            setRedeliver(a);
                          }}
                        >
                          Redeliver events…
                        </button>
                        <Link href={href(`/apps/${encodeURIComponent(a.app_id)}/endpoints`)}>
                          Webhook endpoints
                        </Link>
                        <button type="button" class="danger" onClick={() => setRegen(a)}>
                          Regenerate keys…
                        </button>
                      </div>
                    </>
                  )}
                </li>
              ))}
            </ul>
          )
        }
      </Load>
      <RedeliverDialog
        app={redeliver}
        onClose={() => setRedeliver(null)}
        onDone={(text) => {
          setRedelivered(text);
          setRedeliver(null);
        }}
      />
      <ConfirmDialog
        open={regen !== null}
        title="Regenerate this app's keys?"
        confirmLabel="Regenerate keys"
        danger
        onCancel={() => setRegen(null)}
        run={async () => {
          if (!regen) return;
          const res = await api<AppSecrets & { rotates_at?: string }>(
            'POST',
            `/admin/apps/${regen.app_id}/regenerate-keys`,
            { grace_hours: graceHours },
          );
          const title = res.rotates_at
            ? `New keys for "${regen.name}" (the old ones work until ${new Date(res.rotates_at).toUTCString()})`
            : `New keys for "${regen.name}"`;
          setSecrets({ title, app: { ...regen, ...res } });
          setRegen(null);
          r.reload();
        }}
      >
        <p>
          <strong>{regen?.name}</strong>: the api_key, signing_secret and webhook_secret are
          replaced. With a grace window the old ones keep working (and deliveries carry both
          signatures) until it ends; with 0 they stop at once. The app must be updated with the new
          ones.
        </p>
        <label>
          Grace window (hours, 0 to 168)
          <input
            name="grace_hours"
            type="number"
            min={0}
            max={168}
            value={graceHours}
            onInput={(e) => setGraceHours(Number(e.currentTarget.value))}
          />
        </label>
      </ConfirmDialog>
    </>
  );
}
