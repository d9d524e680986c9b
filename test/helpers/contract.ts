/**
 * The shapes tests read and send, from the public contract (docs/openapi.json, generated
 * into dashboard/src/contract.gen.ts by `npm run types`), never from the services that make
 * them: a test that compiles against these checks the answer the documentation promises.
 * The names are the ones the tests have always used.
 */
import type { components } from '../../dashboard/src/contract.gen.js';

type Schemas = components['schemas'];

/** POST /admin/apps and regenerate-keys: the only answers with the secrets. */
export type AppWithSecrets = Schemas['AppWithSecrets'];
/** An app as read and listed (GET /admin/apps). */
export type AppView = Schemas['App'];
/** GET /v1/payments/{id}. */
export type PaymentView = Schemas['Payment'];
export type CreatedPayment = Schemas['CreatedPayment'];
export type Refund = Schemas['Refund'];
export type PaymentDetail = Schemas['PaymentDetail'];
/** Webhook endpoints (docs/api.md#webhook-endpoints). */
export type EndpointView = Schemas['Endpoint'];
export type CreatedEndpoint = Schemas['CreatedEndpoint'];
export type Exception = Schemas['Exception'];
export type LedgerEntry = Schemas['LedgerEntry'];
export type Dispute = Schemas['Dispute'];
export type WebhookAck = Schemas['WebhookAck'];
