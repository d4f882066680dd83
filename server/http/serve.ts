import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { SimulatorApp } from '../app.js';

/**
 * Serves `app` on `host:port` (0: a free port) the one way every entry
 * point does: the relay's WebSocket upgrade attached and ready before the
 * first request, and the address it listens on known as one of its own
 * origins (webhooks to its default receivers then go by loopback).
 * `onError`: a listen that fails (the port taken).
 */
export async function serve(
  app: SimulatorApp,
  { host, port, onError }: { host: string; port: number; onError?: (error: NodeJS.ErrnoException) => void },
): Promise<{ server: Server; baseUrl: string }> {
  const server = createServer(app.callback());
  app.jobs.relay.attach(server);
  await app.jobs.relay.ready();
  if (onError) server.on('error', onError);
  server.listen(port, host);
  await once(server, 'listening');
  const { port: bound } = server.address() as AddressInfo;
  const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
  for (const origin of originsOf(host, bound)) app.addOrigin(origin);
  return { server, baseUrl };
}

/**
 * The origins a server listening on `host` is reached at, the one a link
 * should name first: itself (and localhost for 127.0.0.1); for a wildcard
 * (0.0.0.0, ::, as in a container) the loopback first, then every address
 * of this host's interfaces.
 */
export function originsOf(host: string, port: number, interfaces = networkInterfaces()): string[] {
  const origin = (address: string) => `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  if (host === '127.0.0.1') return [origin(host), `http://localhost:${port}`];
  if (host !== '0.0.0.0' && host !== '::') return [origin(host)];
  const addresses = Object.values(interfaces)
    .flatMap((list) => list ?? [])
    .filter((entry) => host === '::' || entry.family === 'IPv4')
    .map((entry) => entry.address.replace(/%.*$/, ''));
  return [...new Set([origin('127.0.0.1'), `http://localhost:${port}`, ...addresses.map(origin)])];
}
