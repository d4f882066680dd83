// The JSON Schema of a scenario file (scenario-format.ts says what each
// part means; `svc-scenario schema` prints this, and the package carries it
// as fixtures/scenario.schema.json for editors). The step shapes are the
// branches of one `oneOf`, in the order of their naming keys: a request,
// `together`, `receiver`, `inbox`, `relay`.

const pointer = { type: 'string', pattern: '^(/.*)?$' } as const;
const capture = { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_]*$' } as const;
const name = { type: 'string', minLength: 1 } as const;
const status = { type: 'integer', minimum: 100, maximum: 599 } as const;

const expectation = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { oneOf: [status, { type: 'array', items: status, minItems: 1 }] },
    code: { type: 'string' },
    fields: { type: 'object', propertyNames: pointer },
    absent: { type: 'array', items: pointer, minItems: 1 },
    oneOf: { type: 'object', propertyNames: pointer, additionalProperties: { type: 'array', minItems: 1 } },
    headers: {
      type: 'object',
      propertyNames: { pattern: '^[a-z0-9-]+$' },
      additionalProperties: { type: ['string', 'boolean'] },
    },
    contains: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 },
    sequence: {
      type: 'object',
      required: ['list', 'item', 'equals'],
      additionalProperties: false,
      properties: {
        list: pointer,
        item: pointer,
        equals: { type: 'array' },
        newestFirst: { type: 'boolean' },
        begins: { type: 'boolean' },
      },
    },
    signed: {
      type: 'object',
      required: ['list', 'secret'],
      additionalProperties: false,
      properties: { list: pointer, secret: { type: 'string' }, atLeast: { type: 'integer', minimum: 1 } },
    },
  },
} as const;

const eventually = {
  type: 'object',
  required: ['withinMs'],
  additionalProperties: false,
  properties: {
    withinMs: { type: 'integer', minimum: 1, maximum: 120_000 },
    everyMs: { type: 'integer', minimum: 10, maximum: 10_000 },
  },
} as const;

const requestStep = {
  type: 'object',
  required: ['name'],
  oneOf: [{ required: ['request'] }, { required: ['resend'] }],
  additionalProperties: false,
  properties: {
    name,
    request: {
      type: 'object',
      required: ['method', 'path'],
      additionalProperties: false,
      // One body at most.
      not: { anyOf: [{ required: ['json', 'form'] }, { required: ['json', 'text'] }, { required: ['form', 'text'] }] },
      properties: {
        method: { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
        path: { type: 'string', pattern: '^/' },
        json: {},
        form: { type: 'object', additionalProperties: { type: 'string' } },
        text: { type: 'string' },
        token: { type: 'string' },
        signAs: {
          type: 'object',
          required: ['serialNumber', 'secret'],
          additionalProperties: false,
          properties: { serialNumber: { type: 'string' }, secret: { type: 'string' }, at: { type: 'string' } },
        },
      },
    },
    resend: name,
    delayMs: { type: 'integer', minimum: 0, maximum: 60_000 },
    jitterMs: { type: 'integer', minimum: 0, maximum: 60_000 },
    capture,
    expect: expectation,
    eventually,
  },
} as const;

export const scenarioSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://svc-pos-sim.example/scenario.schema.json',
  title: 'svc-pos-sim scenario',
  type: 'object',
  required: ['description', 'steps'],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    description: name,
    surfaces: { type: 'array', items: name, uniqueItems: true },
    requires: { type: 'array', items: { enum: ['control-plane'] }, uniqueItems: true },
    steps: {
      type: 'array',
      minItems: 1,
      items: {
        oneOf: [
          requestStep,
          {
            type: 'object',
            required: ['name', 'together'],
            additionalProperties: false,
            properties: { name, together: { type: 'array', minItems: 2, items: requestStep } },
          },
          {
            type: 'object',
            required: ['name', 'receiver'],
            additionalProperties: false,
            properties: {
              name,
              receiver: {
                type: 'object',
                required: ['capture'],
                additionalProperties: false,
                properties: { capture, status },
              },
            },
          },
          {
            type: 'object',
            required: ['name', 'inbox'],
            additionalProperties: false,
            properties: { name, inbox: capture, expect: expectation, eventually },
          },
          {
            type: 'object',
            required: ['name', 'relay'],
            additionalProperties: false,
            properties: {
              name,
              relay: {
                type: 'object',
                required: ['token', 'forwardTo'],
                additionalProperties: false,
                properties: { token: { type: 'string' }, forwardTo: { type: 'string' } },
              },
              expect: {
                type: 'object',
                additionalProperties: false,
                properties: { status: { enum: [101, 401] } },
              },
            },
          },
        ],
      },
    },
  },
} as const;
