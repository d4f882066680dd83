import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';

// What a scenario file holds: ordered steps against the interface, each a
// request (as the merchant with a token, as a terminal signing it, or
// anonymous), values captured from answers and used by later steps as
// ${name.field}, groups of requests sent together (each after its own
// delay: a race as data), and what each answer must be. JSON, checked
// against the schema below before anything is sent.

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A terminal a request is signed as (addendum §2): its serial number and secret, usually captured. */
export interface SignAs {
  serialNumber: string;
  secret: string;
}

export interface ScenarioRequest {
  method: Method;
  /** Path and query, after ${…} substitution. */
  path: string;
  json?: unknown;
  /** A bearer token (an account's API key, usually captured). */
  token?: string;
  signAs?: SignAs;
}

/** What an answer must be; every entry given is checked. */
export interface Expectation {
  status?: number;
  /** The error body's `code`. */
  code?: string;
  /** Values at JSON pointers into the answer's body. */
  fields?: Record<string, unknown>;
  /** At each JSON pointer, one of the values listed (a race whose winner may be either side). */
  oneOf?: Record<string, unknown[]>;
}

export interface RequestStep {
  name: string;
  /** What to send; or `resend`, the name of an earlier step whose request goes again byte for byte (its signature too). */
  request?: ScenarioRequest;
  resend?: string;
  /** Within a group sent together: how long after the group starts this request is sent. */
  delayMs?: number;
  /** The answer's body is kept under this name for later steps. */
  capture?: string;
  expect?: Expectation;
}

/** Requests sent at once (each after its own delay), then each answer checked. */
export interface TogetherStep {
  name: string;
  together: RequestStep[];
}

export type Step = RequestStep | TogetherStep;

/** What a scenario relies on beyond the interface itself: skipped under the interface profile. */
export type Requirement = 'control-plane';

export interface Scenario {
  description: string;
  requires?: Requirement[];
  steps: Step[];
}

const requestStep = {
  type: 'object',
  required: ['name'],
  oneOf: [{ required: ['request'] }, { required: ['resend'] }],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1 },
    request: {
      type: 'object',
      required: ['method', 'path'],
      additionalProperties: false,
      properties: {
        method: { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
        path: { type: 'string', pattern: '^/' },
        json: {},
        token: { type: 'string' },
        signAs: {
          type: 'object',
          required: ['serialNumber', 'secret'],
          additionalProperties: false,
          properties: { serialNumber: { type: 'string' }, secret: { type: 'string' } },
        },
      },
    },
    resend: { type: 'string', minLength: 1 },
    delayMs: { type: 'integer', minimum: 0, maximum: 60_000 },
    capture: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_]*$' },
    expect: {
      type: 'object',
      additionalProperties: false,
      properties: {
        status: { type: 'integer', minimum: 100, maximum: 599 },
        code: { type: 'string' },
        fields: { type: 'object', propertyNames: { pattern: '^(/.*)?$' } },
        oneOf: {
          type: 'object',
          propertyNames: { pattern: '^(/.*)?$' },
          additionalProperties: { type: 'array', minItems: 1 },
        },
      },
    },
  },
} as const;

/** The JSON Schema of a scenario file (`svc-scenario schema` prints it). */
export const scenarioSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://svc-pos-sim.example/scenario.schema.json',
  title: 'svc-pos-sim scenario',
  type: 'object',
  required: ['description', 'steps'],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    description: { type: 'string', minLength: 1 },
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
            properties: {
              name: { type: 'string', minLength: 1 },
              together: { type: 'array', minItems: 2, items: requestStep },
            },
          },
        ],
      },
    },
  },
} as const;

const validate = new Ajv2020({ allErrors: true, strict: false }).compile<Scenario>(scenarioSchema);

/** A scenario file that is not valid JSON or not a scenario: what is wrong, and where. */
export class ScenarioFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file}: ${problems.join('; ')}`);
  }
}

/** The scenario in `text`, or a ScenarioFileError naming the line (bad JSON) or the JSON pointer (not a scenario). */
export function parseScenario(file: string, text: string): Scenario {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ScenarioFileError(file, [jsonErrorWhere(text, (error as Error).message)]);
  }
  if (validate(value)) return value;
  throw new ScenarioFileError(file, mostTelling(validate.errors ?? [], value));
}

/** JSON.parse's message, with the line and column its position falls on. */
function jsonErrorWhere(text: string, message: string): string {
  const position = /position (\d+)/.exec(message);
  if (!position) return `not JSON: ${message}`;
  const before = text.slice(0, Number(position[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `not JSON at line ${line}, column ${column}: ${message}`;
}

/**
 * The errors worth reading: a step that matches neither shape of `oneOf`
 * yields errors from both; only those of the shape it meant (a group when
 * it has `together`, a request otherwise) are kept.
 */
function mostTelling(errors: ErrorObject[], value: unknown): string[] {
  const steps = (value as { steps?: unknown[] } | null)?.steps;
  const meant = errors.filter((error) => {
    const branch = /\/oneOf\/(\d)\//.exec(error.schemaPath)?.[1];
    if (error.keyword === 'oneOf') return false;
    if (branch === undefined) return true;
    const index = Number(/^\/steps\/(\d+)/.exec(error.instancePath)?.[1]);
    const step = Array.isArray(steps) ? steps[index] : undefined;
    const isGroup = typeof step === 'object' && step !== null && 'together' in step;
    return branch === (isGroup ? '1' : '0');
  });
  const shown = (meant.length > 0 ? meant : errors).map((error) => {
    const params = error.params as { additionalProperty?: string; allowedValues?: unknown[] };
    const detail = params.additionalProperty
      ? ` (${params.additionalProperty})`
      : params.allowedValues
        ? ` (${params.allowedValues.join(', ')})`
        : '';
    return `${error.instancePath || '/'} ${error.message ?? 'is not allowed'}${detail}`;
  });
  // A step with neither: one sentence, not one for each of the two it may have.
  const either = new Set(
    shown
      .filter((line) => line.endsWith("must have required property 'request'"))
      .map((line) => line.slice(0, line.indexOf(' ')))
      .filter((path) => shown.includes(`${path} must have required property 'resend'`)),
  );
  const merged = shown.flatMap((line) => {
    const path = line.slice(0, line.indexOf(' '));
    if (!either.has(path) || !/must have required property '(request|resend)'$/.test(line)) return [line];
    return line.endsWith("'request'") ? [`${path} must have request or resend`] : [];
  });
  return [...new Set(merged)].slice(0, 8);
}

export const isTogether = (step: Step): step is TogetherStep => 'together' in step;
