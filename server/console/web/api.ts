import { state } from './state.js';
import { $ } from './dom.js';

/** A call refused on the page because the console is locked: nothing is said of it. */
export class Stopped extends Error {}

export const TOKEN_GONE =
  'This console token no longer works: a newer login replaced it, or it was mistyped. The console is locked and holds no token or secret any more: log in again below, or paste the current console token.';

/** What the page does when the server refuses its token (main.ts locks it). */
let onUnauthorized: (message: string) => void = () => undefined;
export const whenUnauthorized = (lock: (message: string) => void) => void (onUnauthorized = lock);

/** A refused token, wherever it was found out. */
export const tokenGone = () => onUnauthorized(TOKEN_GONE);

export interface Call {
  method?: string;
  json?: unknown;
  /** With the account's API token (the control plane, the POS side) rather than the console token. */
  apiToken?: boolean;
}

/**
 * A request to the server, answered as JSON; a refused token locks the
 * page. Locked, nothing leaves the page, whatever was still on its way when
 * the token went.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read as the OpenAPI document describes them
export async function api<T = any>(path: string, call: Call = {}): Promise<T> {
  if (state.locked || (call.apiToken && !state.keys)) throw new Stopped();
  const auth = call.apiToken ? state.keys!.keys[0]!.token : state.token;
  const response = await fetch(path, {
    method: call.method ?? 'GET',
    headers: {
      authorization: `Bearer ${auth}`,
      ...(call.json !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(call.json !== undefined ? { body: JSON.stringify(call.json) } : {}),
  });
  const body = await response.json().catch(() => ({}));
  if (response.status === 401) {
    tokenGone();
    throw new Stopped();
  }
  if (!response.ok) throw new Error(body.message ?? `HTTP ${response.status}`);
  return body as T;
}

/** An error shown where the page shows errors; a locked page's refusals say nothing more. */
export function report(error: unknown): void {
  if (!(error instanceof Stopped)) $('error').textContent = (error as Error).message;
}
