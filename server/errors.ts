// Every error the server raises, in one table: its stable `code`
// (INTERFACE.md §0), the HTTP status it answers, and how its message (and
// details, extra body fields, headers) is made from what the thrower knows.
// A new error is one row; `appError(code, …)` raises it, typed by its row.

/** One offending input field: where it was and its JSON pointer inside that part. */
export interface ErrorDetail {
  in: 'body' | 'path' | 'query' | 'header';
  pointer: string;
  message: string;
}

/** What a row makes of its arguments: the message, and what else the answer carries. */
interface Made {
  message: string;
  details?: ErrorDetail[];
  /** Extra top-level fields of the error body, e.g. `currentStatus`; for an internal error, what the catcher reads. */
  extra?: Record<string, unknown>;
  /** Extra response headers, e.g. `Allow` or `Retry-After`. */
  headers?: Record<string, string>;
}

/** Seconds a client is told to wait before trying again while the store is unavailable. */
export const STORE_RETRY_AFTER_S = 1;

/** An error answered with its code; `internal` ones are raised and caught inside the server, and answer 500 INTERNAL_ERROR if one ever escapes. */
const row = <A extends unknown[]>(status: number, make: (...args: A) => string | Made, internal = false) => ({
  status,
  make,
  internal,
});
const internal = <A extends unknown[]>(make: (...args: A) => string | Made) => row(500, make, true);
/** The thrower says it all. */
const said = (message: string) => message;

export const ERROR_TABLE = {
  VALIDATION_FAILED: row(400, (details: ErrorDetail[], message: string = describeDetails(details)) => ({
    message,
    details,
  })),
  MALFORMED_JSON: row(400, (reason: string) => `request body is not valid JSON: ${reason}`),
  INVALID_CREDENTIALS: row(401, () => 'unknown account or wrong password'),
  INVALID_TOKEN: row(401, (message: string = 'the bearer token is unknown, revoked or expired') => message),
  WRONG_TOKEN_KIND: row(
    401,
    (got: string, use: string) =>
      `${/^[AEIOU]/.test(got) ? 'an' : 'a'} ${got} token does not open this path; use ${use}`,
  ),
  SIGNATURE_INVALID: row(401, said),
  SIGNATURE_STALE: row(
    401,
    (toleranceS: number) => `x-pos-timestamp is more than ${toleranceS} s from the server clock`,
  ),
  SIGNATURE_REPLAYED: row(401, () => 'this signature was already accepted; sign each request anew'),
  NOT_FOUND: row(404, (what: string) => `${what} not found`),
  METHOD_NOT_ALLOWED: row(405, (method: string, path: string, allowed: string[]) => ({
    message: `${method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`,
    headers: { Allow: allowed.join(', ') },
  })),
  ACCOUNT_EXISTS: row(409, said),
  ALREADY_EXISTS: row(409, said),
  ORDER_STATE_CONFLICT: row(409, (reason: string, currentStatus: string) => ({
    message: reason,
    extra: { currentStatus },
  })),
  SETTLEMENT_CONFLICT: row(
    409,
    (serial: string, batch: string) => `batch ${batch} of terminal ${serial} is already registered with other fields`,
  ),
  SESSION_NOT_PAYABLE: row(409, said),
  SCENARIO_RUNNING: row(409, said),
  PAYLOAD_TOO_LARGE: row(413, (limitBytes: number) => `request body exceeds the limit of ${limitBytes} bytes`),
  UNSUPPORTED_MEDIA_TYPE: row(
    415,
    (got: string, accepted: string[]) =>
      `content-type ${got || '(none)'} is not accepted here; send ${accepted.join(' or ')}`,
  ),
  SESSION_ALREADY_PAID: row(422, said),
  AMOUNT_MISMATCH: row(
    422,
    (expected: number, got: number) => `the order's amount is ${expected}, the confirmation says ${got}`,
  ),
  UPGRADE_REQUIRED: row(426, said),
  RATE_LIMITED: row(429, (perMinute: number, retryAfterS: string, headers: Record<string, string>) => ({
    message: `the rate brake allows ${perMinute} requests a minute; try again in ${retryAfterS} s`,
    headers: { ...headers, 'Retry-After': retryAfterS },
  })),
  INVALID_FORCED_TRANSITION: row(500, said),
  RECEIVER_FAILS_ON_PURPOSE: row(500, said),
  INTERNAL_ERROR: row(500, said),
  STORE_UNAVAILABLE: row(503, (reason: string, message: string = `the store cannot accept writes: ${reason}`) => ({
    message,
    headers: { 'Retry-After': String(STORE_RETRY_AFTER_S) },
  })),
  // Raised and caught inside the server (or at start-up), never answered as themselves.
  DUPLICATE_KEY: internal((collection: string, id: string) => ({
    message: `duplicate key ${collection}/${id}`,
    extra: { collection, id },
  })),
  STORE_CORRUPT: internal((file: string, line: number, reason: string) => ({
    message: `store corrupt: ${file} line ${line}: ${reason}`,
    extra: { file, line },
  })),
  STORE_LOCKED: internal(
    (dataDir: string) =>
      `data directory ${dataDir} is in use by another server process; stop it or choose another DATA_DIR`,
  ),
  CONFIG_INVALID: internal(said),
  REPAIR_REFUSED: internal(said),
  /** One item of a batch refused: `refusal` as the item would answer alone, pointing inside it. */
  SESSION_ITEM_REFUSED: internal((refusal: Error, pointer: string) => ({
    message: refusal.message,
    extra: { refusal, pointer },
  })),
};

