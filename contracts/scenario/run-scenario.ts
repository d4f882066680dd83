import { isDeepStrictEqual } from 'node:util';
import { signPosRequest } from '../clients/pos-client.js';
import { interpolate, UnknownValueError } from './interpolate.js';
import {
  isTogether,
  type Expectation,
  type RequestStep,
  type Scenario,
  type ScenarioRequest,
} from './scenario-format.js';

// Plays one scenario against a deployment of the interface: its steps in
// order, a group's requests at once (each after its own delay), each answer
// checked against the step's expectations and captured for later steps.
// The first step that fails ends the scenario: later ones would be built on
// values it did not give.

export type Profile = 'strict' | 'interface';

export interface StepOutcome {
  name: string;
  /** METHOD path, as sent. */
  request: string;
  status: number;
  problems: string[];
  /** The answer's body, shortened, when the step failed. */
  answer?: string;
}

export interface ScenarioOutcome {
  file: string;
  description: string;
  /** Why it was not played (a requirement the profile leaves out). */
  skipped?: string;
  steps: StepOutcome[];
  ok: boolean;
  ms: number;
}

export interface RunOptions {
  baseUrl: string;
  profile: Profile;
  /** Told to the scenario as ${seed}; ${run} tells this run apart from every other. */
  seed: number;
  timeoutMs?: number;
  /** Each step's outcome as soon as it is known. */
  onStep?: (outcome: StepOutcome) => void;
}

/** A request that got no answer at all (refused, reset, timed out). */
export class NoAnswerError extends Error {}

interface Answer {
  status: number;
  body: unknown;
}

export async function runScenario(file: string, scenario: Scenario, options: RunOptions): Promise<ScenarioOutcome> {
  const started = performance.now();
  const outcome = (steps: StepOutcome[], skipped?: string): ScenarioOutcome => ({
    file,
    description: scenario.description,
    ...(skipped ? { skipped } : {}),
    steps,
    ok: steps.every((step) => step.problems.length === 0),
    ms: performance.now() - started,
  });
  if (options.profile === 'interface' && scenario.requires?.length)
    return outcome([], `needs ${scenario.requires.join(', ')}, which the interface profile leaves out`);

  const values: Record<string, unknown> = {
    run: `${options.seed}x${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`,
    seed: options.seed,
    now: new Date().toISOString(),
  };
  const steps: StepOutcome[] = [];
  const sent = new Map<string, Prepared>();
  for (const step of scenario.steps) {
    const group = isTogether(step) ? step.together : [step];
    let played: StepOutcome[];
    try {
      played = await Promise.all(group.map((each) => playStep(each, values, sent, options)));
    } catch (error) {
      if (!(error instanceof UnknownValueError)) throw error;
      played = [{ name: step.name, request: '(not sent)', status: 0, problems: [error.message] }];
    }
    for (const each of played) {
      steps.push(each);
      options.onStep?.(each);
    }
    if (played.some((each) => each.problems.length > 0)) break;
  }
  return outcome(steps);
}

/** A request as it goes on the wire, kept by step name for a later `resend`. */
interface Prepared {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

async function playStep(
  step: RequestStep,
  values: Record<string, unknown>,
  sentBefore: Map<string, Prepared>,
  options: RunOptions,
): Promise<StepOutcome> {
  const expected = step.expect ? interpolate(step.expect, values) : undefined;
  let prepared: Prepared;
  if (step.resend !== undefined) {
    const earlier = sentBefore.get(step.resend);
    if (!earlier)
      return {
        name: step.name,
        request: '(not sent)',
        status: 0,
        problems: [`no earlier step named "${step.resend}" sent a request`],
      };
    prepared = earlier;
  } else prepared = prepare(interpolate(step.request!, values));
  if (step.delayMs) await new Promise((resolve) => setTimeout(resolve, step.delayMs));
  const sent = `${prepared.method} ${prepared.path}`;
  sentBefore.set(step.name, prepared);
  const answer = await deliver(prepared, options);
  if (step.capture) values[step.capture] = answer.body;
  const problems = check(answer, expected);
  const excerpt = problems.length > 0 ? shortened(answer.body) : undefined;
  return { name: step.name, request: sent, status: answer.status, problems, ...(excerpt ? { answer: excerpt } : {}) };
}

/** A body as one line of at most 300 characters. */
function shortened(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}

/** The request's body, headers and signature, made now (a signature carries the time it is made). */
function prepare(request: ScenarioRequest): Prepared {
  const body = request.json === undefined ? undefined : JSON.stringify(request.json);
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (request.token) headers.authorization = `Bearer ${request.token}`;
  if (request.signAs)
    Object.assign(
      headers,
      signPosRequest({
        secret: request.signAs.secret,
        method: request.method,
        url: request.path,
        ...(body !== undefined ? { body } : {}),
      }),
    );
  return { method: request.method, path: request.path, headers, ...(body !== undefined ? { body } : {}) };
}

async function deliver(request: Prepared, options: RunOptions): Promise<Answer> {
  let response: Response;
  try {
    response = await fetch(new URL(request.path, options.baseUrl), {
      method: request.method,
      headers: request.headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new NoAnswerError(
      `${options.baseUrl} did not answer (${cause?.code ?? cause?.message ?? (error as Error).message})`,
    );
  }
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: kept as text, which expectations on fields then do not find.
  }
  return { status: response.status, body: parsed };
}

/** What `answer` breaks of `expected`, each in a sentence. */
export function check(answer: Answer, expected: Expectation | undefined): string[] {
  if (!expected) return [];
  const problems: string[] = [];
  const body = answer.body as { code?: unknown; message?: unknown } | undefined;
  if (expected.status !== undefined && answer.status !== expected.status) {
    const why = body && typeof body === 'object' && body.code ? ` (${String(body.code)}: ${String(body.message)})` : '';
    problems.push(`expected status ${expected.status}, got ${answer.status}${why}`);
  }
  if (expected.code !== undefined) {
    const code = body && typeof body === 'object' ? body.code : undefined;
    if (code !== expected.code)
      problems.push(`expected code ${expected.code}, got ${code === undefined ? 'none' : JSON.stringify(code)}`);
  }
  for (const [pointer, value] of Object.entries(expected.fields ?? {})) {
    const found = atPointer(answer.body, pointer);
    if (!found.present)
      problems.push(`expected ${pointer} to be ${JSON.stringify(value)}, but the answer has no ${pointer}`);
    else if (!isDeepStrictEqual(found.value, value))
      problems.push(`expected ${pointer} to be ${JSON.stringify(value)}, got ${JSON.stringify(found.value)}`);
  }
  for (const [pointer, allowed] of Object.entries(expected.oneOf ?? {})) {
    const found = atPointer(answer.body, pointer);
    const listed = allowed.map((value) => JSON.stringify(value)).join(' or ');
    if (!found.present) problems.push(`expected ${pointer} to be ${listed}, but the answer has no ${pointer}`);
    else if (!allowed.some((value) => isDeepStrictEqual(found.value, value)))
      problems.push(`expected ${pointer} to be ${listed}, got ${JSON.stringify(found.value)}`);
  }
  return problems;
}

/** The value at a JSON pointer (RFC 6901), and whether there is one. */
function atPointer(document: unknown, pointer: string): { present: boolean; value?: unknown } {
  if (pointer === '') return { present: true, value: document };
  let value: unknown = document;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof value !== 'object' || value === null || !(key in value)) return { present: false };
    value = (value as Record<string, unknown>)[key];
  }
  return { present: true, value };
}
