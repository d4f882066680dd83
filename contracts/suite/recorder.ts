import { listOperations, openApiDocument } from '../openapi.js';
import { documentFor, oursOnlyOperations, type Profile } from '../profiles.js';
import { ResponseValidator, type ObservedResponse, type Violation } from '../response-validator.js';

export interface RecordedViolation extends Violation {
  request: string;
}

export type ObservedAnswer = ObservedResponse;

/** Answers kept for checking against the served document at the end; bodies larger than this are not kept. */
const KEPT_ANSWERS = 5000;
const KEPT_BODY_BYTES = 256 * 1024;

/**
 * Checks every answer the suite gets against the document (as the profile
 * reads it) and remembers which documented operation answered with which
 * status, for the coverage report. It never throws: a violation is
 * recorded with its request. In `interface`, answers of operations that
 * are ours alone are not judged.
 */
export class Recorder {
  readonly observed = new Map<string, Set<string>>();
  readonly violations: RecordedViolation[] = [];
  /** The answers seen, for the served document's check. */
  readonly answers: ObservedAnswer[] = [];
  private readonly validator: ResponseValidator;
  /** Names operations by our whole document, in every profile. */
  private readonly locator: ResponseValidator;
  private readonly oursOnly: Set<string>;

  constructor(readonly profile: Profile = 'strict') {
    this.locator = new ResponseValidator(openApiDocument);
    this.validator = profile === 'strict' ? this.locator : new ResponseValidator(documentFor(profile, openApiDocument));
    this.oursOnly = profile === 'strict' ? new Set() : oursOnlyOperations(openApiDocument);
  }

  /** The documented operation a request lands on, if any. */
  operationFor(method: string, path: string): string {
    return this.locator.operationFor(method, path)?.operationId ?? '';
  }

  record(method: string, path: string, status: number, headers: Headers, text: string): Violation[] {
    const operation = this.locator.operationFor(method, path);
    if (operation) this.observe(operation.operationId, status);
    if (this.answers.length < KEPT_ANSWERS && text.length <= KEPT_BODY_BYTES)
      this.answers.push({ method, path, status, headers, text });
    if (operation && this.oursOnly.has(operation.operationId)) return [];
    const found = this.validator.check({ method, path, status, headers, text });
    for (const violation of found) this.violations.push({ ...violation, request: `${method} ${path}` });
    return found;
  }

  /** For answers the suite sees without fetch (the WebSocket upgrade). */
  observe(operationId: string, status: number): void {
    let statuses = this.observed.get(operationId);
    if (!statuses) this.observed.set(operationId, (statuses = new Set()));
    statuses.add(String(status));
  }
}

/** Every documented operation × status, as "operationId status". */
export function documentedPairs(): string[] {
  return listOperations(openApiDocument).flatMap((entry) =>
    Object.keys(entry.operation.responses ?? {}).map((status) => `${entry.operationId} ${status}`),
  );
}

export interface CoverageReport {
  total: number;
  exercised: number;
  allowed: Array<{ pair: string; reason: string }>;
  gaps: string[];
  rows: Array<{ operation: string; statuses: Array<{ status: string; exercised: boolean }> }>;
}

export function coverage(recorder: Recorder, allowList: Record<string, string>): CoverageReport {
  const pairs = documentedPairs();
  const exercisedPair = (pair: string) => {
    const [operation, status] = pair.split(' ') as [string, string];
    return recorder.observed.get(operation)?.has(status) ?? false;
  };
  const missing = pairs.filter((pair) => !exercisedPair(pair));
  // "* 503" in the allow-list covers that status on every operation.
  const reasonFor = (pair: string) => allowList[pair] ?? allowList[`* ${pair.split(' ')[1]}`];
  const rows = listOperations(openApiDocument).map((entry) => ({
    operation: entry.operationId,
    statuses: Object.keys(entry.operation.responses ?? {}).map((status) => ({
      status,
      exercised: exercisedPair(`${entry.operationId} ${status}`),
    })),
  }));
  return {
    total: pairs.length,
    exercised: pairs.length - missing.length,
    allowed: missing
      .filter((pair) => reasonFor(pair) !== undefined)
      .map((pair) => ({ pair, reason: reasonFor(pair)! })),
    gaps: missing.filter((pair) => reasonFor(pair) === undefined),
    rows,
  };
}

export function coverageTable(report: CoverageReport): string {
  return [
    '| operation | statuses (✓ exercised, · not) |',
    '|---|---|',
    ...report.rows.map(
      (row) => `| ${row.operation} | ${row.statuses.map((s) => `${s.exercised ? '✓' : '·'}${s.status}`).join(' ')} |`,
    ),
  ].join('\n');
}
