import type { OpenAPIV3_1 } from 'openapi-types';
import { bodyErrors, jsonBody, jsonResponse, ref, responseRef, writeErrors, type PathItems } from '../components.js';

const consoleAuth = [{ consoleBearer: [] }];
const query = (name: string, schema: OpenAPIV3_1.SchemaObject, description: string): OpenAPIV3_1.ParameterObject => ({
  name,
  in: 'query',
  schema: schema as OpenAPIV3_1.ParameterObject['schema'],
  description,
});

export const consoleApiPaths: PathItems = {
  '/console': {
    get: {
      operationId: 'showConsole',
      'x-ours': true, // the web console page; the interface names the console API only (profiles.ts)
      summary: 'The web console',
      description:
        'Paste a console token to see keys, sessions, the progress checklist and the trace (live), with a resend button per webhook.',
      tags: ['console'],
      security: [],
      responses: { '200': { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } } },
    },
  },
  '/console/trace': {
    get: {
      operationId: 'getConsoleTrace',
      summary: "The account's event trace, newest first",
      tags: ['console'],
      security: consoleAuth,
      parameters: [
        query('type', { type: 'string', maxLength: 64 }, 'Only entries of this type, e.g. webhook.received.'),
        query('session_id', { type: 'string', maxLength: 64 }, 'Only entries of this session.'),
        query(
          'result',
          { type: 'string', enum: ['succeeded', 'failed'] },
          'Ours: only webhook attempts that got a 2xx (succeeded) or did not (failed), in the order they were written; implies type webhook.attempt, and does not combine with session_id (400).',
        ),
        query('limit', { type: 'integer', minimum: 1, maximum: 1000, default: 100 }, 'At most this many entries.'),
        query(
          'after',
          { type: 'string', pattern: '^[0-9]{1,17}$' },
          'A `cursor` of an earlier answer: only entries written after it (the oldest `limit` of them, so a poll catches up page by page), newest first.',
        ),
      ],
      responses: {
        '200': jsonResponse('Trace entries.', ref('TraceList')),
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
      },
    },
  },
  '/console/trace/stream': {
    get: {
      operationId: 'streamConsoleTrace',
      'x-ours': true, // not an operation of the interface (profiles.ts)
      summary: "The account's new trace entries, pushed as Server-Sent Events",
      description:
        'A `text/event-stream` that stays open: `event: ready` with the starting `cursor`, then `event: entries` with `{ data, cursor }` (newest first) whenever entries are written, a `: keep-alive` comment every 15 s when idle, and `event: unauthorized` before it ends if the console token stops working (a login rotates it). ' +
        'Reconnect with `after` set to the last cursor to miss nothing. Send the token in the Authorization header (a fetch stream; EventSource cannot).',
      tags: ['console'],
      security: consoleAuth,
      parameters: [
        query('type', { type: 'string', maxLength: 64 }, 'Only entries of this type.'),
        query('session_id', { type: 'string', maxLength: 64 }, 'Only entries of this session.'),
        query(
          'after',
          { type: 'string', pattern: '^[0-9]{1,17}$' },
          'A cursor: entries written after it; by default, from now.',
        ),
        query(
          'max_seconds',
          { type: 'integer', minimum: 1, maximum: 86400 },
          'End the stream after this long (by default it stays open).',
        ),
      ],
      responses: {
        '200': { description: 'The stream.', content: { 'text/event-stream': { schema: { type: 'string' } } } },
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
      },
    },
  },
  '/console/sessions': {
    get: {
      operationId: 'getConsoleSessions',
      summary: "The account's sessions, newest first",
      description:
        'Filtered by status and accreditation through an index each, or found by the start of their id (id_prefix).',
      tags: ['console'],
      security: consoleAuth,
      parameters: [
        query(
          'status',
          { type: 'string', enum: ['pending', 'paid', 'failed', 'expired'] },
          'Only sessions in this status.',
        ),
        query(
          'accreditation',
          { type: 'string', enum: ['none', 'scheduled', 'accredited', 'failed'] },
          'Ours: only sessions whose accreditation (leg 2) is in this status; combines with status.',
        ),
        query(
          'id_prefix',
          { type: 'string', minLength: 1, maxLength: 64 },
          'Ours: only sessions whose id starts with this, in id order; does not combine with status or accreditation (400).',
        ),
        query('limit', { type: 'integer', minimum: 1, maximum: 1000, default: 100 }, 'At most this many sessions.'),
        query(
          'page',
          { type: 'integer', minimum: 1, maximum: 100, default: 1 },
          'Which page of `limit` sessions, 1 the newest (the first 100 pages: a page costs its offset).',
        ),
      ],
      responses: {
        '200': jsonResponse('Sessions as their status reads now, one page.', ref('SessionList')),
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
      },
    },
  },
  '/console/sessions/{session_id}': {
    get: {
      operationId: 'getConsoleSession',
      'x-ours': true, // the console's view of one session (profiles.ts)
      summary: 'One session as the console shows it, with the forced outcomes its rules admit now',
      description:
        'The session as a status read has it, and `admissible_outcomes`: each leg and outcome of POST /control/sessions/{session_id}/outcome the rules of INTERFACE.md §6 admit now, so the console offers exactly those.',
      tags: ['console'],
      security: consoleAuth,
      parameters: [{ name: 'session_id', in: 'path', required: true, schema: { type: 'string', maxLength: 64 } }],
      responses: {
        '200': jsonResponse('The session and what may be forced on it now.', ref('ConsoleSession')),
        '401': responseRef('Unauthorized'),
        '404': responseRef('NotFound'),
      },
    },
  },
  '/console/app.js': {
    get: {
      operationId: 'getConsoleScript',
      'x-ours': true, // the web console page's script (profiles.ts)
      summary: "The web console's script",
      description:
        "One ES module, loaded by GET /console; the page's Content-Security-Policy allows scripts from this origin only.",
      tags: ['console'],
      security: [],
      responses: {
        '200': { description: 'The script.', content: { 'text/javascript': { schema: { type: 'string' } } } },
      },
    },
  },
  '/console/progress': {
    get: {
      operationId: 'getConsoleProgress',
      summary: 'The integration checklist, each step done from what really happened',
      tags: ['console'],
      security: consoleAuth,
      responses: { '200': jsonResponse('The eight steps.', ref('Progress')), '401': responseRef('Unauthorized') },
    },
  },
  '/console/rate-limit': {
    put: {
      operationId: 'setRateLimit',
      summary: "Switch the account's rate brake on (per_minute) or off (null)",
      description:
        "Applies to the account's API only (/api/v1/ext/**, /payment-sessions/**, /control/**, /__test__/**), never to /console/**. Limited answers carry X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (epoch seconds); past the limit, 429 RATE_LIMITED with Retry-After (seconds).",
      tags: ['console'],
      security: consoleAuth,
      requestBody: jsonBody('RateLimitRequest'),
      responses: {
        '200': jsonResponse('The brake as it now is.', ref('RateLimit')),
        ...bodyErrors,
        '401': responseRef('Unauthorized'),
        ...writeErrors,
      },
    },
  },
  '/fidelidad': {
    get: {
      operationId: 'getFidelidad',
      summary: 'Every known difference between the simulator and production',
      tags: ['simulator'],
      security: [],
      description:
        'JSON by default and for `Accept: application/json`; a page for a browser (`Accept: text/html` preferred). Values this server is configured with (the accreditation delay, the ladder, the token lifetime, the data lifetime) are the running ones.',
      responses: {
        '200': {
          description: 'The differences.',
          content: { ...jsonResponse('', ref('Fidelidad')).content, 'text/html': { schema: { type: 'string' } } },
        },
      },
    },
  },
};
