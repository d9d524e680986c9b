/**
 * The gateway's HTTP API: every route group, in the order of docs/api.md, inside the Fastify
 * scope that guards it. server.ts registers exactly these; the OpenAPI document
 * (openapi/document.ts) is rendered from exactly these. There is no other list of paths.
 */
import { guarded } from './routes/adminGuard.js';
import { appRoutes } from './routes/adminApps.js';
import { endpointRoutes } from './routes/adminEndpoints.js';
import { moneyRoutes, payoutRoutes } from './routes/adminMoney.js';
import { operatorRoutes } from './routes/adminOperators.js';
import { opsRoutes } from './routes/adminOps.js';
import { paymentActionRoutes } from './routes/adminPayments.js';
import { reconciliationRoutes } from './routes/adminReconciliation.js';
import { reportRoutes } from './routes/adminReports.js';
import { dashboardGroup, dashboardSetup } from './routes/dashboard.js';
import { healthRoutes, metricsRoutes, openApiRoutes } from './routes/health.js';
import { signInRoutes, signInSetup } from './routes/signIn.js';
import { v1Routes } from './routes/v1.js';
import { webhookRoutes } from './routes/webhooks.js';
import type { RouteScope } from './routes/route.js';

export const API: readonly RouteScope[] = [
  { groups: [v1Routes] },
  { groups: [webhookRoutes] },
  {
    // Every /admin route: a credential and the role matrix (routes/adminGuard.ts).
    setup: guarded,
    groups: [
      appRoutes,
      endpointRoutes,
      reportRoutes,
      paymentActionRoutes,
      moneyRoutes,
      reconciliationRoutes,
      payoutRoutes,
      opsRoutes,
      operatorRoutes,
    ],
  },
  { setup: signInSetup, groups: [signInRoutes] },
  { groups: [healthRoutes] },
  { setup: guarded, groups: [metricsRoutes] },
  { groups: [openApiRoutes] },
  { setup: dashboardSetup, groups: [dashboardGroup()] },
];
