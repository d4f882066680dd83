import type { OpenAPIV3_1 } from 'openapi-types';

// Shared schemas, parameters and responses of the OpenAPI document. Every
// object schema of a response is closed (additionalProperties: false) so
// that a field the document does not declare fails validation.

import { isoTime, oursPattern, ref, type Schema } from './helpers.js';
import { posSchemas } from './schemas/pos.js';
import { sessionSchemas } from './schemas/sessions.js';
import { webhookSchemas } from './schemas/webhooks.js';
import { consoleSchemas } from './schemas/console.js';
import { responses } from './responses.js';
export { bodyErrors, jsonBody, jsonResponse, writeErrors } from './responses.js';

export { isoTime, ref, responseRef } from './helpers.js';
export type { HttpMethod, Operation, PathItems } from './helpers.js';

const schemas: Record<string, Schema> = {
  ...posSchemas,
  ...sessionSchemas,
  ...webhookSchemas,
  ...consoleSchemas,
  Error: {
    type: 'object',
    description: 'Every error answer (INTERFACE.md §0).',
    required: ['message', 'code'],
    properties: {
      message: { type: 'string' },
      code: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' },
      details: { type: 'array', items: ref('ErrorDetail') },
      currentStatus: { type: 'string', description: 'On ORDER_STATE_CONFLICT: the order status now.' },
    },
    additionalProperties: false,
  },
  ErrorDetail: {
    type: 'object',
    required: ['in', 'pointer', 'message'],
    // INTERFACE.md fixes a JSON pointer per offending field; naming the part it sits in is ours (profiles.ts).
    ...({ 'x-ours-required': ['in', 'message'] } as object),
    properties: {
      in: { type: 'string', enum: ['body', 'path', 'query', 'header'] },
      pointer: { type: 'string', description: 'JSON pointer of the offending field inside that part.' },
      message: { type: 'string' },
    },
    additionalProperties: false,
  },
  Health: {
    type: 'object',
    required: ['status', 'store', 'uptime_s', 'version'],
    // The interface has /health as a liveness probe; its fields beside status are ours.
    ...({ 'x-ours-required': ['store', 'uptime_s', 'version'] } as object),
    properties: {
      status: { enum: ['ok', 'store_unavailable'] },
      store: { type: 'string', examples: ['embedded', 'postgres'] },
      uptime_s: { type: 'number', minimum: 0 },
      version: { type: 'string' },
      reason: { type: 'string', description: 'Why the store cannot take work (with status store_unavailable).' },
    },
    additionalProperties: false,
  },
  RegisterRequest: {
    type: 'object',
    required: ['email', 'password'],
    properties: {
      email: { type: 'string', format: 'email', maxLength: 254 },
      password: { type: 'string', minLength: 8, maxLength: 1024 },
      short_name: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' },
    },
    additionalProperties: false,
  },
  Hooks: {
    type: 'object',
    description: "Absolute URLs of the account's default webhook receivers.",
    required: ['paid', 'accredited', 'fail', 'captura'],
    properties: {
      paid: { type: 'string', format: 'uri' },
      accredited: { type: 'string', format: 'uri' },
      fail: { type: 'string', format: 'uri' },
      captura: { type: 'string', format: 'uri' },
    },
    additionalProperties: false,
  },
  ApiKey: {
    type: 'object',
    required: ['token', 'webhook_secret'],
    properties: {
      token: oursPattern('^sk_[0-9a-f]{64}$'),
      webhook_secret: oursPattern('^whsec_[0-9a-f]{64}$'),
    },
    additionalProperties: false,
  },
  Registration: {
    type: 'object',
    required: ['account_id', 'merchant_id', 'key', 'console_token', 'hooks'],
    properties: {
      account_id: { type: 'string' },
      merchant_id: { type: 'string' },
      key: ref('ApiKey'),
      console_token: oursPattern('^ct_[0-9a-f]{64}$'),
      hooks: ref('Hooks'),
    },
    additionalProperties: false,
  },
  LegacyRegistration: {
    type: 'object',
    required: ['account_id', 'merchant_id', 'key', 'hooks'],
    properties: {
      account_id: { type: 'string' },
      merchant_id: { type: 'string' },
      key: ref('ApiKey'),
      hooks: ref('Hooks'),
    },
    additionalProperties: false,
  },
  LoginRequest: {
    type: 'object',
    required: ['password'],
    properties: {
      email: { type: 'string', maxLength: 254 },
      short_name: { type: 'string', maxLength: 64 },
      password: { type: 'string', maxLength: 1024 },
    },
    anyOf: [{ required: ['email'] }, { required: ['short_name'] }],
    additionalProperties: false,
  },
  RefreshRequest: {
    type: 'object',
    required: ['refreshToken'],
    properties: { refreshToken: { type: 'string', maxLength: 256 } },
    additionalProperties: false,
  },
  AccountClock: {
    type: 'object',
    required: ['now', 'offset_ms'],
    properties: { now: isoTime, offset_ms: { type: 'integer', minimum: 0 } },
    additionalProperties: false,
  },
  // Ours: what the account's clock would reach next (the console's "advance to the next" button).
  NextDue: {
    type: 'object',
    required: ['next'],
    properties: {
      next: {
        oneOf: [
          { type: 'null' },
          {
            type: 'object',
            required: ['at', 'kind', 'session_id', 'in_ms'],
            properties: {
              at: { ...isoTime, description: "On the account's clock." },
              kind: { type: 'string', enum: ['webhook_attempt', 'accreditation'] },
              session_id: { type: 'string' },
              event_id: { type: 'string', description: 'The event a webhook attempt is for.' },
              in_ms: {
                type: 'integer',
                minimum: 0,
                description: "How far the account's clock is from it (0 when already due).",
              },
            },
            additionalProperties: false,
          },
        ],
      },
    },
    additionalProperties: false,
  },
  RelayDeliveryRequest: {
    type: 'object',
    required: ['headers', 'body'],
    description:
      "One request for the account's relay to POST to its local receiver, byte for byte: nothing is signed or changed here.",
    properties: {
      headers: {
        type: 'object',
        additionalProperties: { type: 'string', maxLength: 4096 },
        maxProperties: 32,
        description: 'Header names and values, sent as they are.',
      },
      body: { type: 'string', maxLength: 262_144, description: 'The exact body.' },
    },
    additionalProperties: false,
  },
  RelayDeliveryResult: {
    type: 'object',
    required: ['status', 'error', 'duration_ms'],
    properties: {
      status: { type: ['integer', 'null'], description: "The local receiver's status; null when there was none." },
      error: {
        type: ['string', 'null'],
        description: 'Why there was no status: no relay connected, the 5 s limit, the receiver unreachable.',
      },
      duration_ms: { type: 'number', minimum: 0 },
    },
    additionalProperties: false,
  },
  ClockAdvanceRequest: {
    type: 'object',
    required: ['ms'],
    properties: {
      ms: {
        type: 'integer',
        minimum: 1,
        maximum: 31_536_000_000,
        description: 'Milliseconds to move forward, at most a year at once.',
      },
    },
    additionalProperties: false,
  },
  ConsoleKeys: {
    type: 'object',
    required: ['keys', 'hooks'],
    properties: {
      account_id: { type: 'string' },
      merchant_id: { type: 'string', description: 'The merchant the account is, for its POS terminals and orders.' },
      keys: {
        type: 'array',
        items: {
          type: 'object',
          required: ['token', 'webhook_secret', 'created_at'],
          properties: { token: { type: 'string' }, webhook_secret: { type: 'string' }, created_at: isoTime },
          additionalProperties: false,
        },
      },
      hooks: ref('Hooks'),
    },
    additionalProperties: false,
  },
  Session: {
    type: 'object',
    description: 'Answer of login and refresh.',
    required: ['token', 'refreshToken', 'expires_in', 'console_token'],
    properties: {
      token: oursPattern('^lt_[0-9a-f]{64}$'),
      refreshToken: oursPattern('^rt_[0-9a-f]{64}$'),
      expires_in: { type: 'integer', minimum: 1, examples: [3600] },
      console_token: oursPattern('^ct_[0-9a-f]{64}$'),
    },
    additionalProperties: false,
  },
};
export const components: OpenAPIV3_1.ComponentsObject = {
  schemas,
  responses,
  securitySchemes: {
    apiBearer: {
      type: 'http',
      scheme: 'bearer',
      description: 'API token (key.token, never expires) or login token (expires after expires_in seconds).',
    },
    posSignature: {
      type: 'apiKey',
      in: 'header',
      name: 'x-pos-signature',
      description:
        'HMAC request signature of a POS terminal (INTERFACE.md §2). `x-pos-timestamp` is the ISO 8601 time of signing; `x-pos-signature` is the lowercase hex ' +
        'HMAC-SHA256, keyed with the terminal\'s secret, of `timestamp + "." + url + "." + body`, where `url` is the request target as sent (path plus ?query) ' +
        'and `body` the raw body bytes (the empty string when bodyless). Accepted within 300 s of the server clock, once.',
    },
    svcSignature: {
      type: 'apiKey',
      in: 'header',
      name: 'svc-signature',
      description:
        'How receivers check a webhook (INTERFACE.md §7): lowercase hex HMAC-SHA256 with the account\'s webhook secret over svc-timestamp + "." + the raw body; compare in constant time, refuse stale timestamps.',
    },
    consoleBearer: {
      type: 'http',
      scheme: 'bearer',
      description: 'Console token; opens /console/** only. Rotated by every login.',
    },
  },
};
