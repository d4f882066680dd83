import type { Delivery } from './deliveries.js';

/** What one delivery got: the receiver's status and answer, or why there was none, and how long it took. */
export interface Answer {
  status: number | null;
  error: string | null;
  /** The start of the answer's body, for the report. */
  body: string;
  ms: number;
}

export interface Transport {
  /** Where deliveries go, for the report and the curl lines. */
  readonly target: string;
  send(delivery: Delivery): Promise<Answer>;
}

const ANSWER_SHOWN_CHARS = 300;

/** POSTs straight to the receiver, each request cut off after `timeoutMs`. */
export function directTransport(url: string, timeoutMs: number): Transport {
  return {
    target: url,
    async send(delivery) {
      const started = performance.now();
      try {
        const response = await fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
        const text = await response.text().catch(() => '');
        return { status: response.status, error: null, body: text.slice(0, ANSWER_SHOWN_CHARS), ms: performance.now() - started };
      } catch (error) {
        const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : describe(error);
        return { status: null, error: reason, body: '', ms: performance.now() - started };
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
          body: JSON.stringify(delivery),
          signal: AbortSignal.timeout(timeoutMs),
        });
        const answer = (await response.json().catch(() => null)) as { status?: number | null; error?: string | null; message?: string } | null;
        if (!response.ok) return { status: null, error: `the simulator answered ${response.status}: ${answer?.message ?? ''}`, body: '', ms: performance.now() - started };
        return { status: answer?.status ?? null, error: answer?.error ?? null, body: '', ms: performance.now() - started };
      } catch (error) {
        return { status: null, error: describe(error), body: '', ms: performance.now() - started };
      }
    },
  };
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ? `${(error as Error).message} (${cause.code})` : (error as Error).message;
}
