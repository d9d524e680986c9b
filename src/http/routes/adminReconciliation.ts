/**
 * Reconciliation and the CSV exports (issue 27, docs/api.md#reconciliation): thin handlers,
 * parse -> service -> reply, behind the admin guard.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { apiError } from '../../domain/errors.js';
import { PARAMS } from '../../domain/schemas.js';
import { PROVIDERS } from '../../domain/types.js';
import { reconciliationDeps, type Gateway } from '../../gateway.js';
import { ledgerCsv, reconciliationCsv } from '../../services/exports.js';
import {
  getReconciliation,
  parseTarget,
  runReconciliation,
} from '../../services/reconciliation.js';
import { listSettlementFiles, uploadSettlementFile } from '../../services/reconciliationImports.js';
import * as E from '../openapi/errors.js';
import type { Param } from '../openapi/types.js';
import { jsonBody, rawBody, sendJson } from '../reply.js';
import { defineRoutes } from './route.js';
import { requestAudit } from './adminGuard.js';
import { one } from './query.js';

const q = (
  name: string,
  schema: Record<string, unknown>,
  description?: string,
  required = false,
): Param => ({
  name,
  in: 'query',
  schema,
  ...(description ? { description } : {}),
  ...(required ? { required } : {}),
});

const PROVIDER = q('provider', { type: 'string', enum: [...PROVIDERS] }, undefined, true);
const DATE = q('date', { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' }, 'A UTC day.', true);
const MODE = q('mode', { type: 'string', enum: ['test', 'sandbox', 'live'] }, 'Default live.');

const example = {
  provider: 'wallet_psp',
  mode: 'live',
  date: '2026-11-24',
  status: 'mismatched',
  run_id: '5b1e0c7a9d3f4e2b8c6a1d0e9f8b7a6c',
  ran_at: '2026-11-25T03:00:04.512Z',
  import_id: null,
  matched_count: 1841,
  gateway_net_minor: null,
  provider_net_minor: null,
  fees_minor: null,
  by_currency: [
    {
      currency: 'EUR',
      gateway_net_minor: 9120400,
      provider_net_minor: 9125400,
      fees_minor: 340112,
    },
    { currency: 'USD', gateway_net_minor: 410000, provider_net_minor: 410000, fees_minor: 15290 },
  ],
  items: [
    {
      kind: 'missing_in_gateway',
      movement: 'charge',
      provider_ref: '2GG279541U471931P',
      payment_id: '0123456789abcdef0123456789abcdef',
      currency: 'EUR',
      gateway_amount_minor: null,
      provider_amount_minor: 5000,
      provider_status: 'completed',
      exception_id: '89abcdef0123456789abcdef01234567',
    },
  ],
};

const importExample = {
  import_id: '2f1e0d9c8b7a69584736251403f2e1d0',
  provider: 'idr_psp',
  mode: 'live',
  date: '2026-11-24',
  filename: 'settlement-2026-11-24.csv',
  row_count: 5120,
  uploaded_at: '2026-11-25T02:14:09.120Z',
  uploaded_by: { request_id: 'req-1f', source_ip: '203.0.113.7' },
};

const CSV = 'text/csv';

function sendCsv(reply: FastifyReply, csv: { filename: string; body: Readable }) {
  return reply
    .code(200)
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${csv.filename}"`)
    .send(csv.body);
}

/**
 * An export within the process's cap (services/exportSlots.ts), on the exports' own pool.
 * The slot comes back when the body closes: read to the end, failed, or destroyed because
 * the client went away (by then the cursor's transaction has ended).
 */
function sendExport(
  gw: Gateway,
  reply: FastifyReply,
  build: (pool: Gateway['exportPool']) => { filename: string; body: Readable },
) {
  const giveBack = gw.exportSlots.take();
  let csv: { filename: string; body: Readable };
  try {
    csv = build(gw.exportPool);
  } catch (err) {
    giveBack();
    throw err;
  }
  csv.body.once('close', giveBack);
  return sendCsv(reply, csv);
}

// The 400s and other errors of these routes, from the closed error table.

/** provider, date and mode of a reconciliation (query or body). */
const RECONCILIATION_TARGET: E.ErrorTable = E.invalid(
  'provider must be one of idr_psp, card_psp, wallet_psp',
  'date must be a day as YYYY-MM-DD',
  'date must not be in the future',
  'mode must be one of test, sandbox, live',
);

