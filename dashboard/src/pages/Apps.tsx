import { useState } from 'preact/hooks';
import { api } from '../api';
import { href } from '../router';
import {
  Badge,
  ConfirmDialog,
  CopyButton,
  Empty,
  errorText,
  Link,
  Load,
  PageTitle,
  Time,
  useApi,
} from '../components';
import { MODES, PROVIDER_METHODS, PROVIDERS, type App, type AppSecrets, type Mode } from '../types';

interface Draft {
  name: string;
  mode: Mode;
  webhook_url: string;
  allowed_providers: string[];
  allowed_methods: Record<string, string[]>;
}

const allMethods = (): Record<string, string[]> =>
  Object.fromEntries(PROVIDERS.map((p) => [p, [...(PROVIDER_METHODS[p] ?? [])]]));

function draftOf(app: App | null): Draft {
  if (!app) {
    return {
      name: '',
      mode: 'test',
      webhook_url: '',
      allowed_providers: [...PROVIDERS],
      allowed_methods: allMethods(),
    };
  }
  return {
    name: app.name,
    mode: app.mode,
    webhook_url: app.webhook_url ?? '',
    allowed_providers: [...app.allowed_providers],
    allowed_methods: Object.fromEntries(
      PROVIDERS.map((p) => [p, [...(app.allowed_methods[p] ?? [])]]),
    ),
  };
}

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

/** Fresh deliveries of an app's events since a time (same event ids), e.g. after an outage. */
function RedeliverDialog({
  app,
  onClose,
  onDone,
}: {
  app: App | null;
  onClose: () => void;
  onDone: (text: string) => void;
}) {
  const [since, setSince] = useState(() =>
    new Date(Date.now() - 86_400_000).toISOString().slice(0, 16),
  );
  const [onlyUndelivered, setOnlyUndelivered] = useState(true);
  return (
    <ConfirmDialog
      open={app !== null}
      title="Redeliver this app's events?"
      confirmLabel="Redeliver"
      onCancel={onClose}
      run={async () => {
        if (!app) return;
        const res = await api<{ deliveries: number }>(
          'POST',
          `/admin/apps/${app.app_id}/redeliver`,
          {
            since: new Date(`${since}:00Z`).toISOString(),
            only_undelivered: onlyUndelivered,
          },
        );
        onDone(`${app.name}: ${res.deliveries} deliveries enqueued.`);
      }}
    >
      <p>
        Events of <strong>{app?.name}</strong> created since the time below are delivered again with
        their original event ids.
      </p>
      <label>
        Since (UTC)
        <input
          name="since"
          type="datetime-local"
          value={since}
          onInput={(e) => setSince(e.currentTarget.value)}
        />
      </label>
      <label class="check">
        <input
          name="only_undelivered"
          type="checkbox"
          checked={onlyUndelivered}
          onChange={(e) => setOnlyUndelivered(e.currentTarget.checked)}
        />
        Only events never delivered
      </label>
    </ConfirmDialog>
  );
}

function SecretsPanel({
  title,
  app,
  onDone,
}: {
  title: string;
  app: AppSecrets;
  onDone: () => void;
}) {
  const rows: [string, string][] = [
    ['api_key', app.api_key],
    ['signing_secret', app.signing_secret],
    ['webhook_secret', app.webhook_secret],
  ];
  return (
    <section class="card secrets" aria-labelledby="secrets-title" role="region">
      <h2 id="secrets-title">{title}</h2>
      <p class="warn">
        Copy these now. The secrets are shown only this once; the gateway cannot show them again.
      </p>
      <dl class="secret-list">
        {rows.map(([k, v]) => (
          <div key={k} data-secret={k}>
            <dt>
              <label for={`secret-${k}`}>{k}</label>
            </dt>
            <dd class="inline">
              <input
                id={`secret-${k}`}
                class="mono"
                readOnly
                value={v}
                onFocus={(e) => e.currentTarget.select()}
              />
              <CopyButton text={v} label={k} />
            </dd>
          </div>
        ))}
      </dl>
      <button type="button" class="primary" onClick={onDone}>
        I have stored them
      </button>
    </section>
  );
}

