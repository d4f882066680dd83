import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

// Every address the server must never connect to on a webhook's behalf
// (addendum §7: local and private hosts go through the account's relay),
// in one table: the IANA IPv4 and IPv6 Special-Purpose Address Registries,
// multicast, and the forms of IPv6 that carry an IPv4 address inside
// (checked by the IPv4 address they carry), plus the host's own addresses.

export interface SpecialRange {
  cidr: string;
  name: string;
  /** Where the range is defined. */
  source: string;
  /** An address of the range, for the table's test and for readers. */
  sample: string;
  /**
   * For IPv6 forms that carry an IPv4 address: where it sits. Such an
   * address is special only when the IPv4 address it carries is; the
   * connection would reach that IPv4 host.
   */
  embedsIPv4At?: number;
}

// The narrowest range comes first where ranges nest, so an address is named by its own.
export const SPECIAL_IPV4: readonly SpecialRange[] = [
  { cidr: '0.0.0.0/8', name: 'this network', source: 'RFC 791', sample: '0.1.2.3' },
  { cidr: '10.0.0.0/8', name: 'private use', source: 'RFC 1918', sample: '10.0.0.5' },
  { cidr: '100.64.0.0/10', name: 'shared address space (carrier-grade NAT, cloud metadata)', source: 'RFC 6598', sample: '100.100.100.200' },
  { cidr: '127.0.0.0/8', name: 'loopback', source: 'RFC 1122', sample: '127.0.0.1' },
  { cidr: '169.254.0.0/16', name: 'link local', source: 'RFC 3927', sample: '169.254.169.254' },
  { cidr: '172.16.0.0/12', name: 'private use', source: 'RFC 1918', sample: '172.31.255.255' },
  { cidr: '192.0.0.0/24', name: 'IETF protocol assignments', source: 'RFC 6890', sample: '192.0.0.170' },
  { cidr: '192.0.2.0/24', name: 'documentation (TEST-NET-1)', source: 'RFC 5737', sample: '192.0.2.1' },
  { cidr: '192.31.196.0/24', name: 'AS112-v4', source: 'RFC 7535', sample: '192.31.196.1' },
  { cidr: '192.52.193.0/24', name: 'AMT', source: 'RFC 7450', sample: '192.52.193.1' },
  { cidr: '192.88.99.0/24', name: 'deprecated 6to4 relay anycast', source: 'RFC 7526', sample: '192.88.99.1' },
  { cidr: '192.168.0.0/16', name: 'private use', source: 'RFC 1918', sample: '192.168.1.1' },
  { cidr: '192.175.48.0/24', name: 'direct delegation AS112 service', source: 'RFC 7534', sample: '192.175.48.6' },
  { cidr: '198.18.0.0/15', name: 'benchmarking', source: 'RFC 2544', sample: '198.19.255.1' },
  { cidr: '198.51.100.0/24', name: 'documentation (TEST-NET-2)', source: 'RFC 5737', sample: '198.51.100.7' },
  { cidr: '203.0.113.0/24', name: 'documentation (TEST-NET-3)', source: 'RFC 5737', sample: '203.0.113.9' },
  { cidr: '224.0.0.0/4', name: 'multicast', source: 'RFC 5771', sample: '239.255.255.250' },
  { cidr: '255.255.255.255/32', name: 'limited broadcast', source: 'RFC 919', sample: '255.255.255.255' },
  { cidr: '240.0.0.0/4', name: 'reserved', source: 'RFC 1112', sample: '240.0.0.1' },
];

export const SPECIAL_IPV6: readonly SpecialRange[] = [
  { cidr: '::/128', name: 'unspecified', source: 'RFC 4291', sample: '::' },
  { cidr: '::1/128', name: 'loopback', source: 'RFC 4291', sample: '::1' },
  { cidr: '::ffff:0:0/96', name: 'IPv4-mapped', source: 'RFC 4291', sample: '::ffff:127.0.0.1', embedsIPv4At: 96 },
  { cidr: '::ffff:0:0:0/96', name: 'IPv4-translated', source: 'RFC 2765', sample: '::ffff:0:127.0.0.1', embedsIPv4At: 96 },
  { cidr: '::/96', name: 'IPv4-compatible (deprecated)', source: 'RFC 4291', sample: '::10.1.2.3' },
  { cidr: '64:ff9b::/96', name: 'IPv4/IPv6 translation (NAT64)', source: 'RFC 6052', sample: '64:ff9b::7f00:1', embedsIPv4At: 96 },
  { cidr: '64:ff9b:1::/48', name: 'local-use IPv4/IPv6 translation', source: 'RFC 8215', sample: '64:ff9b:1::8.8.8.8' },
  { cidr: '100::/64', name: 'discard-only', source: 'RFC 6666', sample: '100::1' },
  { cidr: '100:0:0:1::/64', name: 'dummy IPv6 prefix', source: 'RFC 9780', sample: '100:0:0:1::1' },
  { cidr: '2001::/23', name: 'IETF protocol assignments (Teredo, benchmarking, ORCHID, AMT, …)', source: 'RFC 2928', sample: '2001:0:4136:e378::1' },
  { cidr: '2001:db8::/32', name: 'documentation', source: 'RFC 3849', sample: '2001:db8::1' },
  { cidr: '2002::/16', name: '6to4', source: 'RFC 3056', sample: '2002:7f00:1::1', embedsIPv4At: 16 },
  { cidr: '2620:4f:8000::/48', name: 'direct delegation AS112 service', source: 'RFC 7534', sample: '2620:4f:8000::42' },
  { cidr: '3fff::/20', name: 'documentation', source: 'RFC 9637', sample: '3fff:fff::1' },
  { cidr: '5f00::/16', name: 'segment routing SIDs', source: 'RFC 9602', sample: '5f00::1' },
  { cidr: 'fc00::/7', name: 'unique local', source: 'RFC 4193', sample: 'fd00::1' },
  { cidr: 'fe80::/10', name: 'link-local unicast', source: 'RFC 4291', sample: 'fe80::1' },
  { cidr: 'ff00::/8', name: 'multicast', source: 'RFC 4291', sample: 'ff02::1' },
];