const RECONCILIATION_RUN: E.ErrorTable = E.merge(
  E.templated('no_settlement_file', [
    { name: 'provider', pattern: 'idr_psp', example: 'idr_psp' },
    { name: 'date', pattern: '\\d{4}-\\d{2}-\\d{2}', example: '2026-11-24' },
  ]),
  E.templated('reconciliation_failed', [
    {
      name: "the provider's text",
      pattern: E.ANY,
      example: 'wallet_psp is not configured for live mode',
    },
  ]),
  E.templated('reconciliation_unknown', [
    { name: 'what happened', pattern: E.ANY, example: 'card_psp timed out after 15000 ms' },
  ]),
);

/** POST /admin/reconciliation/imports: the file is checked whole; nothing of a refused one is kept. */
const SETTLEMENT_FILE: E.ErrorTable = E.merge(
  E.invalid(
    'settlement file is empty',
    'settlement file must be UTF-8 text',
    'filename must be 1 to 200 letters, digits, spaces or . _ ( ) -',
    E.t(
      'provider <provider> is reconciled from its API; settlement files are for idr_psp',
      '^provider (card_psp|wallet_psp) is reconciled from its API; settlement files are for idr_psp$',
      'provider wallet_psp is reconciled from its API; settlement files are for idr_psp',
    ),
    E.t(
      'not an idr_psp settlement report: the first line must be <the header>',
      '^not an idr_psp settlement report: the first line must be [a-z_,]+$',
      'not an idr_psp settlement report: the first line must be order_id,transaction_id,refund_key,transaction_type,payment_type,transaction_status,transaction_time,settlement_time,currency,gross_amount,fee_amount,net_amount',
    ),
    E.t(
      'settlement file has more than <n> rows',
      '^settlement file has more than \\d+ rows$',
      'settlement file has more than 2000000 rows',
    ),
    E.t(
      'settlement file line <n>: <what is wrong>',
      '^settlement file line \\d+: .+$',
      'settlement file line 3: gross_amount must be a whole rupiah amount',
    ),
  ),
  E.WITH_BODY,
);

const IMPORT_LIST: E.ErrorTable = E.invalid(
  'provider must be one of idr_psp, card_psp, wallet_psp',
);

const LEDGER_EXPORT: E.ErrorTable = E.invalid(
  'since is required',
  'provider must be one of idr_psp, card_psp, wallet_psp',
);

const tag = 'Admin: reconciliation';

