import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

// Every address the server must never connect to on a webhook's behalf
// (INTERFACE.md §7: local and private hosts go through the account's relay),
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
  {
    cidr: '100.64.0.0/10',
    name: 'shared address space (carrier-grade NAT, cloud metadata)',
    source: 'RFC 6598',
    sample: '100.100.100.200',
  },
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
  {
    cidr: '::ffff:0:0:0/96',
    name: 'IPv4-translated',
    source: 'RFC 2765',
    sample: '::ffff:0:127.0.0.1',
    embedsIPv4At: 96,
  },
  { cidr: '::/96', name: 'IPv4-compatible (deprecated)', source: 'RFC 4291', sample: '::10.1.2.3' },
  {
    cidr: '64:ff9b::/96',
    name: 'IPv4/IPv6 translation (NAT64)',
    source: 'RFC 6052',
    sample: '64:ff9b::7f00:1',
    embedsIPv4At: 96,
  },
  { cidr: '64:ff9b:1::/48', name: 'local-use IPv4/IPv6 translation', source: 'RFC 8215', sample: '64:ff9b:1::8.8.8.8' },
  { cidr: '100::/64', name: 'discard-only', source: 'RFC 6666', sample: '100::1' },
  { cidr: '100:0:0:1::/64', name: 'dummy IPv6 prefix', source: 'RFC 9780', sample: '100:0:0:1::1' },
  {
    cidr: '2001::/23',
    name: 'IETF protocol assignments (Teredo, benchmarking, ORCHID, AMT, …)',
    source: 'RFC 2928',
    sample: '2001:0:4136:e378::1',
  },
  { cidr: '2001:db8::/32', name: 'documentation', source: 'RFC 3849', sample: '2001:db8::1' },
  { cidr: '2002::/16', name: '6to4', source: 'RFC 3056', sample: '2002:7f00:1::1', embedsIPv4At: 16 },
  {
    cidr: '2620:4f:8000::/48',
    name: 'direct delegation AS112 service',
    source: 'RFC 7534',
    sample: '2620:4f:8000::42',
  },
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

// The table's own spelling is checked by its test (each sample lies in its range).
const compile = (ranges: readonly SpecialRange[], width: 32 | 128): Compiled[] =>
  ranges.map((range) => {
    const [address, bits] = range.cidr.split('/') as [string, string];
    return { range, prefix: valueOf(address, width), bits: Number(bits) };
  });

const IPV4 = compile(SPECIAL_IPV4, 32);
const IPV6 = compile(SPECIAL_IPV6, 128);

const within = ({ prefix, bits }: Compiled, value: bigint, width: number) =>
  value >> BigInt(width - bits) === prefix >> BigInt(width - bits);

/**
 * The special-purpose range an address lies in, or null for an ordinary
 * public address. Unreadable text counts as special: never reach it directly.
 */
export function specialRangeOf(address: string): SpecialRange | null {
  const text = bareAddress(address);
  const family = isIP(text);
  if (family === 4) return match(IPV4, ipv4Value(text));
  if (family !== 6) return UNREADABLE;
  const value = ipv6Value(text);
  const found = IPV6.find((compiled) => within(compiled, value, 128));
  if (!found) return null;
  return found.range.embedsIPv4At === undefined ? found.range : match(IPV4, carried(value, found.range.embedsIPv4At));
}

/** The IPv4 address an IPv6 address carries (mapped, translated, NAT64, 6to4), as text; null for any other. */
export function carriedIPv4(address: string): string | null {
  const text = bareAddress(address);
  if (isIP(text) !== 6) return null;
  const value = ipv6Value(text);
  const found = IPV6.find((compiled) => compiled.range.embedsIPv4At !== undefined && within(compiled, value, 128));
  if (!found) return null;
  const v4 = carried(value, found.range.embedsIPv4At!);
  return [24n, 16n, 8n, 0n].map((shift) => String((v4 >> shift) & 255n)).join('.');
}

function carried(value: bigint, at: number): bigint {
  return (value >> BigInt(128 - at - 32)) & 0xffffffffn;
}

const UNREADABLE: SpecialRange = { cidr: '-', name: 'unreadable address', source: '-', sample: '-' };

function match(ranges: Compiled[], value: bigint): SpecialRange | null {
  return ranges.find((compiled) => within(compiled, value, 32))?.range ?? null;
}

/** Brackets (a URL's IPv6 host) and a zone id (fe80::1%eth0) are not part of the address. */
export function bareAddress(address: string): string {
  const unbracketed = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  return unbracketed.split('%')[0]!;
}

// The parsers below read only text isIP has accepted, so they need not
// refuse anything.

function valueOf(text: string, width: 32 | 128): bigint {
  return width === 32 ? ipv4Value(text) : ipv6Value(text);
}

function ipv4Value(text: string): bigint {
  return text.split('.').reduce((value, part) => (value << 8n) | BigInt(part), 0n);
}

function ipv6Value(text: string): bigint {
  // A dotted IPv4 tail (::ffff:1.2.3.4) stands for the last two words.
  const tail = text.slice(text.lastIndexOf(':') + 1);
  const hex = tail.includes('.')
    ? `${text.slice(0, text.length - tail.length)}${(ipv4Value(tail) >> 16n).toString(16)}:${(ipv4Value(tail) & 0xffffn).toString(16)}`
    : text;
  const [head, rest = ''] = hex.split('::');
  const words = (part: string) => (part === '' ? [] : part.split(':'));
  const left = words(head!);
  const right = words(rest);
  const all = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return all.reduce((value, word) => (value << 16n) | BigInt(parseInt(word, 16)), 0n);
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
      for (const list of Object.values(this.read()))
        for (const entry of list ?? []) set.add(sameAddressKey(entry.address));
      this.cached = { at: now, set };
    }
    return this.cached.set.has(sameAddressKey(address));
  }
}

/**
 * One key for every spelling of an address: an IPv6 address by its value
 * (brackets, zone id, case, :: or the full eight groups), anything else as
 * written (isIP accepts IPv4 only in its one dotted form).
 */
function sameAddressKey(address: string): string {
  const text = bareAddress(address);
  return isIP(text) === 6 ? `6:${ipv6Value(text)}` : text;
}

/** The host's own addresses, as the server reads them. */
export const hostAddresses = new OwnAddresses();
