// The document's shared answers: the error responses every operation may give,
// and the helpers the paths declare their bodies and answers with.
import type { OpenAPIV3_1 } from 'openapi-types';
import { ref, responseRef, type Schema } from './helpers.js';

const errorResponse = (description: string): OpenAPIV3_1.ResponseObject => ({
  description,
  content: { 'application/json': { schema: ref('Error') } },
});

export const responses: Record<string, OpenAPIV3_1.ResponseObject> = {
  BadRequest: errorResponse('VALIDATION_FAILED (details hold a JSON pointer per field) or MALFORMED_JSON.'),
  Unauthorized: errorResponse('INVALID_TOKEN, WRONG_TOKEN_KIND or INVALID_CREDENTIALS.'),
  NotFound: errorResponse("NOT_FOUND: unknown, or another account's."),
  Conflict: errorResponse('The resource already exists or is in a conflicting state.'),
  PayloadTooLarge: errorResponse('PAYLOAD_TOO_LARGE: the body is over 1 MiB.'),
  UnsupportedMediaType: errorResponse('UNSUPPORTED_MEDIA_TYPE: the body is not in a declared media type.'),
  OrderConflict: errorResponse(
    "ORDER_STATE_CONFLICT: the transition is not allowed from the order's status, given in currentStatus.",
  ),
  RateLimited: {
    description: "RATE_LIMITED: the account's rate brake is on and this minute's requests are used up.",
    headers: {
      'Retry-After': {
        required: true,
        description: 'Seconds until the window resets.',
        schema: { type: 'integer', minimum: 0 },
      },
      'X-RateLimit-Limit': { required: true, schema: { type: 'integer' } },
      'X-RateLimit-Remaining': { required: true, schema: { type: 'integer', minimum: 0 } },
      'X-RateLimit-Reset': { required: true, description: 'Epoch seconds.', schema: { type: 'integer' } },
    },
    content: { 'application/json': { schema: ref('Error') } },
  },
  ReceiverFailure: errorResponse('RECEIVER_FAILS_ON_PURPOSE: the fail receiver always answers 500.'),
  UpgradeRequired: errorResponse('UPGRADE_REQUIRED: connect with a WebSocket client.'),
  SessionAlreadyPaid: errorResponse('SESSION_ALREADY_PAID: a paid session cannot expire.'),
  InvalidForcedTransition: errorResponse(
    'INVALID_FORCED_TRANSITION: the control plane does not admit this outcome now; the reason is in message.',
  ),
  AmountMismatch: errorResponse("AMOUNT_MISMATCH: the amount confirmed differs from the order's."),
  SignatureRejected: errorResponse(
    'SIGNATURE_INVALID (missing or malformed headers, wrong signature, unknown terminal), SIGNATURE_STALE (timestamp more than the tolerance from the server clock) or SIGNATURE_REPLAYED.',
  ),
  StoreUnavailable: {
    description:
      'STORE_UNAVAILABLE: the store cannot be reached (the database is away) or refused the work; nothing was written. Try again after Retry-After.',
    headers: {
      'Retry-After': {
        required: true,
        description: 'Seconds to wait before trying again.',
        schema: { type: 'integer', minimum: 0 },
      },
    },
    content: { 'application/json': { schema: ref('Error') } },
  },
};

/** The error answers every operation with a JSON body can give. */
export const bodyErrors = {
  '400': responseRef('BadRequest'),
  '413': responseRef('PayloadTooLarge'),
  '415': responseRef('UnsupportedMediaType'),
};

/** Operations that write answer 503 when the store refuses the write (nothing was written); openapi.ts adds it to every operation that uses the store. */
export const writeErrors = {
  '503': responseRef('StoreUnavailable'),
};

export const jsonBody = (schemaName: string): OpenAPIV3_1.RequestBodyObject => ({
  required: true,
  content: { 'application/json': { schema: ref(schemaName) } },
});

export const jsonResponse = (
  description: string,
  schema: Schema | { $ref: string },
  headers?: OpenAPIV3_1.ResponseObject['headers'],
): OpenAPIV3_1.ResponseObject => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema } },
});
