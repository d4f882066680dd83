import type { GradingDelivery } from './deliveries.js';

/** What one delivery got: the receiver's status and answer, or why there was none, and how long it took. */
export interface ReceiverAnswer {
  status: number | null;
  error: string | null;
  /** Nothing took the request: the receiver is not there (refused, no such host) or went away. */
  unreachable?: boolean;
  /** The start of the answer's body, for the report. */
  body: string;
  ms: number;
}

export interface Transport {
  /** Where deliveries go, for the report and the curl lines. */
  readonly target: string;
  send(delivery: GradingDelivery): Promise<ReceiverAnswer>;
}

const ANSWER_SHOWN_CHARS = 300;

/** POSTs straight to the receiver, each request cut off after `timeoutMs`. */
export function directTransport(url: string, timeoutMs: number): Transport {
  return {
    target: url,
    async send(delivery) {
      const started = performance.now();
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: delivery.headers,
          body: delivery.body,
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs),
        });
        const text = await response.text().catch(() => '');
        return {
          status: response.status,
          error: null,
          body: text.slice(0, ANSWER_SHOWN_CHARS),
          ms: performance.now() - started,
        };
      } catch (error) {
        if ((error as Error).name === 'TimeoutError')
          return { status: null, error: `no answer within ${timeoutMs} ms`, body: '', ms: performance.now() - started };
        const code = causeCode(error);
        const unreachable = code !== undefined && UNREACHABLE.has(code);
        const reason = !unreachable
          ? describe(error)
          : DROPPED.has(code)
            ? `the connection was closed without an answer (${code})`
            : `unreachable: nothing answers at ${url} (${code})`;
        return {
          status: null,
          error: reason,
          ...(unreachable ? { unreachable } : {}),
          body: '',
          ms: performance.now() - started,
        };
      }
    },
  };
}

/**
 * Through the simulator's relay (POST /control/relay/deliveries): the
 * account's relay client POSTs each delivery to its local receiver, as in a
 * demo. The simulator's 5 s attempt limit applies, and the relay reports
 * the status only.
 */
export function relayTransport(baseUrl: string, token: string, receiverUrl: string, timeoutMs: number): Transport {
  const endpoint = new URL('/control/relay/deliveries', baseUrl);
  return {
    target: `${receiverUrl} (through the relay of ${baseUrl})`,
    async send(delivery) {
      const started = performance.now();
      try {
        const response = await fetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ headers: delivery.headers, body: delivery.body }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        const answer = (await response.json().catch(() => null)) as {
          status?: number | null;
          error?: string | null;
          message?: string;
        } | null;
        if (!response.ok)
          return {
            status: null,
            error: `the simulator answered ${response.status}: ${answer?.message ?? ''}`,
            body: '',
            ms: performance.now() - started,
          };
        // The relay client says so when the local receiver cannot be reached (older clients answer 502 alone).
        const unreachable = typeof answer?.error === 'string' && /unreachable/.test(answer.error);
        const error = unreachable
          ? `unreachable through the relay: ${answer!.error!.replace(/^through the relay: /, '')} (${receiverUrl})`
          : (answer?.error ?? null);
        return {
          status: answer?.status ?? null,
          error,
          ...(unreachable ? { unreachable } : {}),
          body: '',
          ms: performance.now() - started,
        };
      } catch (error) {
        return { status: null, error: describe(error), body: '', ms: performance.now() - started };
      }
    },
  };
}

/** Error codes that mean nothing took the connection. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ECONNRESET',
  'UND_ERR_SOCKET',
]);

/** Of those, the ones where something took the connection and then dropped it. */
const DROPPED = new Set(['ECONNRESET', 'UND_ERR_SOCKET']);

function causeCode(error: unknown): string | undefined {
  return (error as { cause?: { code?: string } }).cause?.code;
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ? `${(error as Error).message} (${cause.code})` : (error as Error).message;
}
