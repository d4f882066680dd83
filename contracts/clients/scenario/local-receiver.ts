import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

// A webhook receiver of the runner's own (a `receiver` step): it keeps
// every delivery as it came, the raw body byte for byte, and answers the
// status the scenario chose. The relay's local end forwards to it.

export interface CaughtDelivery {
  event: unknown;
  body: unknown;
  raw_body: string;
  headers: Record<string, string>;
  signature: string | null;
  idempotency_key: string | null;
  /** What this receiver answered. */
  status: number;
}

export interface LocalReceiver {
  url: string;
  deliveries: CaughtDelivery[];
  close(): Promise<void>;
}

const flatHeaders = (request: IncomingMessage): Record<string, string> =>
  Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.join(', ') : (value ?? ''),
    ]),
  );

export async function startLocalReceiver(status = 200): Promise<LocalReceiver> {
  const deliveries: CaughtDelivery[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw;
      try {
        body = JSON.parse(raw);
      } catch {
        // Kept as text: the scenario's expectations say what it should have been.
      }
      const headers = flatHeaders(request);
      deliveries.push({
        event: (body as { event?: unknown } | null)?.event ?? null,
        body,
        raw_body: raw,
        headers,
        signature: headers['svc-signature'] ?? null,
        idempotency_key: headers['idempotency-key'] ?? null,
        status,
      });
      response.writeHead(status, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    deliveries,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
