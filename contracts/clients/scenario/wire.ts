import { exchange, NoHttpAnswer } from '../http-exchange.js';
import { signPosRequest } from '../pos-client.js';
import type { ScenarioAnswer } from './expectations.js';
import { UnknownValueError } from './interpolate.js';
import type { ScenarioRequest } from './scenario-format.js';

// A scenario's request as it goes on the wire, and its answer as it came.

/** A request ready to send, kept by step name for a later `resend`. */
export interface Prepared {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** A request that got no answer at all (refused, reset, timed out). */
export class ServerSilentError extends Error {}

/** The request's body, headers and signature, made now (a signature carries the time it is made). */
export function prepare(request: ScenarioRequest): Prepared {
  const body =
    request.form !== undefined
      ? new URLSearchParams(request.form).toString()
      : request.text !== undefined
        ? request.text
        : request.json === undefined
          ? undefined
          : JSON.stringify(request.json);
  const headers: Record<string, string> = {};
  if (request.form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
  else if (body !== undefined) headers['content-type'] = 'application/json';
  if (request.token) headers.authorization = `Bearer ${request.token}`;
  if (request.signAs)
    Object.assign(
      headers,
      signPosRequest({
        secret: request.signAs.secret,
        method: request.method,
        url: request.path,
        ...(body !== undefined ? { body } : {}),
        ...(request.signAs.at !== undefined ? { now: signingTime(request.signAs.at) } : {}),
      }),
    );
  return { method: request.method, path: request.path, headers, ...(body !== undefined ? { body } : {}) };
}

export async function deliver(request: Prepared, baseUrl: string, timeoutMs = 10_000): Promise<ScenarioAnswer> {
  const answer = await exchange({
    method: request.method,
    url: new URL(request.path, baseUrl),
    headers: request.headers,
    body: request.body,
    timeoutMs,
  }).catch((error: unknown) => {
    throw error instanceof NoHttpAnswer ? new ServerSilentError(`${baseUrl} did not answer (${error.reason})`) : error;
  });
  // Not JSON (a page): kept as text, which `contains` reads and `fields` do not find.
  const body = answer.isJson ? answer.json : answer.text === '' ? undefined : answer.text;
  return { status: answer.status, headers: Object.fromEntries(answer.headers), body };
}

/** `signAs.at` as ms, or the step fails before sending (the scenario is wrong, not the server). */
function signingTime(at: string): number {
  const ms = Date.parse(at);
  if (Number.isNaN(ms)) throw new UnknownValueError(`signAs.at ${JSON.stringify(at)} is not an ISO 8601 time`);
  return ms;
}
