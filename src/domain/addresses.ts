import { isIP } from 'node:net';

/**
 * Which webhook targets a live app may reach: public unicast addresses only. An IPv6 address
 * that carries an IPv4 address (mapped, compatible, translated, NAT64, 6to4, Teredo) reaches
 * that IPv4 host, so it is judged by the IPv4 address it carries. The rules are listed in
 * docs/operations.md ("Webhook targets of live apps").
 */

type Bytes = readonly number[];

interface Range {
  prefix: Bytes;
  bits: number;
}

function v4Range(cidr: string): Range {
  const [ip = '', bits = ''] = cidr.split('/');
  return { prefix: ipv4Bytes(ip) ?? [], bits: Number(bits) };
}

function v6Range(cidr: string): Range {
  const [ip = '', bits = ''] = cidr.split('/');
  return { prefix: ipv6Bytes(ip) ?? [], bits: Number(bits) };
}

// Not globally reachable (IANA special-purpose registries): never a live webhook target.
const IPV4_SPECIAL = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4', // also holds 255.255.255.255
].map(v4Range);

const IPV6_SPECIAL = [
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
  '2001:db8::/32',
  '100::/64',
].map(v6Range);

function inRange(bytes: Bytes, r: Range): boolean {
  if (bytes.length !== r.prefix.length) return false;
  for (let bit = 0; bit < r.bits; bit += 8) {
    const left = Math.min(8, r.bits - bit);
    const mask = (0xff << (8 - left)) & 0xff;
    const i = bit / 8;
    if (((bytes[i] ?? 0) & mask) !== ((r.prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

function ipv4Bytes(ip: string): number[] | null {
  if (isIP(ip) !== 4) return null;
  return ip.split('.').map(Number);
}

/** 16 bytes of a valid IPv6 text form (compressed or not, dotted IPv4 tail, zone id). */
function ipv6Bytes(ip: string): number[] | null {
  if (isIP(ip) !== 6) return null;
  let text = ip.replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a = 0, b = 0, c = 0, d = 0] = ipv4Bytes(dotted[1] ?? '') ?? [];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const groups = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}

const startsWith = (bytes: Bytes, prefix: Bytes) => prefix.every((b, i) => bytes[i] === b);
const pick = (bytes: Bytes, at: number[]) => at.map((i) => bytes[i] ?? 0);

/**
 * Every IPv4 address an IPv6 address hands traffic to, or none when it carries no IPv4.
 * RFC 4291 (mapped, compatible), RFC 6145/2765 (translated), RFC 6052 and 8215 (NAT64; the
 * local-use /48 may be any of the prefix lengths /48 to /96, so each position counts),
 * RFC 3056 (6to4), RFC 4380 (Teredo: the client address is stored inverted).
 */
function embeddedIPv4(b: Bytes): number[][] {
  const zeros = (n: number) => Array<number>(n).fill(0);
  if (startsWith(b, [...zeros(10), 0xff, 0xff])) return [pick(b, [12, 13, 14, 15])];
  if (startsWith(b, [...zeros(8), 0xff, 0xff, 0, 0])) return [pick(b, [12, 13, 14, 15])];
  if (startsWith(b, zeros(12))) return [pick(b, [12, 13, 14, 15])];
  if (startsWith(b, [0, 0x64, 0xff, 0x9b, ...zeros(8)])) return [pick(b, [12, 13, 14, 15])];
  if (startsWith(b, [0, 0x64, 0xff, 0x9b, 0, 1])) {
    return [
      pick(b, [6, 7, 9, 10]),
      pick(b, [7, 9, 10, 11]),
      pick(b, [9, 10, 11, 12]),
      pick(b, [12, 13, 14, 15]),
    ];
  }
  if (startsWith(b, [0x20, 0x02])) return [pick(b, [2, 3, 4, 5])];
  if (startsWith(b, [0x20, 0x01, 0, 0])) return [pick(b, [12, 13, 14, 15]).map((x) => x ^ 0xff)];
  return [];
}

const publicV4 = (bytes: Bytes) => !IPV4_SPECIAL.some((r) => inRange(bytes, r));

/** True for an IP literal (either family) that a live app may deliver to; false otherwise. */
export function isPublicAddress(ip: string): boolean {
  const v4 = ipv4Bytes(ip);
  if (v4) return publicV4(v4);
  const v6 = ipv6Bytes(ip);
  if (!v6) return false;
  const carried = embeddedIPv4(v6);
  if (carried.length > 0) return carried.every(publicV4);
  return !IPV6_SPECIAL.some((r) => inRange(v6, r));
}

/** A host as name rules and IP parsers take it: no brackets, no trailing dots, lower case. */
export function normalizeHost(host: string): string {
  return host
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '')
    .toLowerCase();
}

/**
 * What a host says about itself before any resolution: an IP literal is judged; `localhost`,
 * `*.localhost` and mDNS `*.local` names are local by definition; any other name must be
 * resolved and every one of its addresses judged.
 */
export function judgeHost(host: string): 'public' | 'private' | 'name' {
  const h = normalizeHost(host);
  if (isIP(h) !== 0) return isPublicAddress(h) ? 'public' : 'private';
  if (h === '' || h === 'localhost' || h.endsWith('.localhost') || h.endsWith('.local')) {
    return 'private';
  }
  return 'name';
}

/** Every address a name resolves to (all of them, both families), like dns.lookup with all. */
export type ResolveHost = (host: string) => Promise<readonly { address: string; family: number }[]>;
