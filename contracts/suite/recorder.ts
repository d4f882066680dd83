import { listOperations, openApiDocument } from '../openapi.js';
import { ResponseValidator, type Violation } from '../response-validator.js';

export interface RecordedViolation extends Violation {
  request: string;
}

/**
 * Checks every answer the suite gets against the document and remembers
 * which documented operation answered with which status, for the coverage
 * report. It never throws: a violation is recorded with its request.
 */
export class Recorder {
  readonly observed = new Map<string, Set<string>>();
  readonly violations: RecordedViolation[] = [];
  private readonly validator = new ResponseValidator();

  record(method: string, path: string, status: number, headers: Headers, text: string): Violation[] {
    const found = this.validator.check({ method, path, status, headers, text });
    for (const violation of found) this.violations.push({ ...violation, request: `${method} ${path}` });
    const operation = this.validator.operationFor(method, path);
    if (operation) this.observe(operation.operationId, status);
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
  return listOperations(openApiDocument).flatMap((entry) => Object.keys(entry.operation.responses ?? {}).map((status) => `${entry.operationId} ${status}`));
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
    statuses: Object.keys(entry.operation.responses ?? {}).map((status) => ({ status, exercised: exercisedPair(`${entry.operationId} ${status}`) })),
  }));
  return {
    total: pairs.length,
    exercised: pairs.length - missing.length,
    allowed: missing.filter((pair) => reasonFor(pair) !== undefined).map((pair) => ({ pair, reason: reasonFor(pair)! })),
    gaps: missing.filter((pair) => reasonFor(pair) === undefined),
    rows,
  };
}

export function coverageTable(report: CoverageReport): string {
  return [
    '| operation | statuses (✓ exercised, · not) |',
    '|---|---|',
    ...report.rows.map((row) => `| ${row.operation} | ${row.statuses.map((s) => `${s.exercised ? '✓' : '·'}${s.status}`).join(' ')} |`),
  ].join('\n');
}
