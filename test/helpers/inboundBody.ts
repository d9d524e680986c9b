import { unpackBody } from '../../src/db/inboundBody.js';

/** The columns of an archived webhook that give its body (select all three). */
export interface ArchivedBodyColumns {
  provider: string;
  raw_body: Buffer;
  body_codec: number | null;
}

/**
 * An archived webhook's body as the provider sent it, read from its row: whole bodies are
 * stored deflated since migration 0029 (src/db/inboundBody.ts).
 */
export function receivedBody(row: ArchivedBodyColumns): Buffer {
  return unpackBody(row.provider, row.raw_body, row.body_codec);
}
