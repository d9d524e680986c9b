import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure, request, setToken } from '../api';
import { errorText } from '../components';

/**
 * Single sign-on through the operator's identity provider when the gateway has it configured,
 * or a token (ADMIN_TOKEN or a personal pgo_ token), checked against the gateway before it is
 * kept.
 */
export function SignIn({ notice, onSignedIn }: { notice: string | null; onSignedIn: () => void }) {
  const [sso, setSso] = useState(false);
  useEffect(() => {
    void request<{ oidc: boolean }>('GET', '/auth/methods', undefined, null)
      .then((m) => setSso(m.oidc))
      .catch(() => setSso(false));
  }, []);
  const [token, setTokenInput] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    document.title = 'Sign in · Paygate';
    input.current?.focus();
  }, []);

  const submit = async (e: Event) => {
    e.preventDefault();
    const t = token.trim();
    if (!t) {
      setError('Enter the admin token.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await request('GET', '/admin/me', undefined, t);
      setToken(t);
      onSignedIn();
    } catch (err) {
      setError(
        err instanceof ApiFailure && err.status === 401
          ? 'The gateway refused this token (401 unauthorized).'
          : errorText(err),
      );
      input.current?.select();
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="signin">
      <form class="card" onSubmit={(e) => void submit(e)} aria-labelledby="signin-title">
        <h1 id="signin-title">Paygate operator</h1>
        {notice && (
          <p class="state notice" role="status">
            {notice}
          </p>
        )}
        {sso && (
          <p>
            <a class="button primary" href="/auth/oidc/start">
              Sign in with single sign-on
            </a>
          </p>
        )}
        <p class="muted">
          {sso ? 'Or sign in with' : 'Sign in with'} the gateway's admin token (ADMIN_TOKEN) or a
          personal API token.
        </p>
        <label for="token">Admin token</label>
        <input
          id="token"
          ref={input}
          type="password"
          autoComplete="current-password"
          value={token}
          onInput={(e) => setTokenInput(e.currentTarget.value)}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? 'signin-error' : undefined}
        />
        {error && (
          <p id="signin-error" class="state error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
