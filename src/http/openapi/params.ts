/** Parameters several routes share, as the OpenAPI document shows them. */
import { IDEMPOTENCY_KEY, PARAMS, type JsonSchema } from '../../domain/schemas.js';
import type { Param } from './types.js';

export const PAYMENT_ID_PARAM: Param = {
  name: 'payment_id',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description:
    'The payment id, 32 lowercase hex characters; any other value is answered 404 payment not found.',
};

export const APP_ID_PARAM: Param = {
  name: 'app_id',
  in: 'path',
  required: true,
  schema: { type: 'string', examples: ['app_1a7c63dbe650b204c67e4daf'] },
};

/** A path parameter named `id` (disputes, exceptions). */
export const ID_PARAM: Param = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string' },
};

export const IDEMPOTENCY_PARAM: Param = {
  name: 'Idempotency-Key',
  in: 'header',
  schema: IDEMPOTENCY_KEY.schema,
  description:
    'Strongly recommended (docs/api.md#idempotency): the same key and body within 24 hours replays the stored answer.',
};

/** A query parameter. */
export const q = (name: string, schema: JsonSchema, description?: string): Param => ({
  name,
  in: 'query',
  schema,
  ...(description ? { description } : {}),
});

export const LIMIT = q('limit', PARAMS.limit);
export const MODE = q('mode', PARAMS.mode);
