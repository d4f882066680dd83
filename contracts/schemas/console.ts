import { closed, isoTime, ref, withOursRequired, type Schema } from '../helpers.js';

// Schemas of the simulator's console surfaces (INTERFACE.md §8).

// A scenario run of the console's Scenarios panel (ours: paths/console-scenarios.ts).
const stepOutcome = closed(
  ['name', 'request', 'status', 'problems', 'at', 'ms'],
  {
    name: { type: 'string' },
    request: { type: 'string', description: 'METHOD path as sent, or what the step did.' },
    status: { type: 'integer', minimum: 0 },
    problems: { type: 'array', items: { type: 'string' }, description: 'Empty when the step held.' },
    answer: { type: 'string', description: 'The answer, shortened, when the step failed.' },
    at: { type: 'integer', minimum: 0, description: 'ms after the run started.' },
    ms: { type: 'integer', minimum: 0 },
    given: { type: 'boolean', description: 'Not sent: the operator’s account stood for it.' },
  },
  'One step as it went.',
);

const scenarioRun = closed(
  ['run_id', 'scenario', 'status', 'started_at', 'steps', 'link'],
  {
    run_id: { type: 'string', pattern: '^run_[0-9a-f]{16}$' },
    scenario: { type: 'string' },
    status: { type: 'string', enum: ['running', 'passed', 'failed'] },
    started_at: { type: 'string', format: 'date-time' },
    ended_at: { type: 'string', format: 'date-time' },
    steps: { type: 'array', items: stepOutcome },
    link: { type: 'string', description: 'The console’s deep link to this run.' },
    order: closed(
      ['order_id', 'status', 'taken_first'],
      {
        order_id: { type: 'string' },
        status: { type: 'string' },
        taken_first: { type: 'string', enum: ['merchant', 'pos', 'neither'] },
      },
      'A race scenario’s order as it ended (its `final` capture), and which side the server applied first.',
    ),
  },
  'A scenario run: its steps so far.',
);

export const consoleSchemas: Record<string, Schema> = {
  ScenarioRun: scenarioRun,
  TraceEntry: {
    type: 'object',
    description: 'One trace entry: id, type, at, and the fields of its type (INTERFACE.md §7, §8).',
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
  // The cursor (live polling) is ours (profiles.ts).
  TraceList: withOursRequired(
    ['cursor'],
    closed(
      ['data', 'cursor'],
      {
        data: { type: 'array', items: ref('TraceEntry') },
        cursor: {
          type: 'string',
          pattern: '^[0-9]+$',
          description: 'Give it as `after` to get only the entries written since these (a live view polls with it).',
        },
      },
      'Newest first.',
    ),
  ),
  SessionList: closed(
    ['data'],
    { data: { type: 'array', items: ref('PaymentSession') } },
    "The account's sessions, newest first.",
  ),
  ConsoleSession: closed(
    ['session', 'admissible_outcomes'],
    {
      session: ref('PaymentSession'),
      admissible_outcomes: {
        type: 'array',
        description:
          'The forced outcomes the rules admit now (INTERFACE.md §6), leg 1 before leg 2; empty once the session can take none.',
        items: closed(['leg', 'outcome'], {
          leg: { type: 'integer', enum: [1, 2] },
          outcome: { type: 'string', enum: ['paid', 'failed', 'expired', 'accredited', 'accreditation_failed'] },
        }),
      },
    },
    'One session as the console shows it.',
  ),
  Progress: closed(['steps', 'done', 'total'], {
    steps: {
      type: 'array',
      items: closed(['id', 'title', 'done'], {
        id: { type: 'string' },
        title: { type: 'string' },
        done: { type: 'boolean' },
        at: isoTime,
      }),
    },
    done: { type: 'integer', minimum: 0 },
    total: { type: 'integer', minimum: 0 },
  }),
  RateLimitRequest: closed(['per_minute'], {
    per_minute: {
      oneOf: [{ type: 'integer', minimum: 1, maximum: 100_000 }, { type: 'null' }],
      description: 'Requests per minute; null switches the brake off.',
    },
  }),
  RateLimit: closed(['per_minute'], { per_minute: { oneOf: [{ type: 'integer' }, { type: 'null' }] } }),
  PayRequest: {
    type: 'object',
    description:
      "method, payment_key, leg2, and the method's own fields (all strings), each as `field` or `method.field` (the page holds every method's fields, so it sends the latter).",
    properties: {
      method: { type: 'string', enum: ['card', 'transfer', 'mobile_payment', 'wallet'] },
      payment_key: { type: 'string', maxLength: 64 },
      leg2: { type: 'string', enum: ['accredited', 'accreditation_failed'], default: 'accredited' },
    },
    additionalProperties: { type: 'string', maxLength: 256 },
  },
  // The JSON answer of a payment is ours beyond the session and its status (profiles.ts).
  PayResult: withOursRequired(
    ['outcome', 'accreditation'],
    closed(['session_id', 'status', 'outcome', 'accreditation'], {
      session_id: { type: 'string' },
      status: { type: 'string', enum: ['pending', 'paid', 'failed', 'expired'] },
      outcome: { type: 'string', enum: ['paid', 'failed', 'expired'] },
      reason: { type: 'string', enum: ['insufficient_funds', 'rejected_by_issuer', 'invalid_key'] },
      accreditation: { type: 'string', enum: ['none', 'scheduled', 'accredited', 'failed'] },
    }),
  ),
  Fidelidad: closed(['version', 'differences'], {
    version: { type: 'string' },
    differences: {
      type: 'array',
      items: closed(['id', 'topic', 'production', 'simulator'], {
        id: { type: 'string' },
        topic: { type: 'string' },
        production: { type: 'string' },
        simulator: { type: 'string' },
      }),
    },
  }),
};
