import type { ParameterizedContext } from 'koa';
import type { Account, TokenKind } from '../accounts/account.js';
import type { Store } from '../store/store.js';
import type { TerminalRecord } from '../terminals/terminal.js';

/** What the middleware chain learns about a request before its handler runs. */
export interface AppState {
  operationId?: string;
  /** The raw body bytes as received (signature checks need them). */
  rawBody?: Buffer;
  /** The parsed and validated body. */
  body?: unknown;
  /** Validated path parameters. */
  params?: Record<string, string>;
  /** Validated (and type-coerced) query parameters. */
  query?: Record<string, unknown>;
  account?: Account;
  tokenKind?: TokenKind;
  /** The terminal whose signature a POS request carried. */
  terminal?: TerminalRecord;
  /** The store this request's writes go through, where it is not the app's own: a signed request's, which makes its claim with the first write. */
  store?: Store;
}

export type AppContext = ParameterizedContext<AppState>;
