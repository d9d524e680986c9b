import { constants } from 'node:zlib';

/**
 * The output chunk for a one-shot deflate or inflate of a small body (an archived webhook, an
 * outbound event), sized from the bytes expected out. zlib's default is 16 KiB, allocated
 * outside Buffer's shared pool for every call: a few hundred bytes of output then held a
 * 16 KiB ArrayBuffer each, three per settled payment. V8 counts that memory as external, and
 * under webhook load it started most of the gateway's full collections on its own (32 a
 * bench run against 9 without, docs/performance.md, the eighth pass). A chunk under half of
 * Buffer.poolSize comes from the pool. Only a hint: output longer than the chunk goes on in
 * further chunks, joined as before.
 */
export function outputChunkFor(expectedBytes: number): number {
  return Math.min(Math.max(expectedBytes, constants.Z_MIN_CHUNK), constants.Z_DEFAULT_CHUNK);
}
