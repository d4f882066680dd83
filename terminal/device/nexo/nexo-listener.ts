import { timingSafeEqual, createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { seal, unseal, type SecurityKey } from '../../protocol/nexo/crypto.js';
import { frame, readEnvelope, type NexoMessage } from '../../protocol/nexo/messages.js';
import type { NexoTerminal } from './nexo-terminal.js';
import { failure } from './responses.js';
import { hasCode } from '../../errors.js';

// The emulated terminal on the LAN: HTTPS, POST /nexo (and /nexo/) with
// Adyen's payload encryption as a real terminal takes it, plaintext too
// unless --require-encryption (a test terminal's leniency), and the cloud
// shape on the same listener, POST /sync with an X-API-Key, so an
// integration built on TerminalCloudAPI can point its endpoint here. What
// a real terminal answers to what it cannot read is answered the same: a
// wrong key is Adyen's "crypto error (3)", and the terminal keeps serving.

export interface ListenerFaults {
  /** The Nth money request (payment, reversal, reconciliation) is carried out, and its answer never sent: the connection is cut. */
  dropAnswer?: number;
  /** The Nth request of any kind is refused: the connection is cut before the terminal reads it. */
  refuse?: number;
  /** Every answer held this long. */
  delayMs?: number;
}

export interface NexoListenerOptions {
  terminal: NexoTerminal;
  /** The key the terminal shares with its cash register; without it only plaintext is read. */
  key?: SecurityKey;
  requireEncryption?: boolean;
  /** The cloud shape's X-API-Key (/sync); without it /sync is not served. */
  apiKey?: string;
  tls: { key: string; cert: string };
  faults?: ListenerFaults;
  log?: (line: string) => void;
}

export interface NexoListener {
  server: Server;
  address: AddressInfo;
  close(): Promise<void>;
}

const BODY_LIMIT = 1 << 20;
const MONEY = new Set(['Payment', 'Reversal', 'Reconciliation']);

/** A real terminal's answer to a message it cannot decrypt (adyen-node-api-library #762). */
const CRYPTO_ERROR = JSON.stringify({ errors: ['Nexo Service: crypto error (3)'], ServiceID: '-NULL-' });
const CLEARTEXT_REFUSED = 'Direct API REQUIRES payload crypto on live, cleartext allowed for testing only';

export function listenNexo(host: string, port: number, options: NexoListenerOptions): Promise<NexoListener> {
  const log = options.log ?? (() => undefined);
  let requests = 0;
  let moneyRequests = 0;
  const server = createServer({ key: options.tls.key, cert: options.tls.cert }, (request, response) => {
    requests += 1;
    if (options.faults?.refuse === requests) {
      log(`fault: request ${requests} refused (connection cut before it was read)`);
      return void request.socket.destroy();
    }
    void serve(request, response).catch((error: Error) => {
      log(`request failed: ${error.message}`);
      if (!response.headersSent) send(response, 500, JSON.stringify({ errors: [error.message], ServiceID: '-NULL-' }));
    });
  });

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const route = routeOf(request, options);
    if ('status' in route) return send(response, route.status, route.body);
    const text = await readBody(request);
    if (text === undefined) return send(response, 413, JSON.stringify({ errors: ['the body is over 1 MiB'] }));
    const opened = openRequest(text, route.cloud, options, log);
    if (opened.kind === 'refused') return send(response, opened.status, opened.body);
    if (opened.kind === 'failure') return reply(response, opened.response, opened.secured);
    const plain = opened.message;
    const money = MONEY.has(plain.header.MessageCategory);
    if (money) moneyRequests += 1;
    const drop = money && options.faults?.dropAnswer === moneyRequests;
    const answer = await options.terminal.handle(plain);
    if (drop) {
      log(`fault: the answer to ${plain.header.MessageCategory} ${plain.header.ServiceID} dropped (connection cut)`);
      return void request.socket.destroy();
    }
    if (options.faults?.delayMs) await new Promise((resolve) => setTimeout(resolve, options.faults!.delayMs));
    if (answer === null) return send(response, 200, '');
    return reply(response, answer, opened.secured);
  }

  function reply(response: ServerResponse, message: NexoMessage, secured: boolean): void {
    const json = frame('SaleToPOIResponse', message);
    if (!secured || !options.key) return send(response, 200, json);
    send(response, 200, JSON.stringify({ SaleToPOIResponse: seal(message.header, json, options.key) }));
  }

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve({
        server,
        address: server.address() as AddressInfo,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** An answer decided before the terminal sees anything. */
interface Refusal {
  status: number;
  body: string;
}

/** Which door a request came in by (local /nexo, cloud /sync), or why it is refused there. */
function routeOf(request: IncomingMessage, options: NexoListenerOptions): { cloud: boolean } | Refusal {
  const path = (request.url ?? '').split('?')[0];
  const local = path === '/nexo' || path === '/nexo/';
  const cloud = path === '/sync';
  if (!local && !cloud)
    return { status: 404, body: JSON.stringify({ errors: [`no ${path} here: POST /nexo or /sync`] }) };
  if (request.method !== 'POST') return { status: 405, body: JSON.stringify({ errors: ['POST only'] }) };
  if (cloud && !apiKeyMatches(request.headers['x-api-key'], options.apiKey))
    return {
      status: 401,
      body: JSON.stringify({
        status: 401,
        errorCode: '000',
        message: 'HTTP Status Response - Unauthorized',
        errorType: 'security',
      }),
    };
  return { cloud };
}

/** What a request's body comes to: a message for the terminal, a refusal, or a failure response to send. */
type Opened =
  | { kind: 'message'; message: NexoMessage; secured: boolean }
  | ({ kind: 'refused' } & Refusal)
  | { kind: 'failure'; response: NexoMessage; secured: boolean };

const refused = (status: number, body: string): Opened => ({ kind: 'refused', status, body });
const unreadable = (reason: string): Opened =>
  refused(400, JSON.stringify({ errors: [`Nexo Service: ${reason}`], ServiceID: '-NULL-' }));

/** The body opened as a terminal opens it: read, decrypted when secured, refused as a terminal refuses. */
function openRequest(text: string, cloud: boolean, options: NexoListenerOptions, log: (line: string) => void): Opened {
  const incoming = readEnvelope(text, 'SaleToPOIRequest');
  if (incoming.kind === 'broken') {
    if (incoming.header)
      return { kind: 'failure', response: failure(incoming.header, 'MessageFormat', incoming.reason), secured: false };
    log(`unreadable request: ${incoming.reason}`);
    return unreadable(incoming.reason);
  }
  if (incoming.kind === 'plain') {
    if (!cloud && options.requireEncryption)
      return {
        kind: 'failure',
        response: failure(incoming.message.header, 'MessageFormat', CLEARTEXT_REFUSED),
        secured: false,
      };
    return { kind: 'message', message: incoming.message, secured: false };
  }
  if (cloud || !options.key) return refused(400, CRYPTO_ERROR);
  let inner;
  try {
    inner = readEnvelope(unseal(incoming.message, options.key), 'SaleToPOIRequest');
  } catch (error) {
    if (!hasCode(error, 'NEXO_UNKNOWN_KEY', 'NEXO_BROKEN_BLOB', 'NEXO_HMAC_MISMATCH')) throw error;
    log(`crypto error: ${error.message}`);
    return refused(400, CRYPTO_ERROR);
  }
  if (inner.kind === 'plain') return { kind: 'message', message: inner.message, secured: true };
  const header = inner.kind === 'broken' ? inner.header : undefined;
  if (!header) return unreadable('the decrypted message is not a SaleToPOIRequest');
  return {
    kind: 'failure',
    response: failure(header, 'MessageFormat', inner.kind === 'broken' ? inner.reason : 'unreadable'),
    secured: true,
  };
}

function send(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

/** The API key compared in constant time (digests of equal length, whatever was sent). */
function apiKeyMatches(sent: string | string[] | undefined, expected: string | undefined): boolean {
  if (!expected || typeof sent !== 'string') return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(sent), digest(expected));
}

function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_LIMIT) chunks.push(chunk);
    });
    request.on('end', () => resolve(size > BODY_LIMIT ? undefined : Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
