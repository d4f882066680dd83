import { randomBytes } from 'node:crypto';
import { WebSocket } from 'ws';
import { signPosRequest } from '../../clients/pos-client.js';
import type { SuiteHttp, SuiteResponse } from '../suite-client.js';
import { CheckStopped } from './check.js';
import type { TraceEntry } from '../../trace-entry.js';
import type { JsonAnswer } from '../../json-answer.js';

// What checks set up through the API: accounts, terminals, orders,
// agreements, sessions; and the waits on background work (deliveries,
// accreditation), bounded in real time and driven by the account's clock.

export const unique = () => `${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;

export interface SuiteAccount {
  token: string;
  consoleToken: string;
  accountId: string;
  merchantId: string;
  webhookSecret: string;
  hooks: Record<'paid' | 'accredited' | 'fail' | 'captura', string>;
  email: string;
  password: string;
  merchant: string;
}

/** Stops the check unless the answer has the status its setup needs. */
/** Every 2xx, for setup steps through operations whose success status is left open (open choice success-status). */
export const ANY_2XX: number[] = Array.from({ length: 100 }, (_, i) => 200 + i);

export function need(response: SuiteResponse, status: number | number[], what: string): JsonAnswer {
  const wanted = Array.isArray(status) ? status : [status];
  if (!wanted.includes(response.status)) {
    throw new CheckStopped(
      `setup: ${what} (${response.request.method} ${response.request.target}) answered ${response.status === 0 ? 'nothing' : response.status}${response.body?.code ? ` ${response.body.code}` : ''}, expected ${wanted.join(' or ')}`,
    );
  }
  return response.body;
}

/**
 * What the checks read of a registration's answer: one without these cannot
 * set any check up. Says which are lacking, once (run-suite.ts), rather than
 * a TypeError in every check that reads them.
 */
export function checkRegistration(body: JsonAnswer | undefined): void {
  const lacking = [
    ['key.token', body?.key?.token],
    ['key.webhook_secret', body?.key?.webhook_secret],
    ['console_token', body?.console_token],
    ['account_id', body?.account_id],
    ['merchant_id', body?.merchant_id],
    ['hooks', body?.hooks],
  ]
    .filter(([, value]) => value === undefined || value === null)
    .map(([name]) => name);
  if (lacking.length > 0)
    throw new CheckStopped(
      `setup: registering an account (POST /console/register) answered without ${lacking.join(', ')}; the checks that need an account cannot run`,
    );
}

export async function registerAccount(http: SuiteHttp): Promise<SuiteAccount> {
  const email = `check-${unique()}@example.com`;
  const password = 'contract suite password';
  const body = need(
    await http('POST', '/console/register', { json: { email, password } }),
    201,
    'registering an account',
  );
  checkRegistration(body);
  return {
    token: body.key.token,
    consoleToken: body.console_token,
    accountId: body.account_id,
    merchantId: body.merchant_id,
    webhookSecret: body.key.webhook_secret,
    hooks: body.hooks,
    email,
    password,
    merchant: `/api/v1/merchants/${encodeURIComponent(body.merchant_id)}`,
  };
}

export interface Terminal {
  serial: string;
  /** Headers signing a request as the terminal (INTERFACE.md §2); each signature is new (signing times move on by 1 ms at least). */
  sign(method: string, path: string, rawBody?: string): Record<string, string>;
  /** Sends a request signed as the terminal; `at` signs it at another time, `secret` with another secret. */
  send(
    method: string,
    path: string,
    body?: unknown,
    options?: { at?: number; secret?: string },
  ): Promise<SuiteResponse>;
}

let lastSigned = 0;
/** A signing time never used before in this process: two identical requests must not be a replay. */
const freshSigningTime = () => (lastSigned = Math.max(Date.now(), lastSigned + 1));

export function terminalOf(http: SuiteHttp, serial: string, secret: string): Terminal {
  const sign = (method: string, path: string, rawBody = '', options: { at?: number; secret?: string } = {}) =>
    ({
      ...signPosRequest({
        secret: options.secret ?? secret,
        method,
        url: path,
        body: rawBody,
        now: options.at ?? freshSigningTime(),
      }),
    }) as Record<string, string>;
  return {
    serial,
    sign: (method, path, rawBody) => sign(method, path, rawBody),
    send: (method, path, body, options = {}) => {
      const raw = body === undefined ? '' : JSON.stringify(body);
      const headers = {
        ...sign(method, path, raw, options),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      };
      return http(method, path, { headers, ...(body === undefined ? {} : { raw }) });
    },
  };
}

export async function provisionTerminal(http: SuiteHttp, account: SuiteAccount): Promise<Terminal> {
  const serial = `CK-${unique()}`;
  const body = need(
    await http('POST', `${account.merchant}/pos-terminals`, { json: { serialNumber: serial }, token: account.token }),
    201,
    'provisioning a terminal',
  );
  return terminalOf(http, serial, body.secret);
}

export async function createOrder(
  http: SuiteHttp,
  account: SuiteAccount,
  terminal: Terminal,
  amount = 1000,
): Promise<string> {
  const orderId = `ck-${unique()}`;
  need(
    await http('POST', `${account.merchant}/transactions`, {
      json: { orderId, terminal: terminal.serial, amount, currency: 'USD' },
      token: account.token,
    }),
    201,
    'creating an order',
  );
  return orderId;
}

export async function createAgreement(
  http: SuiteHttp,
  account: SuiteAccount,
  options: { split?: boolean; methods?: string[] } = {},
): Promise<string> {
  const body = need(
    await http('POST', '/api/v1/ext/agreements', {
      json: {
        name: `check ${unique()}`,
        currency_reference: 'USD',
        split: options.split ?? false,
        payment_methods: options.methods ?? ['card', 'transfer'],
      },
      token: account.token,
    }),
    201,
    'creating an agreement',
  );
  return body.agreement_id;
}

export async function createPartner(http: SuiteHttp, account: SuiteAccount): Promise<string> {
  return need(
    await http('POST', '/api/v1/ext/partners', {
      json: { name: `partner ${unique()}`, document_id: `DOC-${unique()}` },
      token: account.token,
    }),
    201,
    'creating a partner',
  ).partner_id;
}

export async function createSession(
  http: SuiteHttp,
  account: SuiteAccount,
  body: Record<string, unknown>,
): Promise<JsonAnswer> {
  return need(
    await http('POST', '/api/v1/ext/payment-sessions/buttons', { json: body, token: account.token }),
    201,
    'creating a session',
  );
}

export async function readSession(http: SuiteHttp, account: SuiteAccount, sessionId: string): Promise<SuiteResponse> {
  return http('GET', `/api/v1/ext/payment-sessions/${encodeURIComponent(sessionId)}`, { token: account.token });
}

export async function forceOutcome(
  http: SuiteHttp,
  account: SuiteAccount,
  sessionId: string,
  leg: 1 | 2,
  outcome: string,
): Promise<SuiteResponse> {
  return http('POST', `/control/sessions/${encodeURIComponent(sessionId)}/outcome`, {
    json: { leg, outcome },
    token: account.token,
  });
}

/** The account's clock now, in ms. */
export async function accountNow(http: SuiteHttp, account: SuiteAccount): Promise<number> {
  return Date.parse(
    need(await http('GET', '/control/clock', { token: account.token }), 200, 'reading the account clock').now,
  );
}

export async function advanceClock(http: SuiteHttp, account: SuiteAccount, ms: number): Promise<void> {
  need(
    await http('POST', '/control/clock/advance', { json: { ms }, token: account.token }),
    ANY_2XX,
    `advancing the account clock by ${ms} ms`,
  );
}

/** The account's trace entries of a type (oldest first), for one session when given. */
export type { TraceEntry };

export async function traceOf(
  http: SuiteHttp,
  account: SuiteAccount,
  type: string,
  sessionId?: string,
): Promise<TraceEntry[]> {
  const query = `type=${encodeURIComponent(type)}&limit=1000${sessionId ? `&session_id=${encodeURIComponent(sessionId)}` : ''}`;
  const body = need(
    await http('GET', `/console/trace?${query}`, { token: account.consoleToken }),
    200,
    `reading the trace (${type})`,
  );
  return [...(body.data as TraceEntry[])].reverse();
}

/** Asks `probe` until it answers a value (not undefined) or `ms` of real time pass; undefined then. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined>,
  ms: number,
  everyMs = 50,
): Promise<T | undefined> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() >= until) return undefined;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** The relay's WebSocket URL on a deployment. */
export function relayUrl(baseUrl: string): URL {
  const url = new URL('/relay', baseUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url;
}

/** A relay opened with a token; null when the upgrade is refused or fails. */
export function openRelay(baseUrl: string, token: string): Promise<WebSocket | null> {
  return new Promise((resolve) => {
    const socket = new WebSocket(relayUrl(baseUrl), { headers: { authorization: `Bearer ${token}` } });
    socket.once('open', () => resolve(socket));
    socket.once('unexpected-response', () => resolve(null));
    socket.once('error', () => resolve(null));
  });
}

/** The HTTP status a WebSocket upgrade of /relay gets with this token and query (101 when it opens). */
export function relayUpgradeStatus(baseUrl: string, token: string, query = ''): Promise<number> {
  const url = relayUrl(baseUrl);
  url.search = query;
  const socket = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
  return new Promise<number>((resolve) => {
    socket.once('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.once('open', () => {
      resolve(101);
      socket.close();
    });
    socket.once('error', () => resolve(0));
  });
}