interface Compiled {
  range: SpecialRange;
  prefix: bigint;
  bits: number;
}

const compile = (ranges: readonly SpecialRange[], parse: (text: string) => bigint | null): Compiled[] =>
  ranges.map((range) => {
    const [address, bits] = range.cidr.split('/') as [string, string];
    const prefix = parse(address);
    if (prefix === null) throw new Error(`bad range ${range.cidr}`);
    return { range, prefix, bits: Number(bits) };
  });

const IPV4 = compile(SPECIAL_IPV4, parseIPv4);
// Embedding forms first: they are checked by what they carry, before a wider range (::/96) could claim them.
const IPV6 = compile([...SPECIAL_IPV6].sort((a, b) => Number(b.embedsIPv4At !== undefined) - Number(a.embedsIPv4At !== undefined)), parseIPv6);

/**
 * The special-purpose range an address lies in, or null for an ordinary
 * public address. Unreadable text counts as special: never reach it directly.
 */
export function specialRangeOf(address: string): SpecialRange | null {
  const text = address.replace(/^\[|\]$/g, '').split('%')[0]!;
  const family = isIP(text);
  if (family === 4) return match(IPV4, parseIPv4(text)!, 32);
  if (family !== 6) return UNREADABLE;
  const value = parseIPv6(text);
  if (value === null) return UNREADABLE;
  for (const { range, prefix, bits } of IPV6) {
    if (value >> BigInt(128 - bits) !== prefix >> BigInt(128 - bits)) continue;
    return range.embedsIPv4At === undefined ? range : match(IPV4, carried(value, range.embedsIPv4At), 32);
  }
  return null;
}

/** The IPv4 address an IPv6 address carries (mapped, translated, NAT64, 6to4), as text; null for any other. */
export function carriedIPv4(address: string): string | null {
  const text = address.replace(/^\[|\]$/g, '').split('%')[0]!;
  const value = isIP(text) === 6 ? parseIPv6(text) : null;
  if (value === null) return null;
  for (const { range, prefix, bits } of IPV6) {
    if (range.embedsIPv4At === undefined || value >> BigInt(128 - bits) !== prefix >> BigInt(128 - bits)) continue;
    const v4 = carried(value, range.embedsIPv4At);
    return [24n, 16n, 8n, 0n].map((shift) => String((v4 >> shift) & 255n)).join('.');
  }
  return null;
}

function carried(value: bigint, at: number): bigint {
  return (value >> BigInt(128 - at - 32)) & 0xffffffffn;
}

const UNREADABLE: SpecialRange = { cidr: '-', name: 'unreadable address', source: '-', sample: '-' };

function match(ranges: Compiled[], value: bigint, width: number): SpecialRange | null {
  for (const { range, prefix, bits } of ranges) {
    if (value >> BigInt(width - bits) === prefix >> BigInt(width - bits)) return range;
  }
  return null;
}

function parseIPv4(text: string): bigint | null {
  const parts = text.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return null;
  return BigInt(((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!);
}

function parseIPv6(address: string): bigint | null {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = parseIPv4(dotted[1]!);
    if (v4 === null) return null;
    text = `${text.slice(0, -dotted[1]!.length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, tail, extra] = text.split('::') as [string, string | undefined, string | undefined];
  if (extra !== undefined) return null;
  const words = (part: string) => (part ? part.split(':').map((word) => (/^[0-9a-f]{1,4}$/i.test(word) ? parseInt(word, 16) : NaN)) : []);
  const left = words(head);
  const right = tail === undefined ? [] : words(tail);
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? left.length !== 8 : missing < 1) return null;
  const all = [...left, ...Array<number>(tail === undefined ? 0 : missing).fill(0), ...right];
  if (all.some(Number.isNaN)) return null;
  return all.reduce((value, word) => (value << 16n) | BigInt(word), 0n);
}

const OWN_ADDRESSES_TTL_MS = 10_000;

/** Where this host's interface addresses come from: os.networkInterfaces, or a test's list. */
export type InterfaceReader = () => Record<string, Array<{ address: string }> | undefined>;

/**
 * This host's own interface addresses (public ones included), read again
 * every 10 s so an address added or removed while the server runs is seen.
 */
export class OwnAddresses {
  private cached: { at: number; set: Set<string> } | null = null;

  constructor(
    private readonly read: InterfaceReader = networkInterfaces,
    private readonly ttlMs = OWN_ADDRESSES_TTL_MS,
  ) {}

  has(address: string, now = Date.now()): boolean {
    if (!this.cached || now - this.cached.at > this.ttlMs) {
      const set = new Set<string>();
      for (const list of Object.values(this.read())) for (const entry of list ?? []) set.add(normalise(entry.address));
      this.cached = { at: now, set };
    }
    return this.cached.set.has(normalise(address));
  }
}

/** Brackets, a zone id and case do not make another address. */
const normalise = (address: string) => address.replace(/^\[|\]$/g, '').split('%')[0]!.toLowerCase();

/** The host's own addresses, as the server reads them. */
export const hostAddresses = new OwnAddresses();
