import type { RecordedViolation } from './recorder.js';
import type { SuiteResult } from './run-suite.js';
import { junitDocument, xml } from '../junit.js';

// What CI reads from a suite run: identical violations grouped with a
// count (one broken field of a list answer would otherwise repeat on every
// item and every request), and JUnit XML with one test case per documented
// operation × status exercised, per violation group, per failed
// expectation and per coverage gap.

export interface ViolationGroup extends RecordedViolation {
  /** How many answers broke the document this same way. */
  count: number;
  /** Up to five of the requests that got such an answer. */
  requests: string[];
}

/** Violations that are the same (operation, status, pointer, expected, got) become one, with a count. */
export function groupViolations(violations: readonly RecordedViolation[]): ViolationGroup[] {
  const groups = new Map<string, ViolationGroup>();
  for (const violation of violations) {
    // Array indexes in a pointer name the item, not the rule: /data/7/amount is /data/*/amount.
    const pointer = violation.pointer.replace(/\/\d+(?=\/|$)/g, '/*');
    const key = JSON.stringify([violation.operation, violation.status, pointer, violation.expected, violation.got]);
    const group = groups.get(key);
    if (group) {
      group.count += 1;
      if (group.requests.length < 5 && !group.requests.includes(violation.request)) group.requests.push(violation.request);
    } else {
      groups.set(key, { ...violation, pointer, count: 1, requests: [violation.request] });
    }
  }
  return [...groups.values()];
}

/** JUnit XML of a suite run against `baseUrl`. */
export function junitSuiteReport(result: SuiteResult, baseUrl: string, seconds: number, withCoverage: boolean): string {
  const cases: string[] = [];
  const failing = new Set<string>();
  for (const group of groupViolations(result.violations)) {
    failing.add(`${group.operation} ${group.status}`);
    const detail = `${group.operation} answered ${group.status}; at ${group.pointer || '(the answer)'} expected ${group.expected}, got ${group.got}\n${group.count} answer(s), e.g.:\n${group.requests.join('\n')}`;
    cases.push(`    <testcase classname="svc-contracts.document" name="${xml(`${group.operation} ${group.status} ${group.pointer || '(answer)'}`)}">\n      <failure message="${xml(`expected ${group.expected}, got ${group.got}`)}" type="DocumentViolation">${xml(detail)}</failure>\n    </testcase>`);
  }
  for (const row of result.coverage.rows) {
    for (const { status, exercised } of row.statuses) {
      if (exercised && !failing.has(`${row.operation} ${status}`)) cases.push(`    <testcase classname="svc-contracts.document" name="${xml(`${row.operation} ${status}`)}"/>`);
    }
  }
  for (const problem of result.problems) {
    cases.push(`    <testcase classname="svc-contracts.expectations" name="${xml(problem.slice(0, 200))}">\n      <failure message="${xml(problem.slice(0, 500))}" type="FailedExpectation">${xml(problem)}</failure>\n    </testcase>`);
  }
  if (withCoverage) {
    for (const gap of result.coverage.gaps) {
      cases.push(`    <testcase classname="svc-contracts.coverage" name="${xml(gap)}">\n      <failure message="not exercised and not listed with a reason" type="CoverageGap"/>\n    </testcase>`);
    }
  }
  const failures = cases.filter((c) => c.includes('<failure')).length;
  return junitDocument({ name: 'svc-contracts', suite: `contract suite against ${baseUrl}`, seconds, failures, skipped: 0 }, cases);
}
