// The terminal side of the POS interface: signing (INTERFACE.md §2) and a small
// typed client that sends signed requests. The bridge and the scripts use it.
import { computePosSignature } from '../pos-signature.js';
import type { Settlement } from '../pos-types.js';
import type { JsonAnswer } from '../json-answer.js';
import { exchange, NoHttpAnswer } from './http-exchange.js';

export { computePosSignature };

export interface SignInput {
  /** The terminal's secret, 64 hex characters as shown at provisioning. */
  secret: string;
  /** Not part of the signed string; taken so a call reads like the request it signs. */
  method: string;
  /** The request target exactly as it will be sent: path plus `?query`. */
  url: string;
  /** The exact body bytes; omit for a bodyless request (the empty string is signed). */
  body?: string | Buffer;
  /** The signing time; defaults to now. */
  now?: Date | number;
}

export type PosSignatureHeaders = {
  'x-pos-timestamp': string;
  'x-pos-signature': string;
};

export function signPosRequest({ secret, url, body = '', now = Date.now() }: SignInput): PosSignatureHeaders {
  const timestamp = new Date(now).toISOString();
  return { 'x-pos-timestamp': timestamp, 'x-pos-signature': computePosSignature(secret, timestamp, url, body) };
}

export interface PosClientOptions {
  baseUrl: string;
  serialNumber: string;
  secret: string;
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
  /** Aborts a request that takes longer (default 10 s). */
  timeoutMs?: number;
  /** The fetch to send with (tests pass one that checks answers against the OpenAPI document). */
  fetch?: typeof fetch;
}

export interface PosResponse<T> {
  status: number;
  body: T;
}

export type SettlementInput = Settlement;

type OrderStatus = 'PENDING' | 'PAID' | 'DISCARDED' | 'VOID_PENDING' | 'VOIDED';

/** What the server answers: an envelope on success, `{ message, code }` on error. */
export type Answer = {
  title?: string;
  detail?: string;
  data?: JsonAnswer;
  message?: string;
  code?: string;
  currentStatus?: string;
  details?: Array<{ in: string; pointer: string; message: string }>;
};

/** Sends signed requests for one terminal. Answers every status; network failures reject. */
export class PosClient {
  constructor(private readonly options: PosClientOptions) {}

  listOrders(query: { status?: OrderStatus; size?: number; page?: number } = {}): Promise<PosResponse<Answer>> {
    const params = new URLSearchParams(
      Object.entries(query)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, String(v)]),
    );
    const search = params.size > 0 ? `?${params}` : '';
    return this.send('GET', `${this.base()}/transactions${search}`);
  }

  commitPayment(
    orderId: string,
    payment: { authorizationCode: string; paidAt: string; amount?: number },
  ): Promise<PosResponse<Answer>> {
    return this.send(
      'POST',
      `${this.base()}/transactions/${encodeURIComponent(orderId)}/commit`,
      JSON.stringify(payment),
    );
  }

  commitVoid(orderId: string): Promise<PosResponse<Answer>> {
    return this.send('POST', `${this.base()}/transactions/${encodeURIComponent(orderId)}/invalidation/commit`);
  }

  notifySettlement(settlement: SettlementInput): Promise<PosResponse<Answer>> {
    return this.send('POST', `${this.base()}/settlements`, JSON.stringify(settlement));
  }

  /** Signs and sends one request; `url` is the request target (path plus query). */
  async send(
    method: string,
    url: string,
    body?: string,
    contentType = 'application/json',
  ): Promise<PosResponse<Answer>> {
    const { secret, baseUrl, now = Date.now, timeoutMs = 10_000, fetch: send = fetch } = this.options;
    const headers: Record<string, string> = {
      ...signPosRequest({ secret, method, url, ...(body !== undefined ? { body } : {}), now: now() }),
    };
    if (body !== undefined) headers['content-type'] = contentType;
    const answer = await exchange({ method, url: new URL(url, baseUrl), headers, body, timeoutMs, fetch: send }).catch(
      (error: unknown) => {
        // A fetch's own failure, as before: the caller tells a line down from an answer.
        throw error instanceof NoHttpAnswer ? error.cause : error;
      },
    );
    // Not JSON (a proxy's page): its text as the message.
    const parsed = (answer.isJson ? answer.json : answer.text ? { message: answer.text } : {}) as Answer;
    return { status: answer.status, body: parsed };
  }

  private base(): string {
    return `/api/v1/pos-terminals/${encodeURIComponent(this.options.serialNumber)}`;
  }
}