export type ErrorCode = keyof typeof ERROR_TABLE;
/** What the thrower of `code` gives: the arguments of its row. */
export type ErrorArgs<C extends ErrorCode> = Parameters<(typeof ERROR_TABLE)[C]['make']>;
/** The codes a client can be answered with. */
export const httpStatusByCode = Object.fromEntries(
  Object.entries(ERROR_TABLE)
    .filter(([, error]) => !error.internal)
    .map(([code, error]) => [code, error.status]),
) as Record<ErrorCode, number>;

/**
 * Every error the server raises. Only those not `internal` say what went
 * wrong to a client; anything else is answered as a 500 INTERNAL_ERROR
 * without its message.
 */
export class AppError<C extends ErrorCode = ErrorCode> extends Error {
  readonly status: number;
  readonly internal: boolean;
  readonly details: ErrorDetail[] | undefined;
  readonly extra: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    readonly code: C,
    made: Made,
  ) {
    super(made.message);
    this.name = `AppError(${code})`;
    const { status, internal } = ERROR_TABLE[code];
    this.status = status;
    this.internal = internal;
    this.details = made.details;
    this.extra = made.extra;
    this.headers = made.headers;
  }

  toBody(): Record<string, unknown> {
    return {
      message: this.message,
      code: this.code,
      ...(this.details ? { details: this.details } : {}),
      ...this.extra,
    };
  }
}

/** The error of `code`, made by its row from `args`. */
export function appError<C extends ErrorCode>(code: C, ...args: ErrorArgs<C>): AppError<C> {
  const make = ERROR_TABLE[code].make as (...given: ErrorArgs<C>) => string | Made;
  const made = make(...args);
  return new AppError(code, typeof made === 'string' ? { message: made } : made);
}

/** Whether `error` is an AppError of `code` (of any code when none is given). */
export function isAppError<C extends ErrorCode>(error: unknown, code?: C): error is AppError<C> {
  return error instanceof AppError && (code === undefined || error.code === code);
}

function describeDetails(details: ErrorDetail[]): string {
  const first = details[0];
  if (!first) return 'request is invalid';
  const more = details.length > 1 ? ` (and ${details.length - 1} more)` : '';
  return `${first.in} ${first.pointer || '/'} ${first.message}${more}`;
}
