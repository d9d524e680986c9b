import { useEffect, useState } from 'preact/hooks';

/** Client-side routes under /dashboard/; the gateway answers index.html for each of them. */
export const BASE = '/dashboard';

export interface Location {
  path: string;
  params: URLSearchParams;
}

function current(): Location {
  const p = window.location.pathname;
  const rel = p.startsWith(BASE) ? p.slice(BASE.length) : p;
  return { path: rel === '' ? '/' : rel, params: new URLSearchParams(window.location.search) };
}

const listeners = new Set<() => void>();
window.addEventListener('popstate', () => listeners.forEach((fn) => fn()));

export function href(path: string, params?: Record<string, string | number | null | undefined>) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params ?? {})) {
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  }
  const s = q.toString();
  return `${BASE}${path}${s ? `?${s}` : ''}`;
}

export function navigate(to: string, replace = false): void {
  if (replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  listeners.forEach((fn) => fn());
}

export function useLocation(): Location {
  const [loc, setLoc] = useState(current);
  useEffect(() => {
    const fn = () => setLoc(current());
    listeners.add(fn);
    return () => void listeners.delete(fn);
  }, []);
  return loc;
}
