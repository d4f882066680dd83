import { exchange, NoHttpAnswer, noAnswerReason, type HttpAnswer } from '../clients/http-exchange.js';
import { shellQuote } from '../common/shell-quote.js';
import type { Recorder } from './recorder.js';
import type { JsonAnswer } from '../json-answer.js';

/** What was sent, to name it in a report and send it again. */
export interface SentRequest {
  method: string;
  /** Path plus `?query`, as sent. */
  target: string;
  /** The same request as a curl line; bearer tokens stand as $SVC_TOKEN, never in clear. */
  curl: string;
}

export interface SuiteResponse {
  status: number;
  headers: Headers;
  text: string;
  body: JsonAnswer;
  request: SentRequest;
}

export interface SuiteRequest {
  json?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  token?: string;
}

/** How the suite's requests behave when the target does not answer. */
export interface RequestLimits {
  /** A request not answered (headers and body) within this long fails, in ms. */
  timeoutMs: number;
  /** Where a request that got no answer is reported, naming it; the run goes on. */
  noAnswer: (request: SentRequest, reason: string) => void;
}

/** What a scenario gets for a request that got no answer: status 0, never recorded as a violation. */
const noAnswerFor = (request: SentRequest): SuiteResponse => ({
  status: 0,
  headers: new Headers(),
  text: '',
  body: undefined,
  request,
});

/**
 * A curl line for a request. A bearer token stands as $SVC_TOKEN (a report
 * must not carry secrets). A request signed as a terminal is signed again
 * by the line itself, with $SVC_TERMINAL_SECRET and the time it is run: the
 * recorded signature would only be refused as a replay (INTERFACE.md §2).
 */
export function curlLine(method: string, url: URL, headers: Record<string, string>, body: string | undefined): string {
  const signed = 'x-pos-signature' in headers;
  const parts = ['curl', '-sS', '-i', '-X', method];
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'authorization') parts.push('-H', `"${name}: ${value.replace(/^(Bearer) .*/i, '$1 $SVC_TOKEN')}"`);
    else if (signed && lower === 'x-pos-timestamp') parts.push('-H', '"x-pos-timestamp: $TS"');
    else if (signed && lower === 'x-pos-signature') parts.push('-H', '"x-pos-signature: $SIG"');
    else parts.push('-H', shellQuote(`${name}: ${value}`));
  }
  const shownBody = body === undefined ? undefined : body.length > 2000 ? `@body-of-${body.length}-bytes` : body;
  if (shownBody !== undefined) parts.push('--data-binary', signed ? '"$BODY"' : shellQuote(shownBody));
  parts.push(shellQuote(url.href));
  if (!signed) return parts.join(' ');
  const target = `${url.pathname}${url.search}`;
  return [
    `TS=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ); BODY=${shellQuote(shownBody ?? '')};`,
    `SIG=$(printf '%s' "$TS.${target.replace(/(["$`\\])/g, '\\$1')}.$BODY" | openssl dgst -sha256 -hmac "$SVC_TERMINAL_SECRET" | sed 's/^.* //');`,
    parts.join(' '),
  ].join(' ');
}

/** Why a request got no answer, in the suite's words (also the probe's before a run: no-answer.ts). */
export function noAnswer(error: unknown, timeoutMs: number): string {
  const silent = error instanceof NoHttpAnswer ? error : new NoHttpAnswer(noAnswerReason(error), false, error);
  return silent.timedOut
    ? `no answer within ${timeoutMs / 1000} s (--request-timeout)`
    : `network error: ${silent.reason}`;
}

/** HTTP for the suite: every answer goes through the recorder; nothing throws on a bad answer or on none. */
export function suiteClient(
  baseUrl: string,
  recorder: Recorder,
  limits: RequestLimits = { timeoutMs: 10_000, noAnswer: () => undefined },
) {
  return async function request(method: string, path: string, options: SuiteRequest = {}): Promise<SuiteResponse> {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | undefined = options.raw;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    }
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const url = new URL(path, baseUrl);
    const sent: SentRequest = {
      method,
      target: `${url.pathname}${url.search}`,
      curl: curlLine(method, url, headers, body),
    };
    let answer: HttpAnswer;
    try {
      answer = await exchange({ method, url, headers, body, timeoutMs: limits.timeoutMs });
    } catch (error) {
      limits.noAnswer(sent, noAnswer(error, limits.timeoutMs));
      return noAnswerFor(sent);
    }
    recorder.record(method, url.pathname, answer.status, answer.headers, answer.text);
    return { status: answer.status, headers: answer.headers, text: answer.text, body: answer.json, request: sent };
  };
}

export type SuiteHttp = ReturnType<typeof suiteClient>;

/**
 * A fetch for clients that take one (the terminal's PosClient): its answers
 * go through the recorder too; one that gets no answer is reported, and the
 * client sees a 599 (never recorded) so the scenario goes on.
 */
export function recordingFetch(
  recorder: Recorder,
  limits: RequestLimits = { timeoutMs: 10_000, noAnswer: () => undefined },
): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    let response: Response;
    let text: string;
    try {
      response = await fetch(input, { ...init, signal: AbortSignal.timeout(limits.timeoutMs) });
      text = await response.text();
    } catch (error) {
      const method = init?.method ?? 'GET';
      limits.noAnswer(
        { method, target: `${url.pathname}${url.search}`, curl: curlLine(method, url, {}, undefined) },
        noAnswer(error, limits.timeoutMs),
      );
      return new Response(null, { status: 599 });
    }
    recorder.record(init?.method ?? 'GET', url.pathname, response.status, response.headers, text);
    return new Response(text === '' ? null : text, { status: response.status, headers: response.headers });
  };
}
