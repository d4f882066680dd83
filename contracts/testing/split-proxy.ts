import { startMutatingProxy } from './mutating-proxy.js';

/**
 * One base URL in front of two deployments of the interface sharing one
 * database: what the POS sends (/api/v1/pos-terminals/…) goes to `terminals`,
 * everything else to `merchants`. A scenario played through it has the
 * merchant and the terminal on different instances (the race split across
 * instances) without knowing.
 */
export function startSplitProxy(merchants: string, terminals: string) {
  return startMutatingProxy(merchants, {
    name: 'terminal requests to another instance',
    caughtBy: '(none: it breaks nothing)',
    request(request) {
      if (request.url.pathname.startsWith('/api/v1/pos-terminals/'))
        request.url = new URL(`${request.url.pathname}${request.url.search}`, terminals);
    },
  });
}
