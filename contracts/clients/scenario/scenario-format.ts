import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { LineCounter, parseDocument } from 'yaml';
import { scenarioSchema } from './scenario-schema.js';

export { scenarioSchema };

// What a scenario file holds: ordered steps against the interface, each a
// request (as the merchant with a token, as a terminal signing it, or
// anonymous), values captured from answers and used by later steps as
// ${name.field}, groups of requests sent together (each after its own
// delay: a race as data), receivers of the runner's own that webhooks are
// delivered to (through the relay), and what each answer must be. JSON or
// YAML (a file named .yaml or .yml), checked against the schema
// (scenario-schema.ts) before anything is sent.

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A terminal a request is signed as (INTERFACE.md §2): its serial number and secret, usually captured. */
export interface SignAs {
  serialNumber: string;
  secret: string;
  /** Signed as at this time (ISO 8601) rather than now: a stale signature. */
  at?: string;
}

export interface ScenarioRequest {
  method: Method;
  /** Path and query, after ${…} substitution. */
  path: string;
  json?: unknown;
  /** A form, sent as application/x-www-form-urlencoded (the payment page's). */
  form?: Record<string, string>;
  /** A body sent as these characters, labelled JSON (malformed JSON, a body as a client really wrote it). */
  text?: string;
  /** A bearer token (an account's API key or console token, usually captured). */
  token?: string;
  signAs?: SignAs;
}

/** What an answer must be; every entry given is checked. */
export interface Expectation {
  /** The status, or the statuses allowed. */
  status?: number | number[];
  /** The error body's `code`. */
  code?: string;
  /** Values at JSON pointers into the answer's body. */
  fields?: Record<string, unknown>;
  /** JSON pointers the answer must not have (a secret a list must not show). */
  absent?: string[];
  /** At each JSON pointer, one of the values listed (a race whose winner may be either side). */
  oneOf?: Record<string, unknown[]>;
  /** Answer headers (names in lower case): a value it must equal, true for present, false for absent. */
  headers?: Record<string, string | boolean>;
  /** Text the answer's body holds (an HTML page). */
  contains?: string[];
  /** The list at `list`, each item's value at `item`, oldest first: exactly these, or with `begins` these first (the trace lists newest first: say so). */
  sequence?: { list: string; item: string; equals: unknown[]; newestFirst?: boolean; begins?: boolean };
  /** Every webhook in the list at `list` (items with raw_body, headers and signature, as the trace and a receiver keep them) carries a valid signature of `secret`. */
  signed?: { list: string; secret: string; atLeast?: number };
}

/** Sent again until its expectations hold, or `withinMs` has passed (a webhook arrives, a retry is made). */
export interface Eventually {
  withinMs: number;
  everyMs?: number;
}

export interface RequestStep {
  name: string;
  /** What to send; or `resend`, the name of an earlier step whose request goes again byte for byte (its signature too). */
  request?: ScenarioRequest;
  resend?: string;
  /** Within a group sent together: how long after the group starts this request is sent… */
  delayMs?: number;
  /** …plus up to this many ms more, drawn from the run's seed. */
  jitterMs?: number;
  /** The answer's body is kept under this name for later steps. */
  capture?: string;
  expect?: Expectation;
  eventually?: Eventually;
}

/** Requests sent at once (each after its own delay), then each answer checked. */
export interface TogetherStep {
  name: string;
  together: RequestStep[];
}

/** A webhook receiver of the runner's own, on a free local port: ${capture.url}; what it got is read with `inbox`. */
export interface ReceiverStep {
  name: string;
  receiver: { capture: string; status?: number };
}

/** What a receiver of the runner's got so far, as `{ deliveries: [{ event, body, raw_body, headers, signature, idempotency_key, status }] }`, oldest first. */
export interface InboxStep {
  name: string;
  inbox: string;
  expect?: Expectation;
  eventually?: Eventually;
}

/** The relay's local end (INTERFACE.md §8): a WebSocket to the deployment that POSTs each webhook to its URL here; 101 when connected, 401 when refused. Open until the scenario ends. */
export interface RelayStep {
  name: string;
  relay: { token: string; forwardTo: string };
  expect?: { status?: number };
}

export type Step = RequestStep | TogetherStep | ReceiverStep | InboxStep | RelayStep;

/** What a scenario relies on beyond the interface itself: skipped under the interface profile. */
export type Requirement = 'control-plane';

export interface Scenario {
  description: string;
  /** The surfaces of the interface it plays (for the library's index). */
  surfaces?: string[];
  requires?: Requirement[];
  steps: Step[];
}

export const isTogether = (step: Step): step is TogetherStep => 'together' in step;
export const isReceiver = (step: Step): step is ReceiverStep => 'receiver' in step;
export const isInbox = (step: Step): step is InboxStep => 'inbox' in step;
export const isRelay = (step: Step): step is RelayStep => 'relay' in step;

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

