import type { AnchorHTMLAttributes, ComponentChildren } from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { api, ApiFailure } from './api';
import { formatLocal, formatMoney, formatUtc } from './format';
import { href, navigate } from './router';

/** A real link that navigates without a reload (modified clicks keep browser behaviour). */
export function Link(props: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const onClick = (e: MouseEvent) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey)
      return;
    e.preventDefault();
    navigate(props.href);
  };
  return <a {...props} onClick={onClick} />;
}

export function Money({ minor, currency }: { minor: number | string; currency: string }) {
  return (
    <span class="money" data-minor={minor} data-currency={currency}>
      {formatMoney(minor, currency)}
    </span>
  );
}

export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span class="muted">—</span>;
  return (
    <time dateTime={iso} title={formatUtc(iso)}>
      {formatLocal(iso)}
    </time>
  );
}

export function Badge({ value }: { value: string | null | undefined }) {
  if (!value) return <span class="muted">—</span>;
  return <span class={`badge badge-${value.replace(/[^a-z_]/g, '')}`}>{value}</span>;
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="state loading" role="status">
      Loading {what}…
    </p>
  );
}

export function ErrorBox({ error, retry }: { error: unknown; retry?: () => void }) {
  return (
    <div class="state error" role="alert">
      <p>
        <strong>Could not load.</strong> {errorText(error)}
      </p>
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="state empty">{children}</p>;
}

export function errorText(error: unknown): string {
  if (error instanceof ApiFailure) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

export type Loaded<T> =
  | { state: 'loading'; data?: undefined; error?: undefined }
  | { state: 'error'; data?: undefined; error: unknown }
  | { state: 'ok'; data: T; error?: undefined };

/** GET path and keep loading / error / data; reload refetches (after an action). */
export function useApi<T>(path: string | null): Loaded<T> & { reload: () => void } {
  const [result, setResult] = useState<Loaded<T>>({ state: 'loading' });
  const [tick, setTick] = useState(0);
  const lastPath = useRef<string | null>(null);
  useEffect(() => {
    if (path === null) return;
    let live = true;
    // A reload of the same path keeps the shown data until the new answer arrives.
    if (lastPath.current !== path) setResult({ state: 'loading' });
    lastPath.current = path;
    api<T>('GET', path).then(
      (data) => live && setResult({ state: 'ok', data }),
      (error: unknown) => live && setResult({ state: 'error', error }),
    );
    return () => {
      live = false;
    };
  }, [path, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...result, reload };
}

/** Renders the loading and error states of one request, then children with its data. */
export function Load<T>({
  r,
  what,
  children,
}: {
  r: Loaded<T> & { reload: () => void };
  what: string;
  children: (data: T) => ComponentChildren;
}) {
  if (r.state === 'loading') return <Loading what={what} />;
  if (r.state === 'error') return <ErrorBox error={r.error} retry={r.reload} />;
  return <>{children(r.data)}</>;
}

/** The page heading; it takes focus on navigation so keyboard users start at the top. */
export function PageTitle({ children, title }: { children: ComponentChildren; title: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Paygate`;
    ref.current?.focus({ preventScroll: true });
  }, [title]);
  return (
    <h1 tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}

/**
 * A modal confirmation (native <dialog>: focus stays inside, Escape cancels). run() does the
 * action; its error is shown in the dialog, success closes it.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  danger,
  onCancel,
  run,
}: {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  danger?: boolean;
  onCancel: () => void;
  run: () => Promise<void>;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      setError(null);
      d.showModal();
    } else if (!open && d.open) d.close();
  }, [open]);
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await run();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <dialog
      ref={ref}
      class="confirm"
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        if (!busy) onCancel();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      <div class="confirm-body">{children}</div>
      {error !== null && (
        <p class="state error" role="alert">
          {errorText(error)}
        </p>
      )}
      <div class="actions">
        <button type="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
        <button
          type="button"
          class={danger ? 'danger' : 'primary'}
          onClick={() => void confirm()}
          disabled={busy}
        >
          {busy ? 'Working…' : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // Plain-http deployments have no Clipboard API: fall back to a hidden selection.
  const ta = document.createElement('textarea');
  ta.value = text;
  ta.setAttribute('readonly', '');
  ta.style.position = 'fixed';
  ta.style.opacity = '0';
  document.body.appendChild(ta);
  ta.select();
  const ok = document.execCommand('copy');
  ta.remove();
  if (!ok) throw new Error('copy refused');
}

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const onClick = () => {
    copyText(text).then(
      () => setState('copied'),
      () => setState('failed'),
    );
    window.setTimeout(() => setState('idle'), 2000);
  };
  return (
    <button type="button" class="copy" onClick={onClick} aria-label={`Copy ${label}`}>
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Select and copy' : 'Copy'}
    </button>
  );
}

/** A JSON or text body, pretty-printed when it parses. */
export function RawBody({ body }: { body: string }) {
  let text = body;
  try {
    text = JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    // not JSON: shown as received
  }
  return <pre class="raw">{text}</pre>;
}

/** One filter of a list page: choosing a value reloads the page at `path` with it (empty: all). */
export function FilterSelect<K extends string>(props: {
  path: string;
  filters: Record<K, string>;
  name: K;
  label: string;
  all: string;
  values: readonly string[];
}) {
  const { path, filters, name } = props;
  return (
    <label>
      {props.label}
      <select
        name={name}
        value={filters[name]}
        onChange={(e) => navigate(href(path, { ...filters, [name]: e.currentTarget.value }))}
      >
        <option value="">{props.all}</option>
        {props.values.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    </label>
  );
}
