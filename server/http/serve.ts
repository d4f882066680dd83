import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
  const baseUrl = `http://${host}:${(server.address() as AddressInfo).port}`;
  app.addOrigin(baseUrl);
  if (host === '127.0.0.1') app.addOrigin(baseUrl.replace('127.0.0.1', 'localhost'));
  return { server, baseUrl };
}
