/**
 * The one way the dashboard talks to the gateway: the admin API, either with a token as a
 * bearer header (ADMIN_TOKEN or a personal token, kept in sessionStorage, gone when the tab
 * closes, never in a URL) or with the session cookie of a single sign-on (HttpOnly: this code
 * never sees it) plus its CSRF token on every change. A 401 anywhere ends the session and
 * returns to the sign-in screen.
 */
import { parseJsonExact } from './json';

const TOKEN_KEY = 'paygate.adminToken';

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(status === 0 ? body : `${status}: ${body || 'request failed'}`);
  }
}

type Listener = (reason: 'expired' | 'session-ended' | 'signed-out') => void;
const listeners = new Set<Listener>();

export function onSessionEnd(fn: Listener): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function getToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

/** Who is signed in (GET /admin/me). */
export interface Me {
  actor: string;
  email: string | null;
  name: string | null;
  role: 'viewer' | 'support' | 'finance' | 'admin';
  token_name: string | null;
  csrf_token: string | null;
}

/** The CSRF token of a cookie session; null when signed in with a token. */
let csrfToken: string | null = null;

export function setSession(me: Me): void {
  csrfToken = me.csrf_token;
}

/** The signed-in operator through the session cookie, or null (no session, or it ended). */
export async function resumeSession(): Promise<Me | null> {
  try {
    const me = await request<Me>('GET', '/admin/me', undefined, null);
    setSession(me);
    return me;
  } catch {
    return null;
  }
}

export function setToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function signOut(reason: 'expired' | 'signed-out' = 'signed-out'): void {
  sessionStorage.removeItem(TOKEN_KEY);
  if (csrfToken !== null) {
    // Ends the session on the gateway too, so a copied cookie stops working.
    const headers = { 'X-CSRF-Token': csrfToken };
    const why = reason === 'expired' ? 'session-ended' : reason;
    csrfToken = null;
    void fetch('/auth/sign-out', { method: 'POST', headers, credentials: 'same-origin' })
      .catch(() => undefined)
      .finally(() => {
        for (const fn of listeners) fn(why);
      });
    return;
  }
  for (const fn of listeners) fn(reason);
}

/** A request with an explicit token (sign-in checks a token before storing it). */
export async function request<T>(
  method: string,
  path: string,
  body?: unknown,
  token: string | null = getToken(),
): Promise<T> {
  const headers: Record<string, string> = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  else if (csrfToken !== null && method !== 'GET') headers['X-CSRF-Token'] = csrfToken;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      // A token request never carries the cookie; a session request is nothing without it.
      credentials: token ? 'omit' : 'same-origin',
    });
  } catch {
    throw new ApiFailure(0, 'the gateway did not answer (network error)');
  }
  const text = await res.text();
  if (!res.ok) throw new ApiFailure(res.status, text.trim());
  return (text === '' ? null : parseJsonExact(text)) as T;
}

/** A request in the signed-in session; a 401 ends the session. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  try {
    return await request<T>(method, path, body);
  } catch (err) {
    if (err instanceof ApiFailure && err.status === 401) signOut('expired');
    throw err;
  }
}

export function query(params: Record<string, string | number | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** Uploads a file as the raw request body (a settlement report); answers the JSON reply. */
export async function uploadFile<T>(path: string, file: Blob): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: 'POST',
      headers: { Authorization: `Bearer ${getToken() ?? ''}`, 'Content-Type': 'text/csv' },
      body: file,
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch {
    throw new ApiFailure(0, 'the gateway did not answer (network error)');
  }
  const text = await res.text();
  if (res.status === 401) signOut('expired');
  if (!res.ok) throw new ApiFailure(res.status, text.trim());
  return parseJsonExact(text) as T;
}

/**
 * Downloads an export (CSV) with the session's token and hands it to the browser as a file:
 * the token never goes into a URL, so a plain link cannot carry it.
 */
export async function download(path: string, filename: string): Promise<void> {
  let res: Response;
  try {
    res = await fetch(path, {
      headers: { Authorization: `Bearer ${getToken() ?? ''}` },
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch {
    throw new ApiFailure(0, 'the gateway did not answer (network error)');
  }
  if (res.status === 401) signOut('expired');
  if (!res.ok) throw new ApiFailure(res.status, (await res.text()).trim());
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
