import { Agent, request as httpsRequest } from 'node:https';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import { BridgeError, LineError } from '../../errors.js';
import { seal, unseal, type SecurityKey } from '../../protocol/nexo/crypto.js';
import { frame, readEnvelope, type NexoMessage } from '../../protocol/nexo/messages.js';

// The cash register's side of the Terminal API, written here rather than
// taken from @adyen/api-library (which the tests use as the judge of the
// emulator): the bridge needs to tell a transport fault (the line: ask the
// terminal what became of the request) from an answer the terminal gave,
// and a timeout of its own per request; the library throws one kind of
// error for both and ships hundreds of models the bridge never reads.
//
// It trusts one root (--ca, the terminal's or the emulator's ca.pem) and,
// as Adyen's libraries do, takes a certificate whose subject is a
// terminal's name rather than the host's: terminals are reached by their
// LAN address, which their certificate cannot name. A certificate that
// names the host instead (another emulator, a proxy in front of a
// terminal) is taken by the usual host-name check.

/** The subject of an Adyen terminal's certificate (what Adyen's libraries accept). */
const TERMINAL_NAME = /^(([a-zA-Z0-9]+-[a-zA-Z0-9]+)|legacy-terminal-certificate)\.(live|test)\.terminal\.adyen\.com$/;

export interface NexoClientOptions {
  host: string;
  port: number;
  /** The root the terminal's certificate chains to, PEM. */
  ca: string;
  /** Without a key the messages go in plaintext (a test terminal takes them). */
  key?: SecurityKey;
}

const NEXO = { dialect: 'nexo' } as const;

/** A terminal's certificate (its subject a terminal's name), or one valid for the host; else why not. */
export function terminalIdentity(host: string, cert: PeerCertificate): Error | undefined {
  const name = cert.subject?.CN;
  if (typeof name === 'string' && TERMINAL_NAME.test(name)) return undefined;
  if (checkServerIdentity(host, cert) === undefined) return undefined;
  return new LineError(
    'TLS_REFUSED',
    `the certificate's subject ${String(name)} is neither a terminal's (<POIID>.test.terminal.adyen.com) nor ${host}`,
  );
}

export class NexoClient {
  private readonly agent: Agent;

  constructor(private readonly options: NexoClientOptions) {
    this.agent = new Agent({
      ca: options.ca,
      keepAlive: true,
      maxSockets: 4,
      checkServerIdentity: terminalIdentity,
    });
  }

  get describe(): string {
    return `https://${this.options.host}:${this.options.port}/nexo`;
  }

  /** Sends one request; the response, or null for an empty answer (an Abort's). */
  async send(message: NexoMessage, timeoutMs: number): Promise<NexoMessage | null> {
    const json = frame('SaleToPOIRequest', message);
    const { key } = this.options;
    const body = key ? JSON.stringify({ SaleToPOIRequest: seal(message.header, json, key) }) : json;
    const { status, text } = await this.post(body, timeoutMs);
    if (status < 200 || status >= 300)
      throw new BridgeError('DEVICE_REFUSED', `the terminal answered HTTP ${status}: ${text.slice(0, 200)}`, {
        ...NEXO,
        httpStatus: status,
      });
    if (text.trim() === '') return null;
    const outer = readEnvelope(text, 'SaleToPOIResponse');
    if (outer.kind === 'plain') return outer.message;
    if (outer.kind === 'broken')
      throw new BridgeError('DEVICE_REFUSED', `the terminal's answer is not a response: ${outer.reason}`, {
        ...NEXO,
        httpStatus: status,
      });
    if (!key)
      throw new BridgeError('DEVICE_REFUSED', 'the terminal answered encrypted, and the bridge has no key', {
        ...NEXO,
        httpStatus: status,
      });
    const inner = readEnvelope(unseal(outer.message, key), 'SaleToPOIResponse');
    if (inner.kind !== 'plain')
      throw new BridgeError('DEVICE_REFUSED', "the terminal's decrypted answer is not a response", {
        ...NEXO,
        httpStatus: status,
      });
    return inner.message;
  }

  close(): void {
    this.agent.destroy();
  }

  /** One body as it is (a transcript's plaintext request); the answer's status and body. */
  post(body: string, timeoutMs: number): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const request = httpsRequest(
        {
          host: this.options.host,
          port: this.options.port,
          path: '/nexo',
          method: 'POST',
          agent: this.agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            clearTimeout(timer);
            if (!response.complete)
              return reject(new LineError('DISCONNECTED', 'the connection was cut during the answer', NEXO));
            resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
          });
          response.on('error', (error) =>
            reject(new LineError('LINE_FAILED', error.message, { ...NEXO, cause: error })),
          );
        },
      );
      const timer = setTimeout(() => {
        request.destroy(new LineError('NO_ANSWER', `no answer within ${timeoutMs} ms`, NEXO));
      }, timeoutMs);
      request.on('error', (error) => {
        clearTimeout(timer);
        reject(
          error instanceof LineError ? error : new LineError('LINE_FAILED', error.message, { ...NEXO, cause: error }),
        );
      });
      request.end(body);
    });
  }
}
