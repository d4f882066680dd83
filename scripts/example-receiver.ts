// An example webhook receiver for integrators (INTERFACE.md §7): verifies signature and timestamp before anything else, answers 401 on
// a mismatch, deduplicates by idempotency-key, answers 200 at once and does
// its work afterwards, well within 2 s.
//
//   WEBHOOK_SECRET=whsec_… node --import tsx scripts/example-receiver.ts [--port 4000]
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '../contracts/webhook-signature.js';

export interface ReceiverOptions {
  secret: string;
  port?: number;
  /** The work done for each new event, after the answer. */
  onEvent?: (event: { event: string; event_id: string; data: unknown }, idempotencyKey: string) => void;
  now?: () => number;
}

export function startExampleReceiver(
  options: ReceiverOptions,
): Promise<{ server: Server; url: string; seen: Set<string>; rejected: number }> {
  const seen = new Set<string>();
  const state = { rejected: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      const verdict = verifyWebhook({
        rawBody,
        headers: req.headers,
        secret: options.secret,
        ...(options.now ? { now: options.now() } : {}),
      });
      if (!verdict.ok) {
        state.rejected += 1;
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: verdict.reason }));
        return;
      }
      const key = verdict.idempotencyKey ?? '';
      const duplicate = seen.has(key);
      seen.add(key);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, duplicate }));
      // Process in the background, after answering; a duplicate is not processed twice.
      if (!duplicate) setImmediate(() => options.onEvent?.(JSON.parse(rawBody.toString('utf8')), key));
    });
  });
  return new Promise((resolve) =>
    server.listen(options.port ?? 0, '127.0.0.1', () =>
      resolve({
        server,
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
        seen,
        get rejected() {
          return state.rejected;
        },
      }),
    ),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) {
    process.stderr.write("example-receiver: set WEBHOOK_SECRET to the account's key.webhook_secret\n");
    process.exit(2);
  }
  const portArg = process.argv.indexOf('--port');
  const port = portArg > 0 ? Number(process.argv[portArg + 1]) : 4000;
  const { url } = await startExampleReceiver({
    secret,
    port,
    onEvent: (event, key) => process.stdout.write(`${event.event} ${event.event_id} (idempotency-key ${key})\n`),
  });
  process.stdout.write(`example receiver listening on ${url}\n`);
}
