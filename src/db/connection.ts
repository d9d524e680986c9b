/**
 * Where the gateway's database connections go (docs/operations.md#high-availability).
 *
 * node-postgres connects to one host. A DATABASE_URL may name several
 * (`postgres://u:p@db1:5432,db2:5432/paygate?target_session_attrs=read-write`, libpq's
 * syntax): every new connection goes to the host last found to be the primary; when a
 * connection to it fails, or it turns out to be read-only (a standby, a demoted primary),
 * every host is asked in turn (`SELECT pg_is_in_recovery()`) and the first primary becomes
 * the target. Requests that meet the dead host in the meantime fail, and are answered with
 * a retryable 503 (db/errors.ts).
 *
 * Behind PgBouncer in transaction pooling mode two consecutive statements may run on two
 * different server connections, so nothing may rely on a connection's session: statements
 * are never prepared under a name, and no startup options are sent.
 */
import pg from 'pg';
import { parse } from 'pg-connection-string';

export interface HostPort {
  host: string;
  port: number;
}

export interface DatabaseTarget {
  hosts: HostPort[];
  /** Connect only to a server that accepts writes (libpq's target_session_attrs=read-write). */
  readWrite: boolean;
  /** Everything but the host and port: user, password, database, ssl... */
  base: pg.ClientConfig;
  /** PgBouncer in transaction pooling mode: no named prepared statements, no session options. */
  transactionPooling: boolean;
}

/** A connection string that is not a valid (possibly multi-host) postgres:// URL. */
export class DatabaseUrlError extends Error {}

const URL_SHAPE = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/s;

function parseHost(text: string): HostPort {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(text);
  const port = m?.[2] === undefined ? 5432 : Number(m[2]);
  if (!m?.[1] || port < 1 || port > 65535) throw new DatabaseUrlError(`bad host "${text}"`);
  return { host: m[1].replace(/^\[(.*)\]$/, '$1'), port };
}

/**
 * Parses libpq's URL form with one or more `host[:port]` separated by commas. Several hosts
 * default to target_session_attrs=read-write (the gateway only ever needs the primary); one
 * host defaults to `any`, like libpq, which saves a query per new connection.
 */
export function parseDatabaseUrl(url: string, transactionPooling = false): DatabaseTarget {
  const m = URL_SHAPE.exec(url);
  if (!m) throw new DatabaseUrlError('must be a postgres:// URL');
  const [, scheme, userinfo = '', hostList = '', rest = ''] = m;
  const hosts =
    hostList === '' ? [{ host: 'localhost', port: 5432 }] : hostList.split(',').map(parseHost);
  let single: URL;
  try {
    single = new URL(`${scheme}${userinfo}placeholder${rest}`);
  } catch {
    throw new DatabaseUrlError('must be a postgres:// URL');
  }
  const attrs =
    single.searchParams.get('target_session_attrs') ?? (hosts.length > 1 ? 'read-write' : 'any');
  if (!['any', 'read-write', 'primary'].includes(attrs)) {
    throw new DatabaseUrlError(
      `target_session_attrs must be any, read-write or primary, got "${attrs}"`,
    );
  }
  single.searchParams.delete('target_session_attrs');
  // Parsed once: a connectionString would override the host chosen per connection.
  const base: Record<string, unknown> = { ...parse(single.toString()) };
  delete base.host;
  delete base.port;
  return { hosts, readWrite: attrs !== 'any', base: base as pg.ClientConfig, transactionPooling };
}

/**
 * Every connection: a connect that hangs (a host gone from the network) fails after 5 s, and
 * TCP keepalive probes start after 10 s of silence instead of the OS default of two hours.
 */
export const CONNECTION_SETTINGS = {
  keepAlive: true,
  keepAliveInitialDelayMillis: 10_000,
  connectionTimeoutMillis: 5000,
} as const;

/** The server a connection reached is not the primary; the request may be retried. */
export class NotPrimaryError extends Error {
  readonly code = 'PAYGATE_NOT_PRIMARY';
}

interface Log {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

const PRIMARY_CHECK = `SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on' AS read_only`;
const PROBE_TIMEOUT_MS = 3000;
const MIN_PROBE_GAP_MS = 250;

/** Errors after which a connection's server must be presumed gone or no longer the primary. */
const SERVER_GONE = new Set(['25006', '57P01', '57P02', '57P03']);

/** Which host new connections go to; re-found among all hosts when it fails. */
export class PrimaryLocator {
  private index = 0;
  private probing: Promise<void> | null = null;
  private lastProbe = 0;

  constructor(
    readonly target: DatabaseTarget,
    private readonly log?: Log,
  ) {}

  current(): HostPort {
    return this.target.hosts[this.index] as HostPort;
  }

  /** Resolves when no search for the primary is under way. */
  async settled(): Promise<void> {
    await this.probing;
  }

