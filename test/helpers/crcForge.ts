/**
 * What an attacker does to a wallet_psp (PayPal) webhook: the provider signs a CRC32 of the
 * body, and CRC32 is affine over GF(2), so a filler of 64 characters, each 'A' or 'C' (one
 * bit apart), can be solved for to give any body the CRC of another. Written here from the
 * CRC's definition, independently of the adapter's own crc32.
 */
const TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32Of(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of data) crc = (TABLE[(crc ^ b) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

const FILLER = 64;

/**
 * A body `before + filler + after` whose CRC32 is `target`; the filler is 64 characters of
 * 'A' and 'C', so it can sit inside any JSON string.
 */
export function forgeCrc(before: string, after: string, target: number): string {
  const bytes = (filler: string) => Buffer.from(before + filler + after, 'utf8');
  const base = 'A'.repeat(FILLER);
  const baseCrc = crc32Of(bytes(base));
  // Column i: how flipping character i from 'A' to 'C' changes the CRC (linear part only).
  const columns: number[] = [];
  for (let i = 0; i < FILLER; i++) {
    columns.push((crc32Of(bytes(base.slice(0, i) + 'C' + base.slice(i + 1))) ^ baseCrc) >>> 0);
  }
  // Gaussian elimination over GF(2): rows are CRC bits, unknowns the 64 characters.
  const want = (target ^ baseCrc) >>> 0;
  const pivots: { bit: number; vector: number; picks: bigint }[] = [];
  for (let i = 0; i < FILLER; i++) {
    let vector = columns[i] as number;
    let picks = 1n << BigInt(i);
    for (const p of pivots) {
      if ((vector >>> p.bit) & 1) {
        vector = (vector ^ p.vector) >>> 0;
        picks ^= p.picks;
      }
    }
    if (vector === 0) continue;
    const bit = 31 - Math.clz32(vector);
    for (const p of pivots) {
      if ((p.vector >>> bit) & 1) {
        p.vector = (p.vector ^ vector) >>> 0;
        p.picks ^= picks;
      }
    }
    pivots.push({ bit, vector, picks });
  }
  let rest = want;
  let chosen = 0n;
  for (const p of pivots) {
    if ((rest >>> p.bit) & 1) {
      rest = (rest ^ p.vector) >>> 0;
      chosen ^= p.picks;
    }
  }
  if (rest !== 0) throw new Error('no filler reaches that CRC');
  let filler = '';
  for (let i = 0; i < FILLER; i++) filler += (chosen >> BigInt(i)) & 1n ? 'C' : 'A';
  const body = before + filler + after;
  if (crc32Of(Buffer.from(body, 'utf8')) !== target) throw new Error('forged CRC does not match');
  return body;
}
