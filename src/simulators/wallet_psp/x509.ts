import { randomBytes, sign, type KeyObject } from 'node:crypto';

/*
 * A minimal DER writer for one self-signed X.509 v3 certificate (RSA, sha256WithRSAEncryption),
 * so the simulator serves a certificate like the real provider does without a third-party
 * library. Only what a certificate needs: SEQUENCE, SET, INTEGER, OID, NULL, UTF8String,
 * UTCTime/GeneralizedTime, BIT STRING and one explicit tag.
 */

function tlv(tag: number, content: Buffer): Buffer {
  const len = content.length;
  let header: Buffer;
  if (len < 0x80) header = Buffer.from([tag, len]);
  else {
    const bytes: number[] = [];
    for (let n = len; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
    header = Buffer.from([tag, 0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([header, content]);
}

const seq = (...parts: Buffer[]) => tlv(0x30, Buffer.concat(parts));
const set = (...parts: Buffer[]) => tlv(0x31, Buffer.concat(parts));
const explicit = (n: number, content: Buffer) => tlv(0xa0 + n, content);
const nul = () => Buffer.from([0x05, 0x00]);
const utf8 = (s: string) => tlv(0x0c, Buffer.from(s, 'utf8'));
const bitString = (b: Buffer) => tlv(0x03, Buffer.concat([Buffer.from([0x00]), b]));

function integer(b: Buffer): Buffer {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  const trimmed = b.subarray(i);
  // DER integers are signed: a leading 1 bit needs a zero byte in front.
  const body = (trimmed[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed;
  return tlv(0x02, body);
}

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const [a = 0, b = 0, ...rest] = parts;
  const out = [40 * a + b];
  for (const p of rest) {
    const chunk: number[] = [p & 0x7f];
    for (let n = Math.floor(p / 128); n > 0; n = Math.floor(n / 128))
      chunk.unshift(0x80 | (n & 0x7f));
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

function time(d: Date): Buffer {
  const iso = d.toISOString();
  const digits = iso.slice(0, 19).replace(/[-:T]/g, '');
  const year = d.getUTCFullYear();
  // RFC 5280: UTCTime through 2049, GeneralizedTime from 2050.
  return year < 2050
    ? tlv(0x17, Buffer.from(digits.slice(2) + 'Z', 'ascii'))
    : tlv(0x18, Buffer.from(digits + 'Z', 'ascii'));
}

const SHA256_WITH_RSA = '1.2.840.113549.1.1.11';
const COMMON_NAME = '2.5.4.3';
const ORGANIZATION = '2.5.4.10';

function name(commonName: string, organization: string): Buffer {
  return seq(
    set(seq(oid(ORGANIZATION), utf8(organization))),
    set(seq(oid(COMMON_NAME), utf8(commonName))),
  );
}

function pem(label: string, der: Buffer): string {
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN ${label}-----\n${b64.replace(/\n$/, '')}\n-----END ${label}-----\n`;
}

/** A self-signed certificate for the key pair, as PEM. */
export function selfSignedCertificate(opts: {
  publicKey: KeyObject;
  privateKey: KeyObject;
  commonName: string;
  organization: string;
  notBefore: Date;
  notAfter: Date;
}): string {
  const algorithm = seq(oid(SHA256_WITH_RSA), nul());
  const subject = name(opts.commonName, opts.organization);
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  const tbs = seq(
    explicit(0, integer(Buffer.from([2]))),
    integer(serial),
    algorithm,
    subject,
    seq(time(opts.notBefore), time(opts.notAfter)),
    subject,
    opts.publicKey.export({ type: 'spki', format: 'der' }),
  );
  const signature = sign('sha256', tbs, opts.privateKey);
  return pem('CERTIFICATE', seq(tbs, algorithm, bitString(signature)));
}
