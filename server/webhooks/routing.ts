import { isIP } from 'node:net';
import { bareAddress, carriedIPv4, hostAddresses, specialRangeOf, type OwnAddresses } from './special-addresses.js';

// INTERFACE.md §7. Where a webhook_url
// is delivered: to the account's own default receivers in process
// (loopback), through the account's relay (local, private or unparseable
// addresses), or over the network (direct).

export type Routing =
  | { kind: 'loopback'; receiver: 'paid' | 'accredited' | 'fail' | 'captura' }
  | { kind: 'relay' }
  | { kind: 'direct'; url: URL };

export function routeWebhook(webhookUrl: string, publicUrl: string, accountId: string): Routing {
  let url: URL;
  try {
    url = new URL(webhookUrl);
  } catch {
    return { kind: 'relay' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { kind: 'relay' };
  const hook = /^\/console\/hooks\/([^/]+)\/(paid|accredited|fail|captura)\/?$/.exec(url.pathname);
  if (url.origin === safeOrigin(publicUrl) && hook && hook[1] === accountId) {
    return { kind: 'loopback', receiver: hook[2] as 'paid' | 'accredited' | 'fail' | 'captura' };
  }
  return isLocalHost(url.hostname) ? { kind: 'relay' } : { kind: 'direct', url };
}

/**
 * A host name or address that must not be reached from the server:
 * `localhost` names, and every address of the special-purpose table
 * (special-addresses.ts) or of this host, in every spelling the URL parser
 * normalises (0x7f.1, 2130706433, ::ffff:7f00:1, …).
 */
export function isLocalHost(hostname: string): boolean {
  const name = hostname.replace(/\.$/, '').toLowerCase();
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  const address = bareAddress(hostname);
  return isIP(address) !== 0 && isPrivateAddress(address);
}

/** An address (as resolved or written) that direct delivery must not connect to. */
export function isPrivateAddress(address: string, own: OwnAddresses = hostAddresses): boolean {
  if (specialRangeOf(address) !== null || own.has(address)) return true;
  const carried = carriedIPv4(address);
  return carried !== null && own.has(carried);
}

function safeOrigin(url: string): string | null {
  return URL.canParse(url) ? new URL(url).origin : null;
}
