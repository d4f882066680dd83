// Every error the service can answer with, in one file. Each has a stable
// `code` (INTERFACE.md §0); the HTTP status for a code lives in one table below.

export const httpStatusByCode = {
  VALIDATION_FAILED: 400,
  MALFORMED_JSON: 400,
  INVALID_CREDENTIALS: 401,
  INVALID_TOKEN: 401,
  WRONG_TOKEN_KIND: 401,
  SIGNATURE_INVALID: 401,
  SIGNATURE_STALE: 401,
  SIGNATURE_REPLAYED: 401,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  ACCOUNT_EXISTS: 409,
  ALREADY_EXISTS: 409,
  ORDER_STATE_CONFLICT: 409,
  SETTLEMENT_CONFLICT: 409,
  SESSION_NOT_PAYABLE: 409,
  SCENARIO_RUNNING: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  SESSION_ALREADY_PAID: 422,
  AMOUNT_MISMATCH: 422,
  RATE_LIMITED: 429,
  UPGRADE_REQUIRED: 426,
  INVALID_FORCED_TRANSITION: 500,
  RECEIVER_FAILS_ON_PURPOSE: 500,
  INTERNAL_ERROR: 500,
  STORE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof httpStatusByCode;

/** One offending input field: where it was and its JSON pointer inside that part. */
export interface ErrorDetail {
  in: 'body' | 'path' | 'query' | 'header';
  pointer: string;
  message: string;
}

/**
 * Base of every error meant for the client. Anything thrown that is not an
 * AppError is answered as a 500 INTERNAL_ERROR without its message.
 */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** Extra top-level fields of the error body, e.g. `currentStatus`. */
    readonly extra?: Record<string, unknown>,
    /** Extra response headers, e.g. `Allow` or `Retry-After`. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = new.target.name;
    this.status = httpStatusByCode[code];
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

export class ValidationError extends AppError {
  constructor(details: ErrorDetail[], message = describeDetails(details)) {
    super('VALIDATION_FAILED', message, details);
  }
}

export class MalformedJsonError extends AppError {
  constructor(reason: string) {
    super('MALFORMED_JSON', `request body is not valid JSON: ${reason}`);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(limitBytes: number) {
    super('PAYLOAD_TOO_LARGE', `request body exceeds the limit of ${limitBytes} bytes`);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(got: string, accepted: string[]) {
    super(
      'UNSUPPORTED_MEDIA_TYPE',
      `content-type ${got || '(none)'} is not accepted here; send ${accepted.join(' or ')}`,
    );
  }
}

export class NotFoundError extends AppError {
  constructor(what: string) {
    super('NOT_FOUND', `${what} not found`);
  }
}

export class MethodNotAllowedError extends AppError {
  constructor(method: string, path: string, allowed: string[]) {
    super(
      'METHOD_NOT_ALLOWED',
      `${method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`,
      undefined,
      undefined,
      {
        Allow: allowed.join(', '),
      },
    );
  }
}

export class InvalidTokenError extends AppError {
  constructor(message = 'the bearer token is unknown, revoked or expired') {
    super('INVALID_TOKEN', message);
  }
}

export class WrongTokenKindError extends AppError {
  constructor(got: string, expected: string) {
    super(
      'WRONG_TOKEN_KIND',
      `${/^[AEIOU]/.test(got) ? 'an' : 'a'} ${got} token does not open this path; use ${expected}`,
    );
  }
}

export class InvalidCredentialsError extends AppError {
  constructor() {
    super('INVALID_CREDENTIALS', 'unknown account or wrong password');
  }
}

export class ConflictError extends AppError {
  constructor(code: 'ACCOUNT_EXISTS' | 'ALREADY_EXISTS' | 'SCENARIO_RUNNING', message: string) {
    super(code, message);
  }
}

/** Seconds a client is told to wait before trying again while the store is unavailable. */
export const STORE_RETRY_AFTER_S = 1;

/** The store could not be reached or refused the work for a reason of its own: nothing was written. */
export class StoreUnavailableError extends AppError {
  constructor(reason: string, message = `the store cannot accept writes: ${reason}`) {
    super('STORE_UNAVAILABLE', message, undefined, undefined, { 'Retry-After': String(STORE_RETRY_AFTER_S) });
  }
}

/** Raised by a store when a transaction inserts a key that already exists. */
export class DuplicateKeyError extends Error {
  constructor(
    readonly collection: string,
    readonly id: string,
  ) {
    super(`duplicate key ${collection}/${id}`);
    this.name = 'DuplicateKeyError';
  }
}

/** Raised at start-up when the store's files cannot be trusted. */
export class StoreCorruptError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    reason: string,
  ) {
    super(`store corrupt: ${file} line ${line}: ${reason}`);
    this.name = 'StoreCorruptError';
  }
}

/** Raised at start-up when another process holds the data directory. */
export class StoreLockedError extends Error {
  constructor(readonly dataDir: string) {
    super(`data directory ${dataDir} is in use by another server process; stop it or choose another DATA_DIR`);
    this.name = 'StoreLockedError';
  }
}

function describeDetails(details: ErrorDetail[]): string {
  const first = details[0];
  if (!first) return 'request is invalid';
  const more = details.length > 1 ? ` (and ${details.length - 1} more)` : '';
  return `${first.in} ${first.pointer || '/'} ${first.message}${more}`;
}
