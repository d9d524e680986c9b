import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure, request, setToken } from '../api';
import { errorText } from '../components';

/** The operator's admin token, checked against the gateway before it is kept. */
export function SignIn({ notice, onSignedIn }: { notice: string | null; onSignedIn: () => void }) {
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
      await request('GET', '/admin/apps', undefined, t);
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
        <p class="muted">Sign in with the gateway's admin token (ADMIN_TOKEN).</p>
        {notice && (
          <p class="state notice" role="status">
            {notice}
          </p>
        )}
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
