import type { Probe } from './checks.js';
import { junitDocument, xml } from '../junit.js';
import { shellQuote } from '../shell-quote.js';
import type { Grade } from './grade.js';

// The grade as a person reads it (a table, then each failure with its
// request as curl and the answer), as CI reads it (JUnit XML), and as JSON.

/** A curl command that sends the probe's delivery again, byte for byte. */
export function curlOf(url: string, probe: Probe): string {
  const headers = Object.entries(probe.delivery.headers).map(([name, value]) => `-H ${shellQuote(`${name}: ${value}`)}`);
  return ['curl -sS -X POST', shellQuote(url), ...headers, '--data-binary', shellQuote(probe.delivery.body)].join(' ');
}

const answerOf = (probe: Probe) =>
  probe.answer.status === null ? `no answer: ${probe.answer.error}` : `${probe.answer.status} in ${Math.round(probe.answer.ms)} ms${probe.answer.body ? `: ${probe.answer.body.replace(/\s+/g, ' ').slice(0, 160)}` : ''}`;

export function textReport(grade: Grade, url: string): string {
  const lines = [`receiver grade for ${grade.target}`, '', '| check | required | result | detail |', '|---|---|---|---|'];
  for (const check of grade.checks) {
    const failed = check.probes.filter((probe) => !probe.passed).length;
    const detail = check.note ?? `${check.probes.length - failed} of ${check.probes.length} deliveries as expected`;
    lines.push(`| ${check.id} | ${check.required ? 'yes' : 'advice'} | ${check.outcome.toUpperCase()} | ${detail} |`);
  }
  for (const check of grade.checks.filter((each) => each.outcome === 'fail')) {
    lines.push('', `${check.id}: ${check.title}`, `  source: ${check.source}`);
    if (check.note) lines.push(`  ${check.note}`);
    for (const probe of check.probes.filter((each) => !each.passed)) {
      lines.push(`  - ${probe.name}: expected ${probe.expect}, got ${answerOf(probe)}`, `    ${curlOf(url, probe)}`);
    }
  }
  const required = grade.checks.filter((check) => check.required);
  lines.push('', `score: ${grade.score} % (${required.filter((check) => check.outcome === 'pass').length} of ${required.length} required checks passed)`, grade.passed ? 'PASSED' : 'FAILED');
  return `${lines.join('\n')}\n`;
}


/** JUnit XML: one test case per check; a failure lists its failed deliveries with curl lines. */
export function junitReport(grade: Grade, url: string): string {
  const failures = grade.checks.filter((check) => check.outcome === 'fail' && check.required).length;
  const skipped = grade.checks.filter((check) => check.outcome === 'skipped' || (check.outcome === 'fail' && !check.required)).length;
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const total = grade.checks.reduce((sum, check) => sum + check.ms, 0);
  const cases = grade.checks.map((check) => {
    const open = `    <testcase classname="svc-contracts.receiver" name="${xml(`${check.id}: ${check.title}`)}" time="${seconds(check.ms)}">`;
    const detail = [`source: ${check.source}`, ...(check.note ? [check.note] : []), ...check.probes.filter((probe) => !probe.passed).map((probe) => `${probe.name}: expected ${probe.expect}, got ${answerOf(probe)}\n${curlOf(url, probe)}`)].join('\n');
    if (check.outcome === 'pass') return `${open}</testcase>`;
    if (check.outcome === 'skipped') return `${open}\n      <skipped message="${xml(check.note ?? 'skipped')}"/>\n    </testcase>`;
    if (!check.required) return `${open}\n      <skipped message="${xml(`advice not met: ${check.note ?? check.title}`)}"/>\n    </testcase>`;
    return `${open}\n      <failure message="${xml(check.title)}" type="ReceiverRule">${xml(detail)}</failure>\n    </testcase>`;
  });
  return junitDocument({ name: 'svc-contracts receiver', suite: `receiver ${grade.target}`, seconds: total / 1000, failures, skipped }, cases);
}

export function jsonReport(grade: Grade, url: string): string {
  return `${JSON.stringify(
    {
      target: grade.target,
      score: grade.score,
      passed: grade.passed,
      checks: grade.checks.map((check) => ({
        ...check,
        probes: check.probes.map((probe) => ({ name: probe.name, expect: probe.expect, passed: probe.passed, status: probe.answer.status, error: probe.answer.error, ms: Math.round(probe.answer.ms), curl: curlOf(url, probe) })),
      })),
    },
    null,
    2,
  )}\n`;
}
