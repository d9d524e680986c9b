import { buildOpenApiDocument } from './document.js';

/** The committed form of the document (docs/openapi.json): two-space JSON, final newline. */
export function openApiJson(): string {
  return JSON.stringify(buildOpenApiDocument(), null, 2) + '\n';
}