export const reconciliationRoutes = defineRoutes(
  [
    {
      method: 'get',
      path: '/admin/reconciliation',
      operationId: 'getReconciliation',
      tag,
      summary: "A day's reconciliation with a provider",
      description:
        'The newest run of the day (docs/api.md#reconciliation); status pending and no items before the first run.',
      security: 'admin',
      parameters: [PROVIDER, DATE, MODE],
      ok: { 200: { schema: 'Reconciliation', description: 'The day.', example } },
      errors: RECONCILIATION_TARGET,
    },
    {
      method: 'post',
      path: '/admin/reconciliation/runs',
      operationId: 'runReconciliation',
      tag,
      summary: 'Reconcile a day now',
      description:
        '`{ "provider", "date", "mode"? }`: reads the provider\'s record (wallet_psp, card_psp: their API; idr_psp: the last settlement file imported for the day) and answers the result.',
      security: 'admin',
      rawBody: {
        description: '{ "provider": "wallet_psp", "date": "2026-11-24", "mode": "live" }',
      },
      ok: { 200: { schema: 'Reconciliation', description: 'The new run.', example } },
      errors: E.merge(E.JSON_BODY, RECONCILIATION_TARGET, RECONCILIATION_RUN, E.WITH_BODY),
    },
    {
      method: 'post',
      path: '/admin/reconciliation/imports',
      operationId: 'importSettlementFile',
      tag,
      summary: "Upload a provider's settlement report file (idr_psp)",
      description:
        'The body is the file as the provider gives it (docs/providers/idr_psp.md#settlement-report-file). Checked whole: a refused file stores nothing; the same bytes again answer 200 with the first upload and change nothing.',
      security: 'admin',
      parameters: [
        q('provider', { type: 'string', enum: ['idr_psp'] }, undefined, true),
        DATE,
        MODE,
        q('filename', { type: 'string' }, 'Shown in the list; default <provider>-<date>.csv.'),
      ],
      rawBody: { description: 'The CSV file.', contentType: CSV },
      ok: {
        201: { schema: 'ReconciliationImport', description: 'Stored.', example: importExample },
        200: {
          schema: 'ReconciliationImport',
          description: 'The same file was stored before: that upload.',
          example: importExample,
        },
      },
      errors: E.merge(RECONCILIATION_TARGET, SETTLEMENT_FILE),
    },
    {
      method: 'get',
      path: '/admin/reconciliation/imports',
      operationId: 'listSettlementFiles',
      tag,
      summary: 'Uploaded settlement files, newest first, with who uploaded them',
      security: 'admin',
      parameters: [
        q('provider', { type: 'string', enum: [...PROVIDERS] }),
        q('limit', PARAMS.limit),
      ],
      ok: {
        200: {
          schema: 'ReconciliationImportList',
          description: 'The uploads.',
          example: { imports: [importExample] },
        },
      },
      errors: E.merge(IMPORT_LIST, E.LIST_LIMIT),
    },
    {
      method: 'get',
      path: '/admin/reconciliation/export.csv',
      operationId: 'exportReconciliation',
      tag,
      summary: "A day's reconciliation items as CSV",
      security: 'admin',
      parameters: [PROVIDER, DATE, MODE],
      ok: {
        200: {
          text: CSV,
          description: 'RFC 4180 CSV with a header line, streamed.',
          example:
            'provider,mode,date,kind,movement,provider_ref,payment_id,currency,gateway_amount_minor,provider_amount_minor,provider_status,exception_id\r\n',
        },
      },
      errors: E.merge(RECONCILIATION_TARGET, E.TOO_MANY_EXPORTS),
    },
    {
      method: 'get',
      path: '/admin/ledger/export.csv',
      operationId: 'exportLedger',
      tag,
      summary: 'The ledger over [since, until) as CSV, oldest first',
      description: 'Streamed from a database cursor: any window exports in bounded memory.',
      security: 'admin',
      parameters: [
        q('since', PARAMS.time, 'Required: occurred_at from (inclusive).', true),
        q('until', PARAMS.time, 'Default now: occurred_at before (exclusive).'),
        q('provider', { type: 'string', enum: [...PROVIDERS] }),
        q('mode', PARAMS.mode),
      ],
      ok: {
        200: {
          text: CSV,
          description: 'RFC 4180 CSV with a header line, streamed.',
          example:
            'occurred_at,id,type,payment_id,refund_id,dispute_id,exception_id,app_id,provider,mode,currency,amount_minor,fee_minor\r\n',
        },
      },
      errors: E.merge(LEDGER_EXPORT, E.SINCE_UNTIL, E.TOO_MANY_EXPORTS),
    },
  ],
  ({ gw }) => {
    const deps = reconciliationDeps(gw);
    const target = (req: FastifyRequest) =>
      parseTarget(
        { provider: one(req, 'provider'), date: one(req, 'date'), mode: one(req, 'mode') },
        gw.now(),
      );
    return {
      getReconciliation: async (req, reply) =>
        sendJson(reply, 200, await getReconciliation(gw.pool, target(req))),
      runReconciliation: async (req, reply) => {
        const body = jsonBody(req);
        if (typeof body !== 'object' || body === null || Array.isArray(body)) {
          throw apiError('invalid', 'body must be a JSON object');
        }
        const t = parseTarget(body as Record<string, unknown>, gw.now());
        const audit = requestAudit(req, 'reconciliation.run');
        return sendJson(reply, 200, await runReconciliation(deps, t, 'operator', audit));
      },
      importSettlementFile: {
        bodyLimit: gw.config.reconciliation.importMaxBytes,
        handler: async (req, reply) => {
          const res = await uploadSettlementFile(
            gw.pool,
            {
              provider: one(req, 'provider'),
              date: one(req, 'date'),
              mode: one(req, 'mode'),
              filename: one(req, 'filename'),
            },
            rawBody(req),
            { requestId: String(req.id), sourceIp: req.ip },
            requestAudit(req, 'reconciliation.import'),
            gw.now(),
          );
          return sendJson(reply, res.status, res.body);
        },
      },
      listSettlementFiles: async (req, reply) =>
        sendJson(
          reply,
          200,
          await listSettlementFiles(gw.pool, {
            provider: one(req, 'provider'),
            limit: one(req, 'limit'),
          }),
        ),
      exportReconciliation: async (req, reply) =>
        sendExport(gw, reply, (pool) =>
          reconciliationCsv(
            pool,
            { provider: one(req, 'provider'), date: one(req, 'date'), mode: one(req, 'mode') },
            gw.now(),
          ),
        ),
      exportLedger: async (req, reply) =>
        sendExport(gw, reply, (pool) =>
          ledgerCsv(
            pool,
            {
              since: one(req, 'since'),
              until: one(req, 'until'),
              provider: one(req, 'provider'),
              mode: one(req, 'mode'),
            },
            gw.now(),
          ),
        ),
    };
  },
);
