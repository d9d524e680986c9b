import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, getToken, onSessionEnd, resumeSession, signOut, type Me } from './api';
import { Link } from './components';
import { Apps } from './pages/Apps';
import { Audit } from './pages/Audit';
import { Deliveries } from './pages/Deliveries';
import { Disputes } from './pages/Disputes';
import { Endpoints } from './pages/Endpoints';
import { Balances } from './pages/Money';
import { Overview } from './pages/Overview';
import { PaymentDetailPage } from './pages/PaymentDetail';
import { Payments } from './pages/Payments';
import { Ledger } from './pages/Ledger';
import { Reconciliation } from './pages/Reconciliation';
import { Operators } from './pages/Operators';
import { Refunds } from './pages/Refunds';
import { SignIn } from './pages/SignIn';
import { Stuck } from './pages/Stuck';
import { href, navigate, useLocation, type Location } from './router';
import './styles.css';

const NAV: { path: string; label: string }[] = [
  { path: '/', label: 'Overview' },
  { path: '/payments', label: 'Payments' },
  { path: '/refunds', label: 'Refunds' },
  { path: '/disputes', label: 'Disputes' },
  { path: '/ledger', label: 'Ledger' },
  { path: '/reconciliation', label: 'Reconciliation' },
  { path: '/balances', label: 'Balances' },
  { path: '/apps', label: 'Apps' },
  { path: '/deliveries', label: 'Dead deliveries' },
  { path: '/stuck', label: 'Stuck' },
  { path: '/audit', label: 'Audit log' },
  { path: '/operators', label: 'Operators' },
];

function Page({ loc, me }: { loc: Location; me: Me }) {
  const detail = /^\/payments\/([^/]+)$/.exec(loc.path);
  if (detail?.[1]) return <PaymentDetailPage key={detail[1]} id={detail[1]} />;
  const endpoints = /^\/apps\/([^/]+)\/endpoints$/.exec(loc.path);
  if (endpoints?.[1]) {
    const appId = decodeURIComponent(endpoints[1]);
    return <Endpoints key={appId} appId={appId} />;
  }
  switch (loc.path) {
    case '/':
      return <Overview loc={loc} />;
    case '/payments':
      return <Payments loc={loc} />;
    case '/refunds':
      return <Refunds loc={loc} />;
    case '/disputes':
      return <Disputes loc={loc} />;
    case '/ledger':
      return <Ledger loc={loc} />;
    case '/reconciliation':
      return <Reconciliation loc={loc} />;
    case '/balances':
      return <Balances loc={loc} />;
    case '/apps':
      return <Apps />;
    case '/deliveries':
      return <Deliveries />;
    case '/stuck':
      return <Stuck />;
    case '/audit':
      return <Audit loc={loc} />;
    case '/operators':
      return <Operators me={me} />;
    default:
      return (
        <>
          <h1>Not found</h1>
          <p>
            No screen at this address. <Link href={href('/')}>Go to the overview</Link>.
          </p>
        </>
      );
  }
}

/** Who is signed in: with a token (sessionStorage), or with the single sign-on cookie. */
async function whoAmI(): Promise<Me | null> {
  if (getToken() === null) return resumeSession();
  try {
    return await api<Me>('GET', '/admin/me');
  } catch {
    return null;
  }
}

function Shell() {
  const loc = useLocation();
  const [me, setMe] = useState<Me | null | 'checking'>('checking');
  const [attempt, setAttempt] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(
    () =>
      onSessionEnd((reason) => {
        setMe(null);
        setNotice(
          reason === 'expired'
            ? 'The gateway refused the token (401). Sign in again.'
            : reason === 'session-ended'
              ? 'The session ended (401). Sign in again.'
              : 'Signed out.',
        );
      }),
    [],
  );
  useEffect(() => {
    let live = true;
    void whoAmI().then((m) => live && setMe(m));
    return () => {
      live = false;
    };
  }, [attempt]);

  if (me === 'checking') {
    return (
      <main class="signin">
        <p class="muted">Checking the session…</p>
      </main>
    );
  }
  if (me === null) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={() => {
          setNotice(null);
          setMe('checking');
          setAttempt((n) => n + 1);
        }}
      />
    );
  }
  const section = loc.path.startsWith('/payments') ? '/payments' : loc.path;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Paygate</span>
        <nav aria-label="Screens">
          <ul>
            {NAV.map((n) => (
              <li key={n.path}>
                <Link href={href(n.path)} aria-current={section === n.path ? 'page' : undefined}>
                  {n.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <SearchBox q={loc.path === '/payments' ? (loc.params.get('q') ?? '') : ''} />
        <span class="whoami muted small" title={me.token_name ? `token ${me.token_name}` : ''}>
          {me.email ?? 'root (ADMIN_TOKEN)'} · {me.role}
        </span>
        <button type="button" class="signout" onClick={() => signOut('signed-out')}>
          Sign out
        </button>
      </header>
      <main id="main">
        <Page loc={loc} me={me} />
      </main>
    </>
  );
}

/** On every page: find payments by id (prefix of 8 or more), buyer, email, invoice or provider ref. */
function SearchBox({ q }: { q: string }) {
  return (
    <form
      role="search"
      class="search"
      onSubmit={(e) => {
        e.preventDefault();
        const value = String(new FormData(e.currentTarget).get('q') ?? '').trim();
        navigate(href('/payments', { q: value }));
      }}
    >
      <label for="global-search" class="sr-only">
        Search payments
      </label>
      <input
        id="global-search"
        key={q}
        name="q"
        type="search"
        defaultValue={q}
        spellcheck={false}
        autoComplete="off"
        placeholder="Payment id, buyer, email, invoice, provider ref"
      />
      <button type="submit">Search</button>
    </form>
  );
}

const root = document.getElementById('app');
if (root) render(<Shell />, root);
