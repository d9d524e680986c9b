import { useState } from 'preact/hooks';
import { api, type Me } from '../api';
import { CopyButton, Empty, errorText, Load, PageTitle, Time, useApi } from '../components';
import { href } from '../router';
import type { Operator, OperatorToken } from '../types';

const ROLES = ['viewer', 'support', 'finance', 'admin'] as const;

/** Runs one change, shows its error (the gateway's exact text) or reloads. */
function useAction(done: () => void) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
      done();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return { error, busy, run };
}

/**
 * Operator accounts (docs/operations.md#operator-roles): who may sign in and with which role;
 * personal API tokens; whether ADMIN_TOKEN still works. Changes are for admins (and root);
 * every operator manages their own tokens.
 */
export function Operators({ me }: { me: Me }) {
  const r = useApi<{ operators: Operator[] }>('/admin/operators');
  const isAdmin = me.role === 'admin';
  const act = useAction(r.reload);
  const [tokensOf, setTokensOf] = useState<string | null>(me.actor === 'root' ? null : me.actor);

  return (
    <>
      <PageTitle title="Operators">Operators</PageTitle>
      {isAdmin && <CreateOperator onCreated={r.reload} />}
      {act.error && (
        <p class="state error" role="alert">
          {act.error}
        </p>
      )}
      <Load r={r} what="operators">
        {({ operators }) =>
          operators.length === 0 ? (
            <Empty>No operator accounts yet: only ADMIN_TOKEN can sign in.</Empty>
          ) : (
            <div class="table-wrap">
              <table id="operators-table">
                <thead>
                  <tr>
                    <th>Email</th>
                    <th>Name</th>
                    <th>Role</th>
                    <th>Status</th>
                    <th>Created</th>
                    <th>Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {operators.map((o) => (
                    <tr key={o.id} data-id={o.id}>
                      <td data-field="email">{o.email}</td>
                      <td>{o.name}</td>
                      <td data-field="role">
                        {isAdmin ? (
                          <select
                            aria-label={`Role of ${o.email}`}
                            value={o.role}
                            disabled={act.busy}
                            onChange={(e) => {
                              const role = e.currentTarget.value;
                              void act.run(() =>
                                api('PATCH', `/admin/operators/${o.id}`, { role }),
                              );
                            }}
                          >
                            {ROLES.map((role) => (
                              <option key={role} value={role}>
                                {role}
                              </option>
                            ))}
                          </select>
                        ) : (
                          o.role
                        )}
                      </td>
                      <td data-field="status">{o.disabled ? 'disabled' : 'enabled'}</td>
                      <td>
                        <Time iso={o.created_at} />
                      </td>
                      <td class="actions">
                        <a href={href('/audit', { actor: o.id })}>Audit</a>{' '}
                        {(isAdmin || o.id === me.actor) && (
                          <button type="button" onClick={() => setTokensOf(o.id)}>
                            Tokens
                          </button>
                        )}{' '}
                        {isAdmin && (
                          <button
                            type="button"
                            class={o.disabled ? '' : 'danger'}
                            disabled={act.busy}
                            onClick={() =>
                              void act.run(() =>
                                api('PATCH', `/admin/operators/${o.id}`, { disabled: !o.disabled }),
                              )
                            }
                          >
                            {o.disabled ? 'Enable' : 'Disable'}
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Load>
      {tokensOf && (
        <Tokens
          key={tokensOf}
          operatorId={tokensOf}
          email={r.data?.operators.find((o) => o.id === tokensOf)?.email ?? tokensOf}
        />
      )}
      {isAdmin && <AdminTokenSetting />}
    </>
  );
}

function CreateOperator({ onCreated }: { onCreated: () => void }) {
  const act = useAction(onCreated);
  return (
    <form
      class="filters"
      aria-label="New operator"
      onSubmit={(e) => {
        e.preventDefault();
        const form = e.currentTarget;
        const data = new FormData(form);
        void act.run(async () => {
          await api('POST', '/admin/operators', {
            email: String(data.get('email') ?? '').trim(),
            name: String(data.get('name') ?? '').trim(),
            role: String(data.get('role') ?? 'viewer'),
          });
          form.reset();
        });
      }}
    >
      <label>
        Email
        <input name="email" type="email" required autoComplete="off" />
      </label>
      <label>
        Name
        <input name="name" required autoComplete="off" />
      </label>
      <label>
        Role
        <select name="role" defaultValue="viewer">
          {ROLES.map((role) => (
            <option key={role} value={role}>
              {role}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" class="primary" disabled={act.busy}>
        Add operator
      </button>
      {act.error && (
        <p class="state error" role="alert">
          {act.error}
        </p>
      )}
    </form>
  );
}

function Tokens({ operatorId, email }: { operatorId: string; email: string }) {
  const r = useApi<{ tokens: OperatorToken[] }>(`/admin/operators/${operatorId}/tokens`);
  const act = useAction(r.reload);
  const [secret, setSecret] = useState<string | null>(null);
  const base = `/admin/operators/${operatorId}/tokens`;
  return (
    <section aria-labelledby="tokens-title">
      <h2 id="tokens-title">Personal API tokens of {email}</h2>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          const data = new FormData(e.currentTarget);
          void act.run(async () => {
            const made = await api<{ token: string }>('POST', base, {
              name: String(data.get('name') ?? '').trim(),
              expires_in_days: Number(data.get('days')),
            });
            setSecret(made.token);
          });
        }}
      >
        <label>
          Token name
          <input name="name" required autoComplete="off" />
        </label>
        <label>
          Expires in days
          <input name="days" type="number" min={1} max={365} defaultValue="90" required />
        </label>
        <button type="submit" disabled={act.busy}>
          Create token
        </button>
      </form>
      {secret && (
        <p class="state notice" role="status">
          Copy the token now; it is not shown again: <code id="new-token">{secret}</code>{' '}
          <CopyButton text={secret} label="Copy token" />
        </p>
      )}
      {act.error && (
        <p class="state error" role="alert">
          {act.error}
        </p>
      )}
      <Load r={r} what="tokens">
        {({ tokens }) =>
          tokens.length === 0 ? (
            <Empty>No tokens.</Empty>
          ) : (
            <table id="tokens-table">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Created</th>
                  <th>Expires</th>
                  <th>Last used</th>
                  <th>Status</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {tokens.map((t) => (
                  <tr key={t.id} data-id={t.id}>
                    <td>{t.name}</td>
                    <td>
                      <Time iso={t.created_at} />
                    </td>
                    <td>
                      <Time iso={t.expires_at} />
                    </td>
                    <td>{t.last_used_at ? <Time iso={t.last_used_at} /> : 'never'}</td>
                    <td data-field="status">{t.revoked_at ? 'revoked' : 'active'}</td>
                    <td>
                      {!t.revoked_at && (
                        <button
                          type="button"
                          class="danger"
                          disabled={act.busy}
                          onClick={() => void act.run(() => api('POST', `${base}/${t.id}/revoke`))}
                        >
                          Revoke
                        </button>
                      )}
                    </td>
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

function AdminTokenSetting() {
  const r = useApi<{ enabled: boolean }>('/admin/admin-token');
  const act = useAction(r.reload);
  return (
    <section aria-labelledby="admin-token-title">
      <h2 id="admin-token-title">ADMIN_TOKEN</h2>
      <Load r={r} what="the ADMIN_TOKEN setting">
        {({ enabled }) => (
          <p>
            ADMIN_TOKEN is <strong>{enabled ? 'on' : 'off'}</strong>.{' '}
            <button
              type="button"
              disabled={act.busy}
              onClick={() =>
                void act.run(() => api('PATCH', '/admin/admin-token', { enabled: !enabled }))
              }
            >
              {enabled ? 'Turn ADMIN_TOKEN off' : 'Turn ADMIN_TOKEN on'}
            </button>
          </p>
        )}
      </Load>
      {act.error && (
        <p class="state error" role="alert">
          {act.error}
        </p>
      )}
    </section>
  );
}
