/** Parts of the webhook endpoints page: stats with the last attempts, rotate and recover dialogs. */
import { useState } from 'preact/hooks';
import { api } from '../api';
import { Badge, ConfirmDialog, Load, Time, useApi } from '../components';
import type { Endpoint, EndpointStats } from '../types';

export function Stats({ path }: { path: string }) {
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

export function RotateDialog({
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

export function RecoverDialog({
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
