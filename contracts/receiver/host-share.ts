import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '../webhook-signature.js';
import type { GradingDelivery } from './deliveries.js';
import { directTransport, type ReceiverAnswer, type Transport } from './transport.js';

// The host's share of an answer's time. Where the grader judges how fast a
// receiver answers under load (deliveries at once), a busy machine (a
// shared CI runner, a laptop compiling) slows every answer, the receiver's
// fault or not, and a verdict on time alone would flip with the machine's
// load. So each timed delivery is sent, at the same moment, to a reference
// receiver of the grader's own on loopback, which does what a correct
// receiver does (reads the body, checks the signature, answers 200) and
// nothing more: what it took is the host's share, and only the rest is
// the receiver's. A receiver that serialises its deliveries, or sleeps,
// still takes its own time on top, and still fails.

export interface HostShare {
  /** Sends `delivery` to the reference receiver; its answer, whose time is the host's share. */
  measure(delivery: GradingDelivery): Promise<ReceiverAnswer>;
  close(): Promise<void>;
}

/** A reference receiver on an ephemeral loopback port, checking signatures with `secret`. */
export async function startHostShare(secret: string, timeoutMs: number): Promise<HostShare> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const verdict = verifyWebhook({ rawBody, headers: req.headers, secret });
      res.writeHead(verdict.ok ? 200 : 401).end(verdict.ok ? 'ok' : 'bad signature');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const transport: Transport = directTransport(
    `http://127.0.0.1:${(server.address() as AddressInfo).port}/reference`,
    timeoutMs,
  );
  return {
    measure: (delivery) => transport.send(delivery),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The receiver's own time: what it took, less what the reference took at the same moment (never below 0). */
export const ownMs = (answer: ReceiverAnswer, hostMs: number | undefined): number =>
  Math.max(0, answer.ms - (hostMs ?? 0));
