// The one HTTP exchange under every client of the interface (the signed POS
// client, the scenario engine, the contract suite, the test kits' validating
// client): send, read the whole answer as text, parse it as JSON where it is
// JSON, and say in words why there was no answer. Each client decides what
// a non-JSON answer means to it; none repeats the fetch and the parse.

export interface HttpRequest {
  method: string;
  url: URL;
  headers?: Record<string, string>;
  body?: BodyInit | undefined;
  /** No answer in this long is a failure of its own (default: none). */
  timeoutMs?: number;
  /** The fetch to send with (a recording or validating one); the global one by default. */
  fetch?: typeof fetch;
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  /** The whole body as text ('' for none). */
  text: string;
  /** The body parsed as JSON, or undefined when it is empty or not JSON. */
  json: unknown;
  /** Whether `text` held JSON. */
  isJson: boolean;
}

/** No answer came: refused, unknown host, reset, or none within the time limit. `reason` says which, in words. */
export class NoHttpAnswer extends Error {
  constructor(
    readonly reason: string,
    readonly timedOut: boolean,
    /** The fetch's own error. */
    override readonly cause: unknown,
  ) {
    super(reason, { cause });
  }
}

/** Sends `request` and reads its whole answer; redirects are answers, never followed. Rejects with NoHttpAnswer when none came. */
export async function exchange(request: HttpRequest): Promise<HttpAnswer> {
  const send = request.fetch ?? fetch;
  let response: Response;
  let text: string;
  try {
    response = await send(request.url, {
      method: request.method,
      redirect: 'manual',
      ...(request.headers ? { headers: request.headers } : {}),
      ...(request.body !== undefined ? { body: request.body } : {}),
      ...(request.timeoutMs !== undefined ? { signal: AbortSignal.timeout(request.timeoutMs) } : {}),
    });
    text = await response.text();
  } catch (error) {
    throw new NoHttpAnswer(noAnswerReason(error, request.timeoutMs), isTimeout(error), error);
  }
  const parsed = parseJson(text);
  return { status: response.status, headers: response.headers, text, ...parsed };
}

/** `text` parsed as JSON where it is JSON. */
export function parseJson(text: string): { json: unknown; isJson: boolean } {
  if (text === '') return { json: undefined, isJson: false };
  try {
    return { json: JSON.parse(text) as unknown, isJson: true };
  } catch {
    return { json: undefined, isJson: false };
  }
}

const isTimeout = (error: unknown) => ['TimeoutError', 'AbortError'].includes((error as Error).name);

/** Why a fetch got no answer, in words. */
export function noAnswerReason(error: unknown, timeoutMs?: number): string {
  if (isTimeout(error) && timeoutMs !== undefined) return `no answer within ${timeoutMs / 1000} s`;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

/** An answer's body as one line of at most `max` characters, for a report or an error message. */
export function answerExcerpt(body: unknown, max = 300): string | undefined {
  if (body === undefined) return undefined;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