function AppForm({
  app,
  onCancel,
  onSaved,
}: {
  app: App | null;
  onCancel: () => void;
  onSaved: (saved: App) => void;
}) {
  const [d, setD] = useState<Draft>(() => draftOf(app));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const idp = app ? `edit-${app.app_id}` : 'new-app';

  const toggleProvider = (p: string, on: boolean) =>
    setD((x) => ({
      ...x,
      allowed_providers: on
        ? PROVIDERS.filter((q) => q === p || x.allowed_providers.includes(q))
        : x.allowed_providers.filter((q) => q !== p),
    }));
  const toggleMethod = (p: string, m: string, on: boolean) =>
    setD((x) => {
      const cur = x.allowed_methods[p] ?? [];
      const next = on
        ? (PROVIDER_METHODS[p] ?? []).filter((q) => q === m || cur.includes(q))
        : cur.filter((q) => q !== m);
      return { ...x, allowed_methods: { ...x.allowed_methods, [p]: next } };
    });

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!d.name.trim()) {
      setError('The name is required.');
      return;
    }
    setBusy(true);
    setError(null);
    const body: Record<string, unknown> = {
      name: d.name.trim(),
      webhook_url: d.webhook_url.trim() === '' ? null : d.webhook_url.trim(),
      allowed_providers: d.allowed_providers,
      allowed_methods: d.allowed_methods,
    };
    if (!app) {
      body.mode = d.mode;
      if (body.webhook_url === null) delete body.webhook_url;
    }
    try {
      const saved = app
        ? await api<App>('PATCH', `/admin/apps/${app.app_id}`, body)
        : await api<App>('POST', '/admin/apps', body);
      onSaved(saved);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card app-form" onSubmit={(e) => void submit(e)} aria-labelledby={`${idp}-title`}>
      <h2 id={`${idp}-title`}>{app ? `Edit ${app.name}` : 'New app'}</h2>
      <div class="form-grid">
        <label>
          Name
          <input
            name="name"
            required
            value={d.name}
            onInput={(e) => {
              const v = e.currentTarget.value;
              setD((x) => ({ ...x, name: v }));
            }}
          />
        </label>
        {app ? (
          <p class="muted small">
            Mode <Badge value={app.mode} /> cannot be changed.
          </p>
        ) : (
          <label>
            Mode
            <select
              name="mode"
              value={d.mode}
              onChange={(e) => {
                const v = e.currentTarget.value as Mode;
                setD((x) => ({ ...x, mode: v }));
              }}
            >
              {MODES.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          </label>
        )}
        <label class="wide">
          Webhook URL
          <input
            name="webhook_url"
            type="url"
            placeholder="https://shop.example/paygate-webhook"
            value={d.webhook_url}
            onInput={(e) => {
              const v = e.currentTarget.value;
              setD((x) => ({ ...x, webhook_url: v }));
            }}
          />
        </label>
      </div>
      <div class="providers">
        {PROVIDERS.map((p) => {
          const on = d.allowed_providers.includes(p);
          return (
            <fieldset key={p}>
              <legend>
                <label class="check">
                  <input
                    type="checkbox"
                    name={`provider-${p}`}
                    checked={on}
                    onChange={(e) => toggleProvider(p, e.currentTarget.checked)}
                  />
                  {p}
                </label>
              </legend>
              {(PROVIDER_METHODS[p] ?? []).map((m) => (
                <label class="check" key={m}>
                  <input
                    type="checkbox"
                    name={`method-${p}-${m}`}
                    disabled={!on}
                    checked={(d.allowed_methods[p] ?? []).includes(m)}
                    onChange={(e) => toggleMethod(p, m, e.currentTarget.checked)}
                  />
                  {m}
                </label>
              ))}
            </fieldset>
          );
        })}
      </div>
      {error && (
        <p class="state error" role="alert">
          {error}
        </p>
      )}
      <div class="actions-row">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : app ? 'Save' : 'Create app'}
        </button>
        <button type="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}
