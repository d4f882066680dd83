import { closed, isoTime, ref, type Schema } from '../helpers.js';

// Schemas of the simulator's console surfaces (addendum §8).

export const consoleSchemas: Record<string, Schema> = {
  TraceEntry: {
    type: 'object',
    description: 'One trace entry: id, type, at, and the fields of its type (addendum §7, §8).',
    required: ['id', 'type', 'at'],
    properties: {
      id: { type: 'string' },
      type: { type: 'string' },
      at: isoTime,
      session_id: { type: 'string' },
      event_id: { type: 'string' },
    },
    additionalProperties: true,
  },
  TraceList: closed(['data'], { data: { type: 'array', items: ref('TraceEntry') } }, 'Newest first.'),
  SessionList: closed(['data'], { data: { type: 'array', items: ref('PaymentSession') } }, 'The account\'s sessions, newest first.'),
  Progress: closed(['steps', 'done', 'total'], {
    steps: {
      type: 'array',
      items: closed(['id', 'title', 'done'], { id: { type: 'string' }, title: { type: 'string' }, done: { type: 'boolean' }, at: isoTime }),
    },
    done: { type: 'integer', minimum: 0 },
    total: { type: 'integer', minimum: 0 },
  }),
  RateLimitRequest: closed(['per_minute'], {
    per_minute: { oneOf: [{ type: 'integer', minimum: 1, maximum: 100_000 }, { type: 'null' }], description: 'Requests per minute; null switches the brake off.' },
  }),
  RateLimit: closed(['per_minute'], { per_minute: { oneOf: [{ type: 'integer' }, { type: 'null' }] } }),
  Fidelidad: closed(['version', 'differences'], {
    version: { type: 'string' },
    differences: {
      type: 'array',
      items: closed(['id', 'topic', 'production', 'simulator'], { id: { type: 'string' }, topic: { type: 'string' }, production: { type: 'string' }, simulator: { type: 'string' } }),
    },
  }),
};
