import type { RecordedViolation } from './recorder.js';
import type { SuiteResult } from './run-suite.js';
import { junitSuites, xml } from '../common/junit.js';
import { describeFailure } from './expectations.js';

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
      if (group.requests.length < 5 && !group.requests.includes(violation.request))
        group.requests.push(violation.request);
    } else {
      groups.set(key, { ...violation, pointer, count: 1, requests: [violation.request] });
    }
  }
  return [...groups.values()];
}

/** JUnit XML of a suite run against `baseUrl`: a test case per check, per document violation group, per exercised pair and coverage gap. */
export function junitSuiteReport(result: SuiteResult, baseUrl: string, seconds: number): string {
  const checks: string[] = [];
  const document: string[] = [];
  const coverage: string[] = [];
  for (const check of result.checks) {
    const name = `${check.id}: ${check.title}`;
    const open = `    <testcase classname="svc-contracts.checks" name="${xml(name)}" time="${check.seconds.toFixed(3)}">`;
    if (check.outcome === 'skipped') {
      checks.push(`${open}\n      <skipped message="${xml(check.reason ?? '')}"/>\n    </testcase>`);
      continue;
    }
    const failed = result.failures.filter((f) => f.check === check.id);
    if (failed.length === 0) {
      checks.push(open.replace(/>$/, '/>'));
      continue;
    }
    const detail = failed.map((f) => `${describeFailure(f)}${f.curl ? `\n  ${f.curl}` : ''}`).join('\n');
    checks.push(
      `${open}\n      <failure message="${xml(`${failed.length} failed expectation(s); ${describeFailure(failed[0]!)}`.slice(0, 500))}" type="FailedExpectation">${xml(`${check.source}\n${detail}`)}</failure>\n    </testcase>`,
    );
  }
  const failing = new Set<string>();
  for (const group of groupViolations(result.violations)) {
    failing.add(`${group.operation} ${group.status}`);
    const detail = `${group.operation} answered ${group.status}; at ${group.pointer || '(the answer)'} expected ${group.expected}, got ${group.got}\n${group.count} answer(s), e.g.:\n${group.requests.join('\n')}`;
    document.push(
      `    <testcase classname="svc-contracts.document" name="${xml(`${group.operation} ${group.status} ${group.pointer || '(answer)'}`)}">\n      <failure message="${xml(`expected ${group.expected}, got ${group.got}`)}" type="DocumentViolation">${xml(detail)}</failure>\n    </testcase>`,
    );
  }
  for (const row of result.coverage.rows) {
    for (const { status, exercised } of row.statuses) {
      if (exercised && !failing.has(`${row.operation} ${status}`))
        document.push(`    <testcase classname="svc-contracts.document" name="${xml(`${row.operation} ${status}`)}"/>`);
    }
  }
  if (result.coverageJudged) {
    for (const gap of result.coverage.gaps) {
      coverage.push(
        `    <testcase classname="svc-contracts.coverage" name="${xml(gap)}">\n      <failure message="not exercised and not listed with a reason" type="CoverageGap"/>\n    </testcase>`,
      );
    }
  }
  return junitSuites({ name: 'svc-contracts', seconds }, [
    { name: `contract suite against ${baseUrl} (profile ${result.profile}): ${checks.length} checks`, cases: checks },
    { name: 'the answers against the document, by operation × status', cases: document },
    { name: 'coverage gaps (operation × status never exercised, and not listed with a reason)', cases: coverage },
  ]);
}

/** Whether the run failed: a violation, a failed expectation, or (on a whole strict run) a coverage gap. */
export function suiteFailed(result: SuiteResult): boolean {
  return (
    result.violations.length > 0 ||
    result.failures.length > 0 ||
    (result.coverageJudged && result.coverage.gaps.length > 0)
  );
}