  /** A connection to `host` failed or found a read-only server: look for the primary. */
  lost(host: HostPort): void {
    if (this.target.hosts.length < 2 || this.probing) return;
    const cur = this.current();
    if (cur.host !== host.host || cur.port !== host.port) return; // already moved on
    const wait = Math.max(0, this.lastProbe + MIN_PROBE_GAP_MS - Date.now());
    this.probing = new Promise<void>((r) => setTimeout(r, wait))
      .then(() => this.probe())
      .finally(() => {
        this.lastProbe = Date.now();
        this.probing = null;
      });
  }

  /** Every host in turn, the current one last; the first primary found becomes the target. */
  private async probe(): Promise<void> {
    const n = this.target.hosts.length;
    for (let i = 1; i <= n; i++) {
      const idx = (this.index + i) % n;
      const host = this.target.hosts[idx] as HostPort;
      if (await isPrimary(this.target, host)) {
        if (idx !== this.index) {
          this.log?.warn(
            { host: `${host.host}:${host.port}` },
            'database primary is now this host',
          );
        }
        this.index = idx;
        return;
      }
    }
  }
}

async function isPrimary(target: DatabaseTarget, host: HostPort): Promise<boolean> {
  const c = new pg.Client({ ...target.base, ...host, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  c.on('error', () => undefined);
  try {
    await c.connect();
    const r = await c.query<{ read_only: boolean }>(PRIMARY_CHECK);
    return r.rows[0]?.read_only === false;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** The locator for a URL of its own, or the process's shared one as it is. */
export function locatorFor(connection: string | PrimaryLocator): PrimaryLocator {
  return typeof connection === 'string'
    ? new PrimaryLocator(parseDatabaseUrl(connection))
    : connection;
}

/** After connecting: refuses a read-only server when the target asks for the primary. */
export async function checkPrimary(client: pg.Client, locator: PrimaryLocator): Promise<void> {
  if (!locator.target.readWrite) return;
  const host: HostPort = { host: client.host, port: client.port };
  const r = await client.query<{ read_only: boolean }>(PRIMARY_CHECK);
  if (r.rows[0]?.read_only !== false) {
    locator.lost(host);
    throw new NotPrimaryError(`${host.host}:${host.port} is not the primary (read-only)`);
  }
}

type Callback = (err: Error | null, res?: unknown) => void;

/**
 * A pg.Client for a pool: connects to the locator's current host, reports failures to it,
 * drops its connection after an error that says the server is gone or read-only, and in
 * transaction pooling mode sends every statement unnamed.
 */
export function clientClass(
  locator: PrimaryLocator,
  settings: pg.ClientConfig = {},
): typeof pg.Client {
  const unnamed = locator.target.transactionPooling;
  class TargetClient extends pg.Client {
    private readonly target: HostPort;

    constructor(config?: pg.ClientConfig) {
      const host = locator.current();
      super({ ...config, ...locator.target.base, ...settings, ...host });
      this.target = host;
      // A server that dies under a checked-out client (a transaction in flight) makes pg emit
      // 'error' on it, which would crash the process with no listener. Its queries fail with
      // that error anyway, and the pool discards it on release.
      this.on('error', () => undefined);
    }

    private failed(err: unknown): void {
      const code = (err as { code?: unknown } | null)?.code;
      if (typeof code === 'string' && SERVER_GONE.has(code)) {
        locator.lost(this.target);
        // A server that is read-only now stays so: the pool must discard this connection
        // when it comes back (pg-pool checks this same flag), and nothing may run on it.
        (this as unknown as { _queryable: boolean })._queryable = false;
      } else if (isConnectionError(err)) {
        locator.lost(this.target);
      }
    }

    // Both of pg's forms: the pool connects with a callback, the listener with a promise.
    override connect(...args: unknown[]): never {
      const cb = args[0];
      if (typeof cb === 'function') {
        const connectCb = super.connect as (this: pg.Client, cb: Callback) => void;
        connectCb.call(this, (err, res) => {
          if (err) this.failed(err);
          (cb as Callback)(err, res);
        });
        return undefined as never;
      }
      const connectP = super.connect as (this: pg.Client) => Promise<unknown>;
      return connectP.call(this).catch((err: unknown) => {
        this.failed(err);
        throw err;
      }) as never;
    }

    // pg's query has many overloads; they all end up here with the same arguments.
    override query(...args: unknown[]): never {
      if (unnamed && args[0] !== null && typeof args[0] === 'object' && 'name' in args[0]) {
        const rest: Record<string, unknown> = { ...(args[0] as Record<string, unknown>) };
        delete rest.name;
        args[0] = rest;
      }
      const last = args.length - 1;
      const cb = args[last];
      if (typeof cb === 'function') {
        args[last] = (err: Error | null, res?: unknown) => {
          if (err) this.failed(err);
          (cb as Callback)(err, res);
        };
      }
      const config = args[0] as { callback?: Callback } | null;
      if (config && typeof config === 'object' && typeof config.callback === 'function') {
        const inner = config.callback;
        config.callback = (err, res) => {
          if (err) this.failed(err);
          inner(err, res);
        };
      }
      const result: unknown = (super.query as (...a: unknown[]) => unknown).apply(this, args);
      if (result instanceof Promise) {
        result.catch((err: unknown) => this.failed(err));
      }
      return result as never;
    }
  }
  return TargetClient as unknown as typeof pg.Client;
}

const CONNECTION_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/** The connection itself failed (refused, reset, closed, timed out), not the statement. */
export function isConnectionError(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 4; depth++) {
    const x = e as { code?: unknown; message?: unknown; errors?: unknown[]; cause?: unknown };
    if (typeof x.code === 'string' && (CONNECTION_ERRNOS.has(x.code) || x.code.startsWith('08'))) {
      return true;
    }
    const msg = typeof x.message === 'string' ? x.message : '';
    if (
      /^Connection terminated|not queryable|timeout exceeded when trying to connect|Client was closed/.test(
        msg,
      )
    ) {
      return true;
    }
    if (Array.isArray(x.errors) && x.errors.some((inner) => isConnectionError(inner))) return true;
    e = x.cause;
  }
  return false;
}

/**
 * The database cannot serve this request right now (no primary reachable, a failover under
 * way, the server shutting down or starting, no connection slots): the request may be
 * retried as it is. Never a statement's own error (a constraint, bad input).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (err instanceof NotPrimaryError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (SERVER_GONE.has(code) || code === '53300')) return true;
  return isConnectionError(err);
}

/** The database named by a setting cannot be used at start; the message is one line with the fix. */
export class DatabaseStartError extends Error {}

const PG_LOGIN_REFUSED = new Set(['28P01', '28000']);

/**
 * One line naming why `setting`'s database cannot be used and what to change, or undefined
 * when the failure is not one the operator fixes in the setting (a defect: logged with its
 * stack). Never shows the URL: it may hold a password.
 */
export function databaseStartFailure(
  err: unknown,
  setting: string,
  target: DatabaseTarget,
): string | undefined {
  const where = target.hosts.map((h) => `${h.host}:${h.port}`).join(',');
  const code = (err as { code?: unknown } | null)?.code;
  const text = err instanceof Error ? err.message.split('\n')[0] : String(err);
  if (err instanceof NotPrimaryError) {
    return `the database at ${where} is read-only (not the primary): point ${setting} at the primary`;
  }
  if (typeof code === 'string' && PG_LOGIN_REFUSED.has(code)) {
    return `the database at ${where} refused the login (${code} ${text}): correct the user or password in ${setting}`;
  }
  if (code === '3D000') {
    return `the database at ${where} answered ${code} ${text}: create it, or correct the database name in ${setting}`;
  }
  if (isConnectionError(err)) {
    // pg's connection timeout has no code, only its message.
    const why = typeof code === 'string' ? code : 'no answer within 5 s';
    return `cannot connect to the database at ${where} (${why}): start PostgreSQL there, or correct ${setting}`;
  }
  return undefined;
}

/**
 * One statement through `pool` before the gateway listens: a database that cannot be reached
 * ends the start with one line (DatabaseStartError) instead of a listening server that dies
 * moments later. Several hosts get one try each, the locator moving to the next in between.
 * `pool` is a synchronous pool; a connection whose commits do not flush ends the start too.
 */
export async function checkDatabaseReachable(
  pool: Pick<pg.Pool, 'query'>,
  setting: string,
  locator: PrimaryLocator,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    let commits: string | undefined;
    try {
      const res = await pool.query<{ sc: string }>(
        `SELECT current_setting('synchronous_commit') AS sc`,
      );
      commits = res.rows[0]?.sc;
    } catch (err) {
      const line = databaseStartFailure(err, setting, locator.target);
      if (line === undefined) throw err;
      if (attempt >= locator.target.hosts.length) throw new DatabaseStartError(line);
      await locator.settled();
      continue;
    }
    // The pool is a synchronous one: its commits are the durability barrier of the replies and
    // deliveries that end with them (docs/adr/0002). Behind PgBouncer's transaction pooling no
    // session setting can be made, so the server's default must flush.
    if (commits === 'off') {
      const where = locator.target.hosts.map((h) => `${h.host}:${h.port}`).join(',');
      throw new DatabaseStartError(
        `the database at ${where} commits without flushing (synchronous_commit = off for this connection): set it to on for the gateway's role or database (ALTER ROLE ... SET synchronous_commit = on)`,
      );
    }
    return;
  }
}
