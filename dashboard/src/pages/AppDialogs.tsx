/** The Apps page's dialogs: redelivering an app's events, and an app's new secrets shown once. */
import { useState } from 'preact/hooks';
import { api } from '../api';
import { ConfirmDialog, CopyButton } from '../components';
import { type App, type AppSecrets } from '../types';

/** Fresh deliveries of an app's events since a time (same event ids), e.g. after an outage. */
export function RedeliverDialog({
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

export function SecretsPanel({
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
