import { isDeepStrictEqual } from 'node:util';
import { verifyWebhook } from '../../webhook-signature.js';
import type { Expectation } from './scenario-format.js';

// Whether an answer is what a step expects, each difference in a sentence
// that says what was expected and what came.

export interface ScenarioAnswer {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON, or the text when it is not JSON. */
  body: unknown;
}

const shown = (value: unknown) => JSON.stringify(value);

/** What `answer` breaks of `expected`, each in a sentence. */
export function check(answer: ScenarioAnswer, expected: Expectation | undefined): string[] {
  if (!expected) return [];
  const problems: string[] = [];
  const body = answer.body as { code?: unknown; message?: unknown } | undefined;
  const statuses = expected.status === undefined ? [] : [expected.status].flat();
  if (statuses.length > 0 && !statuses.includes(answer.status)) {
    const why = body && typeof body === 'object' && body.code ? ` (${String(body.code)}: ${String(body.message)})` : '';
    problems.push(`expected status ${statuses.join(' or ')}, got ${answer.status}${why}`);
  }
  if (expected.code !== undefined) {
    const code = body && typeof body === 'object' ? body.code : undefined;
    if (code !== expected.code)
      problems.push(`expected code ${expected.code}, got ${code === undefined ? 'none' : shown(code)}`);
  }
  for (const [pointer, value] of Object.entries(expected.fields ?? {})) {
    const found = atPointer(answer.body, pointer);
    if (!found.present) problems.push(`expected ${pointer} to be ${shown(value)}, but the answer has no ${pointer}`);
    else if (!isDeepStrictEqual(found.value, value))
      problems.push(`expected ${pointer} to be ${shown(value)}, got ${shown(found.value)}`);
  }
  for (const [pointer, allowed] of Object.entries(expected.oneOf ?? {})) {
    const found = atPointer(answer.body, pointer);
    const listed = allowed.map(shown).join(' or ');
    if (!found.present) problems.push(`expected ${pointer} to be ${listed}, but the answer has no ${pointer}`);
    else if (!allowed.some((value) => isDeepStrictEqual(found.value, value)))
      problems.push(`expected ${pointer} to be ${listed}, got ${shown(found.value)}`);
  }
  for (const pointer of expected.absent ?? []) {
    const found = atPointer(answer.body, pointer);
    if (found.present) problems.push(`expected no ${pointer}, got ${shown(found.value)}`);
  }
  for (const [name, wanted] of Object.entries(expected.headers ?? {})) {
    const value = answer.headers[name];
    if (wanted === true && value === undefined) problems.push(`expected a header ${name}, there is none`);
    else if (wanted === false && value !== undefined) problems.push(`expected no header ${name}, got ${shown(value)}`);
    else if (typeof wanted === 'string' && value !== wanted)
      problems.push(
        `expected header ${name} to be ${shown(wanted)}, got ${value === undefined ? 'none' : shown(value)}`,
      );
  }
  const text = typeof answer.body === 'string' ? answer.body : shown(answer.body ?? '');
  for (const wanted of expected.contains ?? [])
    if (!text.includes(wanted)) problems.push(`expected the answer to contain ${shown(wanted)}`);
  if (expected.sequence) problems.push(...checkSequence(answer.body, expected.sequence));
  if (expected.signed) problems.push(...checkSigned(answer.body, expected.signed));
  return problems;
}

function listAt(document: unknown, pointer: string): unknown[] | string {
  const found = atPointer(document, pointer);
  if (!found.present) return `the answer has no ${pointer}`; // '' (the whole body) is always there
  if (!Array.isArray(found.value)) return `${pointer || 'the body'} is not a list`;
  return found.value;
}

function checkSequence(document: unknown, sequence: NonNullable<Expectation['sequence']>): string[] {
  const list = listAt(document, sequence.list);
  if (typeof list === 'string') return [`expected a sequence at ${sequence.list}, but ${list}`];
  const ordered = sequence.newestFirst ? [...list].reverse() : list;
  const values = ordered.map((item) => atPointer(item, sequence.item).value);
  const compared = sequence.begins ? values.slice(0, sequence.equals.length) : values;
  return isDeepStrictEqual(compared, sequence.equals)
    ? []
    : [
        `expected ${sequence.list} (each ${sequence.item}, oldest first) to ${sequence.begins ? 'begin with' : 'be'} ${shown(sequence.equals)}, got ${shown(values)}`,
      ];
}

/** Each webhook kept as the trace's webhook.received and a receiver's inbox keep it: the raw body, the headers, the signature. */
function checkSigned(document: unknown, signed: NonNullable<Expectation['signed']>): string[] {
  const list = listAt(document, signed.list);
  if (typeof list === 'string') return [`expected signed webhooks at ${signed.list}, but ${list}`];
  const problems: string[] = [];
  const atLeast = signed.atLeast ?? 1;
  if (list.length < atLeast)
    problems.push(`expected at least ${atLeast} webhooks at ${signed.list}, got ${list.length}`);
  list.forEach((item, index) => {
    const { raw_body, headers } = (item ?? {}) as { raw_body?: unknown; headers?: Record<string, string> };
    if (typeof raw_body !== 'string' || typeof headers !== 'object' || headers === null) {
      problems.push(`${signed.list}/${index} is not a webhook as received (raw_body and headers)`);
      return;
    }
    // Valid means signed with this secret; the receiver's staleness limit is its own choice, not checked here.
    const verdict = verifyWebhook({ rawBody: raw_body, headers, secret: signed.secret, toleranceSeconds: Infinity });
    if (!verdict.ok) problems.push(`expected ${signed.list}/${index} to carry a valid signature: ${verdict.reason}`);
  });
  return problems;
}

/** The value at a JSON pointer (RFC 6901), and whether there is one. */
export function atPointer(document: unknown, pointer: string): { present: boolean; value?: unknown } {
  if (pointer === '') return { present: true, value: document };
  let value: unknown = document;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof value !== 'object' || value === null || !(key in value)) return { present: false };
    value = (value as Record<string, unknown>)[key];
  }
  return { present: true, value };
}
