import { appError, isAppError } from '../../errors.js';

// Which errors of the pg client mean "the database is not there or not
// itself right now", as opposed to a mistake in the query (a bug, 500) or a
// conflict the store handles (unique keys, serialisation failures). Only
// these become 503 STORE_UNAVAILABLE with Retry-After.

/** SQLSTATE classes of faults that are the database's or the connection's, never the request's. */
const UNAVAILABLE_CLASSES = new Set([
  '08', // connection exception
  '53', // insufficient resources (disk full, out of memory, too many connections)
  '57', // operator intervention (admin shutdown, crash shutdown, cannot connect now, query canceled)
  '58', // system error (I/O)
  'XX', // internal error
]);

/** Socket errors of the connection to the database. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOENT',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/** Messages the pg client gives its own connection failures, which carry no code. */
const CLIENT_MESSAGES =
  /Connection terminated|not queryable|timeout exceeded when trying to connect|Client was closed|Connection ended|the database system is|Cannot use a pool after calling end/i;

export function isUnavailable(error: unknown): boolean {
  if (isAppError(error, 'STORE_UNAVAILABLE')) return true;
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (code.length === 5 && UNAVAILABLE_CLASSES.has(code.slice(0, 2))) return true;
    if (SOCKET_CODES.has(code)) return true;
  }
  return typeof message === 'string' && CLIENT_MESSAGES.test(message);
}

/** The error as the store reports it: a fault of the database becomes StoreUnavailableError; anything else is left as it is. */
export function asStoreFault(error: unknown): unknown {
  if (isAppError(error, 'STORE_UNAVAILABLE') || !isUnavailable(error)) return error;
  return appError(
    'STORE_UNAVAILABLE',
    (error as Error).message,
    `the database is unavailable (${(error as Error).message}); nothing was written, try again`,
  );
}

/** For `.catch`: rethrows as asStoreFault says. */
export function rethrowAsStoreFault(error: unknown): never {
  throw asStoreFault(error);
}
