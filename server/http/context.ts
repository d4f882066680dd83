import type { ParameterizedContext } from 'koa';
import type { Account, TokenKind } from '../accounts/account.js';
import type { PosSignature } from '../terminals/pos-signatures.js';

/** What the middleware chain learns about a request before its handler runs; handlers get it typed (operation.ts). */
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
  /** A POS request's verified signature, with its terminal; claimed with the request's write. */
  signature?: PosSignature;
}

export type AppContext = ParameterizedContext<AppState>;
