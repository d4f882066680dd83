import type { Operations } from '../../contracts/types/document-types.js';
import type { Account } from '../accounts/account.js';
import type { PosSignature } from '../terminals/pos-signatures.js';
import type { AppContext } from './context.js';

/** Every operation of the document that has a handler of its own (aliases share their original's). */
export type OperationId = keyof Operations;

type SecurityOf<K extends OperationId> = Operations[K]['security'];

/**
 * What a handler receives, typed from the document: the validated body,
 * path and query (coerced), and who is calling. An operation behind a
 * bearer scheme has its account; a signed POS operation also has its
 * verified signature (with the terminal), to hand to its one write.
 */
export type OperationRequest<K extends OperationId> = {
  body: Operations[K]['body'];
  params: Operations[K]['params'];
  query: Operations[K]['query'];
} & (SecurityOf<K> extends 'none' ? { account?: undefined } : { account: Account }) &
  (SecurityOf<K> extends 'posSignature' ? { signature: PosSignature } : unknown);

/** One operation's handler: answers on `ctx` (status, body, headers). */
export type OperationHandler<K extends OperationId> = (
  request: OperationRequest<K>,
  ctx: AppContext,
) => Promise<void> | void;

/** Handlers by operationId; bindOperations checks that together they cover the document. */
export type OperationHandlers = { [K in OperationId]?: OperationHandler<K> };
