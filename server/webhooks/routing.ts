import { isIP } from 'node:net';

// spec: Events, Delivery and retries, 2; addendum §7. Where a webhook_url
// is delivered: to the account's own default receivers in process
// (loopback), through the account's relay (local, private or unparseable
// addresses), or over the network (direct).

export type Routing = { kind: 'loopback'; receiver: 'paid' | 'accredited' | 'fail' | 'captura' } | { kind: 'relay' } | { kind: 'direct'; url: URL };

export function routeWebhook(webhookUrl: string, publicUrl: string, accountId: string): Routing {
  let url: URL;
  try {
    url = new URL(webhookUrl);
  } catch {
    return { kind: 'relay' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { kind: 'relay' };
  const own = safeOrigin(publicUrl);
  const hook = /^\/console\/hooks\/([^/]+)\/(paid|accredited|fail|captura)\/?$/.exec(url.pathname);
  if (own !== null && url.origin === own && hook && hook[1] === accountId) {
    return { kind: 'loopback', receiver: hook[2] as 'paid' | 'accredited' | 'fail' | 'captura' };
  }
  return isLocalHost(url.hostname) ? { kind: 'relay' } : { kind: 'direct', url };
}

/**
 * A host name or address that must not be reached from the server: the
 * spec's list (localhost, 127.0.0.1, 0.0.0.0, ::1, 10/8, 192.168/16,
 * 172.16/12) in every spelling the URL parser normalises (0x7f.1, 2130706433,
 * ::ffff:7f00:1, …), plus the whole loopback, link-local and unique-local ranges.
 */
export function isLocalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const family = isIP(host);
  if (family === 4) return isPrivateIPv4(host);
  if (family === 6) return isPrivateIPv6(host);
  return false;
}

export function isPrivateAddress(address: string): boolean {
  return isLocalHost(address);
}

function isPrivateIPv4(address: string): boolean {
  const [a, b] = address.split('.').map(Number) as [number, number];
  return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
}

function isPrivateIPv6(address: string): boolean {
  const words = expandIPv6(address);
  if (!words) return true; // unreadable: never reach it directly
  const embeddedIPv4 = () => `${words[6]! >> 8}.${words[6]! & 255}.${words[7]! >> 8}.${words[7]! & 255}`;
  const zeroUpTo = (n: number) => words.slice(0, n).every((w) => w === 0);
  if (zeroUpTo(5) && words[5] === 0xffff) return isPrivateIPv4(embeddedIPv4()); // ::ffff:a.b.c.d (IPv4-mapped)
  if (words[0] === 0x64 && words[1] === 0xff9b && words.slice(2, 6).every((w) => w === 0)) return isPrivateIPv4(embeddedIPv4()); // 64:ff9b::/96 (NAT64)
  if (zeroUpTo(7) && (words[7] === 0 || words[7] === 1)) return true; // :: and ::1
  if (zeroUpTo(6)) return isPrivateIPv4(embeddedIPv4()); // ::a.b.c.d (IPv4-compatible)
  return (words[0]! & 0xfe00) === 0xfc00 || (words[0]! & 0xffc0) === 0xfe80; // fc00::/7, fe80::/10
}

function expandIPv6(address: string): number[] | null {
  let text = address.split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -dotted[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part ? part.split(':').map((word) => parseInt(word, 16)) : []);
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? left.length !== 8 : missing < 0) return null;
  const words = [...left, ...Array(Math.max(0, missing)).fill(0), ...right];
  return words.length === 8 && words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff) ? words : null;
}

function safeOrigin(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}
