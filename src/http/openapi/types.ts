/** The shape of one operation of the OpenAPI document, as document.ts renders it. */
import type { BodySpec, JsonSchema } from '../../domain/schemas.js';
import type { ResponseSchemaName } from '../../domain/responseSchemas.js';
import type { ErrorTable } from './errors.js';

export type Json = Record<string, unknown>;
export type Security = 'app' | 'admin' | 'none';

export interface Param {
  name: string;
  in: 'query' | 'path' | 'header';
  schema: JsonSchema;
  description?: string;
  required?: boolean;
}

export interface JsonAnswer {
  schema: ResponseSchemaName;
  description: string;
  example?: unknown;
}

export interface Operation {
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  security: Security;
  parameters?: Param[];
  body?: { spec: BodySpec; example: unknown; required: boolean; description?: string };
  /** A body the gateway reads as raw bytes in a provider's own format. */
  rawBody?: { description: string; contentType?: string };
  ok: Record<number, JsonAnswer | TextAnswer | EmptyAnswer>;
  errors: ErrorTable;
}

export interface TextAnswer {
  text: string;
  description: string;
  example: string;
}

/** An answer without a body (204). */
export interface EmptyAnswer {
  empty: true;
  description: string;
}
