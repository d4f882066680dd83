import type { Probe } from './checks.js';
import { junitDocument, xml } from '../common/junit.js';
import { shellQuote } from '../common/shell-quote.js';
import { NOT_GRADED, type Grade } from './grade.js';
import { ownMs } from './host-share.js';

// The grade as a person reads it (a table, then each failure with its
// request as curl and the answer), as CI reads it (JUnit XML), and as JSON.

/**
 * A command that sends the probe's delivery again, signed anew when it runs
 * (a recorded timestamp would be stale minutes later), with the same bend:
 * the same offset from now, the same secret or another, the same headers
 * left out, the signature over the same bytes. It reads the secret from
 * $SVC_WEBHOOK_SECRET and needs node and openssl.
 */
export function curlOf(url: string, probe: Probe): string {
  const { recipe, delivery } = probe;
  const signedBody = delivery.signedBody ?? delivery.body;
  const offset = recipe.offsetMs ?? 0;
  const omitted = new Set<string>(recipe.omit ?? []);
  const headers = [`-H ${shellQuote('content-type: application/json')}`];
  if (!omitted.has('svc-timestamp')) headers.push('-H "svc-timestamp: $TS"');
  if (!omitted.has('svc-signature')) headers.push('-H "svc-signature: $SIG"');
  headers.push(`-H ${shellQuote(`idempotency-key: ${delivery.headers['idempotency-key'] ?? ''}`)}`);
  const secret = `"$SVC_WEBHOOK_SECRET"${recipe.secretSuffix ? shellQuote(recipe.secretSuffix) : ''}`;
  return [
    `TS=$(node -e ${shellQuote(`console.log(new Date(Date.now() + (${offset})).toISOString())`)});`,
    `BODY=${shellQuote(delivery.body)};`,
    signedBody === delivery.body ? 'SIGNED="$BODY";' : `SIGNED=${shellQuote(signedBody)};`,
    `SIG=$(printf '%s.%s' "$TS" "$SIGNED" | openssl dgst -sha256 -hmac ${secret} | sed 's/^.* //');`,
    ['curl -sS -X POST', shellQuote(url), ...headers, '--data-binary "$BODY"'].join(' '),
  ].join(' ');
}

const answerOf = (probe: Probe) =>
  probe.answer.status === null
    ? `no answer: ${probe.answer.error}`
    : `${probe.answer.status} in ${Math.round(probe.answer.ms)} ms${probe.withinMs !== undefined && ownMs(probe.answer, probe.hostMs) > probe.withinMs ? ` (${Math.round(ownMs(probe.answer, probe.hostMs))} ms its own, over the ${probe.withinMs} ms a delivery attempt may take; a reference receiver took ${Math.round(probe.hostMs ?? 0)} ms at the same moment on this host)` : ''}${probe.answer.body ? ` (its body: "${probe.answer.body.replace(/\s+/g, ' ').slice(0, 160)}")` : ''}`;

export function textReport(grade: Grade, url: string): string {
  const lines = [
    `receiver grade for ${grade.target}`,
    '',
    '| check | required | result | detail |',
    '|---|---|---|---|',
  ];
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
  lines.push('', ...reachLines(grade), ...grade.hints.map((hint) => `hint: ${hint}`));
  lines.push(
    `note: ${NOT_GRADED}`,
    'The curl lines sign anew when run: export SVC_WEBHOOK_SECRET=whsec_… first (they need node and openssl).',
  );
  lines.push(
    '',
    `score: ${grade.score} % (${required.filter((check) => check.outcome === 'pass').length} of ${required.length} required checks passed)`,
    grade.passed ? 'PASSED' : 'FAILED',
  );
  return `${lines.join('\n')}\n`;
}

/** Lines saying the receiver was never reached, or stopped answering, and after what. */
function reachLines(grade: Grade): string[] {
  if (grade.unreachable)
    return [`UNREACHABLE: no delivery reached the receiver (${grade.unreachable}); is it running, and at this URL?`];
  if (grade.stoppedAfter) {
    const { check, probe, reason } = grade.stoppedAfter;
    return [
      `STOPPED: the receiver answered until "${probe}" (check ${check}) and nothing after it (${reason}): did it crash? Its log around that delivery says why.`,
    ];
  }
  return [];
}

/** JUnit XML: one test case per check; a failure lists its failed deliveries with curl lines. */
export function junitReport(grade: Grade, url: string): string {
  const failures = grade.checks.filter((check) => check.outcome === 'fail' && check.required).length;
  const skipped = grade.checks.filter(
    (check) => check.outcome === 'skipped' || (check.outcome === 'fail' && !check.required),
  ).length;
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const total = grade.checks.reduce((sum, check) => sum + check.ms, 0);
  const cases = grade.checks.map((check) => {
    const open = `    <testcase classname="svc-contracts.receiver" name="${xml(`${check.id}: ${check.title}`)}" time="${seconds(check.ms)}">`;
    const detail = [
      `source: ${check.source}`,
      ...(check.note ? [check.note] : []),
      ...check.probes
        .filter((probe) => !probe.passed)
        .map((probe) => `${probe.name}: expected ${probe.expect}, got ${answerOf(probe)}\n${curlOf(url, probe)}`),
    ].join('\n');
    if (check.outcome === 'pass') return `${open}</testcase>`;
    if (check.outcome === 'skipped')
      return `${open}\n      <skipped message="${xml(check.note ?? 'skipped')}"/>\n    </testcase>`;
    if (!check.required)
      return `${open}\n      <skipped message="${xml(`advice not met: ${check.note ?? check.title}`)}"/>\n    </testcase>`;
    return `${open}\n      <failure message="${xml(check.title)}" type="ReceiverRule">${xml(detail)}</failure>\n    </testcase>`;
  });
  return junitDocument(
    { name: 'svc-contracts receiver', suite: `receiver ${grade.target}`, seconds: total / 1000, failures, skipped },
    cases,
  );
}

export function jsonReport(grade: Grade, url: string): string {
  return `${JSON.stringify(
    {
      target: grade.target,
      score: grade.score,
      passed: grade.passed,
      ...(grade.unreachable ? { unreachable: grade.unreachable } : {}),
      ...(grade.stoppedAfter ? { stopped_after: grade.stoppedAfter } : {}),
      hints: grade.hints,
      not_graded: NOT_GRADED,
      checks: grade.checks.map((check) => ({
        ...check,
        probes: check.probes.map((probe) => ({
          name: probe.name,
          expect: probe.expect,
          ...(probe.withinMs !== undefined ? { within_ms: probe.withinMs } : {}),
          ...(probe.hostMs !== undefined ? { host_ms: Math.round(probe.hostMs) } : {}),
          passed: probe.passed,
          status: probe.answer.status,
          error: probe.answer.error,
          ms: Math.round(probe.answer.ms),
          curl: curlOf(url, probe),
        })),
      })),
    },
    null,
    2,
  )}\n`;
}
