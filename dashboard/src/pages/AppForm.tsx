/** The form that creates or edits an app: name, mode, webhook URL, providers and methods. */
import { useState } from 'preact/hooks';
import { api } from '../api';
import { Badge, errorText } from '../components';
import { MODES, PROVIDER_METHODS, PROVIDERS, type App, type Mode } from '../types';

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

export function AppForm({
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
