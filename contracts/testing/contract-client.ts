import { answerExcerpt, exchange } from '../clients/http-exchange.js';
import { formatViolations, ResponseValidator } from '../response-validator.js';
import type { JsonAnswer } from '../json-answer.js';

export interface ClientResponse<T = JsonAnswer> {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  body: T;
}

export interface RequestOptions {
  /** Sent as JSON unless `raw` is given. */
  json?: unknown;
  /** Sent as is (with `headers` naming its type). */
  raw?: string | Buffer;
  headers?: Record<string, string>;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
}

export class ContractViolationError extends Error {}

const sharedValidator = new ResponseValidator();

/**
 * An HTTP client for tests that checks every answer against the OpenAPI
 * document: a status, media type, header or body the document does not
 * allow throws ContractViolationError, failing the test that made the call.
 */
export function contractClient(baseUrl: string, validator: ResponseValidator = sharedValidator) {
  async function request<T = JsonAnswer>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<ClientResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | Buffer | undefined = options.raw;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    }
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const payload = typeof body === 'string' || body === undefined ? body : new Uint8Array(body);
    const url = new URL(path, baseUrl);
    const answer = await exchange({ method, url, headers, body: payload });
    const { status, text } = answer;
    const violations = validator.check({ method, path: url.pathname, status, headers: answer.headers, text });
    if (violations.length > 0)
      throw new ContractViolationError(
        `answer breaks the OpenAPI document:\n${formatViolations(violations)}\nbody: ${answerExcerpt(text, 500)}`,
      );
    return { status, headers: answer.headers, text, body: answer.json as T };
  }
  return {
    request,
    get: <T = JsonAnswer>(path: string, options?: RequestOptions) => request<T>('GET', path, options),
    post: <T = JsonAnswer>(path: string, options?: RequestOptions) => request<T>('POST', path, options),
    put: <T = JsonAnswer>(path: string, options?: RequestOptions) => request<T>('PUT', path, options),
    delete: <T = JsonAnswer>(path: string, options?: RequestOptions) => request<T>('DELETE', path, options),
  };
}

export type ContractClient = ReturnType<typeof contractClient>;

/**
 * A drop-in `fetch` that checks every answer against the document, for
 * clients under test that take a fetch (such as the terminal's PosClient).
 */
export function validatingFetch(validator: ResponseValidator = sharedValidator): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const text = await response.text();
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    const violations = validator.check({
      method,
      path: url.pathname,
      status: response.status,
      headers: response.headers,
      text,
    });
    if (violations.length > 0)
      throw new ContractViolationError(
        `answer breaks the OpenAPI document:\n${formatViolations(violations)}\nbody: ${text.slice(0, 500)}`,
      );
    return new Response(text === '' ? null : text, { status: response.status, headers: response.headers });
  };
}
