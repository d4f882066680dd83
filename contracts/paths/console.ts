import { jsonResponse, ref, responseRef, type PathItems } from '../components.js';

export const consolePaths: PathItems = {
  '/console/keys': {
    get: {
      operationId: 'getConsoleKeys',
      summary: "The account's API keys and default receivers",
      tags: ['console'],
      security: [{ consoleBearer: [] }],
      responses: {
        '200': jsonResponse('Keys with their webhook secrets, and the default receiver URLs.', ref('ConsoleKeys')),
        '401': responseRef('Unauthorized'),
      },
    },
  },
  '/console/relay': {
    get: {
      operationId: 'getConsoleRelay',
      'x-ours': true, // not an operation of the interface (profiles.ts)
      summary: "The account's relay: connected or not, since when, its cursor, what was resumed",
      description:
        "What the console shows of the relay (docs/relay-protocol.md): whether one is connected and since when (the account's clock), the cursor it connected with, when it last answered a ping (when connected to this instance), and the deliveries resumed for it.",
      tags: ['console'],
      security: [{ consoleBearer: [] }],
      responses: {
        '200': jsonResponse('The relay state.', {
          type: 'object',
          additionalProperties: false,
          required: [
            'connected',
            'connected_since',
            'cursor',
            'closed_at',
            'close_code',
            'last_resume',
            'resumed_total',
            'last_heard_ms_ago',
          ],
          properties: {
            connected: { type: 'boolean' },
            connected_since: { type: ['string', 'null'], format: 'date-time' },
            cursor: { type: ['integer', 'null'], minimum: 0 },
            closed_at: { type: ['string', 'null'], format: 'date-time' },
            close_code: { type: ['integer', 'null'] },
            last_resume: {
              oneOf: [
                { type: 'null' },
                {
                  type: 'object',
                  additionalProperties: false,
                  required: ['at', 'after', 'count', 'left_out'],
                  properties: {
                    at: { type: 'string', format: 'date-time' },
                    after: { type: 'integer', minimum: 0 },
                    count: { type: 'integer', minimum: 0 },
                    left_out: { type: 'integer', minimum: 0 },
                  },
                },
              ],
            },
            resumed_total: { type: 'integer', minimum: 0 },
            last_heard_ms_ago: {
              type: ['integer', 'null'],
              minimum: 0,
              description:
                'Since the relay last answered a ping, when it is connected to the instance answering; null otherwise.',
            },
          },
        }),
        '401': responseRef('Unauthorized'),
      },
    },
  },
};
