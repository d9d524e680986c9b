/**
 * The role matrix (docs/operations.md#operator-roles): the one table that says which role may
 * use which admin route. The admin routes' guard (http/routes/adminGuard.ts) and the OpenAPI
 * document (x-roles on each operation) both read it; a test walks every route Fastify has
 * registered against it, so a route added without a row here fails that test by name.
 *
 * Roles are nested: each has every right of the roles before it. A row names the least role
 * that may use the route and the action its 403 names (`forbidden: role <role> cannot
 * <action>`). ADMIN_TOKEN (actor root) may use every route.
 */
export const ROLES = ['viewer', 'support', 'finance', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export interface RouteRule {
  /** The least role that may use the route. */
  role: Role;
  /** What the route does, as the 403 names it. */
  action: string;
  /**
   * Also allowed to any operator when the path's first parameter is the operator's own id
   * (their own personal tokens).
   */
  orSelf?: boolean;
}

const viewer = (action: string): RouteRule => ({ role: 'viewer', action });
const support = (action: string): RouteRule => ({ role: 'support', action });
const finance = (action: string): RouteRule => ({ role: 'finance', action });
const admin = (action: string): RouteRule => ({ role: 'admin', action });

/**
 * `METHOD /path`, each path parameter written `{}` (Fastify's `:id` and OpenAPI's `{app_id}`
 * both reduce to it). HEAD follows GET.
 */
export const ROLE_MATRIX: Readonly<Record<string, RouteRule>> = {
  // Reading: every role.
  'GET /metrics': viewer('read metrics'),
  'GET /admin/me': viewer('read their own account'),
  'GET /admin/apps': viewer('list apps'),
  'GET /admin/summary': viewer('read the summary'),
  'GET /admin/timeseries': viewer('read the timeseries'),
  'GET /admin/payments': viewer('list payments'),
  'GET /admin/payments/{}': viewer('read payments'),
  'GET /admin/refunds': viewer('list refunds'),
  'GET /admin/ledger': viewer('read the ledger'),
  'GET /admin/balances': viewer('read balances'),
  'GET /admin/payouts': viewer('read payouts'),
  'GET /admin/inbound_events': viewer('list inbound events'),
  'GET /admin/deliveries': viewer('list deliveries'),
  'GET /admin/exceptions': viewer('list exceptions'),
  'GET /admin/disputes': viewer('list disputes'),
  'GET /admin/disputes/{}': viewer('read disputes'),
  'GET /admin/stuck': viewer('list stuck work'),
  'GET /admin/audit': viewer('read the audit log'),
  'GET /admin/operators': viewer('list operators'),
  'GET /admin/operators/{}': viewer('read operators'),
  'GET /admin/operators/{}/tokens': viewer('list tokens'),
  'GET /admin/admin-token': viewer('read the admin token setting'),
  'GET /admin/apps/{}/endpoints': viewer('list endpoints'),
  'GET /admin/apps/{}/endpoints/{}/stats': viewer('read endpoint stats'),
  'GET /admin/reconciliation': viewer('read reconciliations'),
  'GET /admin/reconciliation/imports': viewer('list settlement imports'),
  'GET /admin/reconciliation/export.csv': viewer('export reconciliations'),
  'GET /admin/ledger/export.csv': viewer('export the ledger'),
  // Support: make the gateway tell apps again, ask providers again.
  'POST /admin/payments/{}/retry-webhook': support('retry webhooks'),
  'POST /admin/apps/{}/redeliver': support('redeliver events'),
  'POST /admin/payments/{}/sync': support('sync payments'),
  'POST /admin/apps/{}/endpoints/{}/recover': support('recover endpoints'),
  // Finance: move money, close money questions.
  'POST /admin/payments/{}/cancel': finance('cancel payments'),
  'POST /admin/payments/{}/refund': finance('refund payments'),
  'POST /admin/exceptions/{}/resolve': finance('resolve exceptions'),
  'POST /admin/reconciliation/runs': finance('run reconciliations'),
  'POST /admin/reconciliation/imports': finance('import settlement reports'),
  // Admin: apps, keys, people.
  'POST /admin/apps': admin('create apps'),
  'PATCH /admin/apps/{}': admin('change apps'),
  'POST /admin/apps/{}/regenerate-keys': admin('regenerate keys'),
  'POST /admin/apps/{}/endpoints': admin('create endpoints'),
  'PATCH /admin/apps/{}/endpoints/{}': admin('change endpoints'),
  'DELETE /admin/apps/{}/endpoints/{}': admin('disable endpoints'),
  'POST /admin/apps/{}/endpoints/{}/rotate-secret': admin('rotate endpoint secrets'),
  'POST /admin/operators': admin('create operators'),
  'PATCH /admin/operators/{}': admin('change operators'),
  'POST /admin/operators/{}/tokens': { ...admin('create tokens for others'), orSelf: true },
  'POST /admin/operators/{}/tokens/{}/revoke': {
    ...admin('revoke tokens of others'),
    orSelf: true,
  },
  'PATCH /admin/admin-token': admin('turn the admin token on or off'),
};

/** The matrix key of a route: `GET /admin/apps/:id` and `get /admin/apps/{app_id}` agree. */
export function routeKey(method: string, path: string): string {
  const m = method.toUpperCase();
  return `${m === 'HEAD' ? 'GET' : m} ${path.replace(/:[^/]+|\{[^}]+\}/g, '{}')}`;
}

/**
 * The row of a route. A route without one is answered as if it needed `admin`, so that a
 * route added without a row is closed to everyone but admins until it gets one.
 */
export function ruleFor(method: string, path: string): RouteRule {
  const key = routeKey(method, path);
  return ROLE_MATRIX[key] ?? { role: 'admin', action: key };
}

export function roleAllows(role: Role, least: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(least);
}

/** The roles that may use a route, for the OpenAPI document. */
export function rolesFor(method: string, path: string): Role[] {
  const least = ruleFor(method, path).role;
  return ROLES.filter((r) => roleAllows(r, least));
}

export function isRole(v: unknown): v is Role {
  return typeof v === 'string' && (ROLES as readonly string[]).includes(v);
}