/** The scenario in `text` (YAML when the file is named .yaml or .yml), or a ScenarioFileError naming the line (bad JSON or YAML) or the JSON pointer (not a scenario; its line too in YAML). */
export function parseScenario(file: string, text: string): Scenario {
  const { value, lineOf } = /\.ya?ml$/i.test(file) ? readYaml(file, text) : readJson(file, text);
  if (validate(value)) return value;
  // Stryker disable next-line ArrayDeclaration: Ajv sets its errors whenever validation fails
  throw new ScenarioFileError(file, mostTelling(validate.errors ?? [], value, lineOf));
}

type LineOf = (pointer: string) => number | undefined;

function readJson(file: string, text: string): { value: unknown; lineOf: LineOf } {
  try {
    return { value: JSON.parse(text), lineOf: () => undefined };
  } catch (error) {
    throw new ScenarioFileError(file, [jsonErrorWhere(text, (error as Error).message)]);
  }
}

/** YAML, which a demo operator writes by hand more easily; a pointer's line is read from the document's nodes. */
function readYaml(file: string, text: string): { value: unknown; lineOf: LineOf } {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (document.errors.length > 0)
    throw new ScenarioFileError(
      file,
      document.errors.slice(0, 3).map((error) => {
        const at = lines.linePos(error.pos[0]);
        return `not YAML at line ${at.line}, column ${at.col}: ${error.message.split('\n')[0]}`;
      }),
    );
  const lineOf: LineOf = (pointer) => {
    const path = pointer
      .split('/')
      .slice(1)
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
    const node = (path.length === 0 ? document.contents : document.getIn(path, true)) as { range?: number[] } | null;
    // Stryker disable next-line OptionalChaining: every error points at a node of the document (the value, or the object missing a key)
    return node?.range ? lines.linePos(node.range[0]!).line : undefined;
  };
  return { value: document.toJS(), lineOf };
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

/** Which of the schema's step shapes (its `oneOf` branches, in order) a step meant, by the key that names it. */
const SHAPE_KEYS = ['together', 'receiver', 'inbox', 'relay'] as const;
function shapeMeant(step: unknown): string {
  if (typeof step !== 'object' || step === null) return '0';
  const index = SHAPE_KEYS.findIndex((key) => key in step);
  return String(index + 1);
}

/**
 * The errors worth reading: a step that matches no shape of `oneOf`
 * yields errors from each; only those of the shape it meant (named by its
 * key: `together`, `receiver`, `inbox`, `relay`; a request otherwise) are kept.
 */
function mostTelling(errors: ErrorObject[], value: unknown, lineOf: LineOf): string[] {
  const steps = (value as { steps?: unknown[] } | null)?.steps;
  const meant = errors.filter((error) => {
    // Stryker disable next-line ConditionalExpression,StringLiteral,BooleanLiteral: the shown errors drop oneOf's own again below; here it only keeps `meant` to the branches
    if (error.keyword === 'oneOf') return false;
    // Stryker disable next-line Regex: a schema path always starts with #/
    const branch = /^#\/properties\/steps\/items\/oneOf\/(\d)\//.exec(error.schemaPath)?.[1];
    if (branch === undefined) return true;
    const index = Number(error.instancePath.split('/')[2]); // /steps/N/…
    const step = Array.isArray(steps) ? steps[index] : undefined;
    return branch === shapeMeant(step);
  });
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a step that fails oneOf fails the branch it meant (its key names one), so `meant` is empty only when no step failed
  const candidates = meant.length > 0 ? meant : errors;
  // Stryker disable next-line ConditionalExpression,StringLiteral,EqualityOperator,MethodExpression: `meant` holds no oneOf error, and all errors are shown only when it is empty
  const kept = candidates.filter((error) => error.keyword !== 'oneOf' || meant.length === 0);
  const shown = kept.map((error) => {
    const params = error.params as { additionalProperty?: string; allowedValues?: unknown[] };
    const detail = params.additionalProperty
      ? ` (${params.additionalProperty})`
      : params.allowedValues
        ? ` (${params.allowedValues.join(', ')})`
        : '';
    const line = lineOf(error.instancePath);
    // Stryker disable next-line StringLiteral: Ajv gives every error a message (allErrors); the fallback is for the type
    const said = error.message ?? 'is not allowed';
    return `${error.instancePath || '/'}${line ? ` (line ${line})` : ''} ${said}${detail}`;
  });
  // A request step with neither: one sentence, not one for each of the two it may have.
  // Stryker disable next-line Regex: Ajv's message ends with the property's name
  const required = / must have required property '(request|resend)'$/;
  const whereOf = (line: string) => line.replace(required, '');
  // Stryker disable next-line MethodExpression,StringLiteral: a line not about request has no 'resend' twin, so it never joins the set
  const requestLines = shown.filter((line) => line.endsWith("must have required property 'request'"));
  const either = new Set(
    requestLines.map(whereOf).filter((where) => shown.includes(`${where} must have required property 'resend'`)),
  );
  const merged = shown.flatMap((line) => {
    // Stryker disable next-line LogicalOperator: a line that is not a requirement is never in `either`
    if (!required.test(line) || !either.has(whereOf(line))) return [line];
    // Stryker disable next-line StringLiteral: the 'resend' twin merged too makes the same sentence, which the set keeps once
    return line.endsWith("'request'") ? [`${whereOf(line)} must have request or resend`] : [];
  });
  return [...new Set(merged)].slice(0, 8);
}
