#!/usr/bin/env node
// svc-contracts: the contract suite against any deployment of the interface.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { profiles, type Profile } from '../profiles.js';
import { receiverCli } from '../receiver/cli.js';
import { API_TOKEN, readCredential, type CredentialKind } from '../cli/credential.js';
import { openChoices } from '../open-choices.js';
import { checkCatalogue, skipReason, unknownNames } from './checks/catalogue.js';
import { describeFailure } from './expectations.js';
import { coverageTable } from './recorder.js';
import { runSuite } from './run-suite.js';
import { EXIT_NO_ANSWER, noAnswerFrom } from '../cli/no-answer.js';
import { noAnswer } from './suite-client.js';
import { groupViolations, junitSuiteReport, suiteFailed } from './suite-report.js';
import { prepareReportFile } from '../cli/report-file.js';
import { versionLine } from '../cli/version.js';
import { durationOf } from '../cli/duration.js';
import { usage } from './usage.js';
import { parseErrorInWords } from '../cli/parse-words.js';

// svc-contracts receiver …: grade a webhook receiver (contracts/receiver/).
if (process.argv[2] === 'receiver') process.exit(await receiverCli(process.argv.slice(3)));

const fail = (message: string): never => {
  process.stderr.write(`svc-contracts: ${message}\n(svc-contracts --help says more)\n`);
  process.exit(2);
};

function parse() {
  return parseArgs({
    options: {
      'base-url': { type: 'string' },
      token: { type: 'string' },
      'console-token': { type: 'string' },
      'token-file': { type: 'string' },
      'console-token-file': { type: 'string' },
      report: { type: 'string' },
      'allow-mutations': { type: 'boolean' },
      'request-timeout': { type: 'string' },
      'settle-timeout': { type: 'string' },
      junit: { type: 'string' },
      profile: { type: 'string' },
      checks: { type: 'string' },
      'exclude-checks': { type: 'string' },
      operation: { type: 'string' },
      'list-checks': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean' },
    },
  }).values;
}
const values = (() => {
  try {
    return parse();
  } catch (error) {
    return fail(parseErrorInWords(error));
  }
})();
if (values.help) {
  process.stdout.write(usage);
  process.exit(0);
}
if (values.version) {
  process.stdout.write(versionLine('svc-contracts'));
  process.exit(0);
}
if (values['list-checks']) {
  for (const check of checkCatalogue) {
    const runs = check.mutates
      ? 'with --allow-mutations'
      : check.id === 'document.read-only'
        ? 'read-only runs'
        : 'every run';
    const decided = check.decisions?.length
      ? `\n    open choices (interface accepts each; see below): ${check.decisions.join(', ')}`
      : '';
    process.stdout.write(
      `${check.id} (${runs}${check.strictOnly ? ', strict only' : ''})\n    ${check.title}\n    source: ${check.source}${decided}\n`,
    );
  }
  process.stdout.write('\nWhat the interface leaves open, and how each profile treats it:\n');
  for (const choice of openChoices)
    process.stdout.write(
      `${choice.id}\n    open: ${choice.open}\n    interface: ${choice.interface}\n    strict (ours): ${choice.ours}\n`,
    );
  process.exit(0);
}
if (!values['base-url']) fail('--base-url is required');
for (const option of ['junit', 'report'] as const) {
  const path = values[option];
  const problem = path ? prepareReportFile(`--${option}`, path) : null;
  if (problem) fail(problem);
}
// "localhost:3000" parses as a URL of scheme "localhost:": only http and https are a deployment.
const protocolOf = (text: string) => {
  try {
    return new URL(text).protocol;
  } catch {
    return '';
  }
};
if (!/^https?:$/.test(protocolOf(values['base-url']!)))
  fail(
    `--base-url is an http:// or https:// URL, got ${JSON.stringify(values['base-url'])}${/^[\w.-]+:\d+/.test(values['base-url']!) ? ` (did you mean http://${values['base-url']}?)` : ''}`,
  );
const profile = (values.profile ?? 'strict') as Profile;
if (!profiles.includes(profile))
  fail(`--profile must be one of ${profiles.join(', ')}, got ${JSON.stringify(values.profile)}`);
// A bare number was seconds here: still read so, with a warning giving its unit.
const warnDuration = (message: string) => process.stderr.write(`svc-contracts: warning: ${message}\n`);
const timeoutSeconds =
  durationOf(values, { name: 'request-timeout', bareUnit: 's', min: 1, max: 3_600_000 }, 10_000, fail, warnDuration)! /
  1000;
if (!(timeoutSeconds > 0 && timeoutSeconds <= 3600))
  fail(
    `--request-timeout must be a number of seconds from 0.001 to 3600, got ${JSON.stringify(values['request-timeout'])}`,
  );
const settleSeconds =
  durationOf(values, { name: 'settle-timeout', bareUnit: 's', min: 1, max: 600_000 }, 5000, fail, warnDuration)! / 1000;
if (!(settleSeconds > 0 && settleSeconds <= 600))
  fail(
    `--settle-timeout must be a number of seconds from 0.001 to 600, got ${JSON.stringify(values['settle-timeout'])}`,
  );
const list = (value: string | undefined) =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);
const selection = {
  ...(values.checks ? { checks: list(values.checks)! } : {}),
  ...(values['exclude-checks'] ? { excludeChecks: list(values['exclude-checks'])! } : {}),
  ...(values.operation ? { operations: list(values.operation)! } : {}),
};
const unknown = unknownNames(selection);
if (unknown.length > 0) fail(`no such ${unknown.join(', ')} (svc-contracts --list-checks)`);

const CONSOLE_TOKEN: CredentialKind = {
  what: 'the console token',
  flag: '--console-token',
  fileFlag: '--console-token-file',
  env: 'SVC_CONSOLE_TOKEN',
};
const credential = (kind: CredentialKind, flag: string | undefined, file: string | undefined) => {
  const answer = readCredential(kind, { flag, file, env: process.env });
  if ('error' in answer) return fail(answer.error);
  for (const warning of answer.warnings) process.stderr.write(`svc-contracts: warning: ${warning}\n`);
  return answer.value;
};
const token = credential(API_TOKEN, values.token, values['token-file']);
const consoleToken = credential(CONSOLE_TOKEN, values['console-token'], values['console-token-file']);
const baseUrl = values['base-url']!;
const allowMutations = values['allow-mutations'] ?? false;
// A selection that leaves nothing to run is a mistake to say, not a pass.
if (!checkCatalogue.some((check) => skipReason(check, { ...selection, profile, allowMutations }) === null)) {
  const needsMutations = checkCatalogue.some(
    (check) => skipReason(check, { ...selection, profile, allowMutations: true }) === null,
  );
  fail(
    `the selection leaves no check to run${needsMutations && !allowMutations ? ' (the checks selected need --allow-mutations)' : ''}`,
  );
}
// Asked once before a run: a stopped server is one line, not a failure per check.
const notThere = await noAnswerFrom(baseUrl, timeoutSeconds * 1000, { path: '/openapi.json', why: noAnswer });
if (notThere) {
  process.stderr.write(
    `svc-contracts: cannot reach ${baseUrl} (${notThere}); is the server running? Nothing was checked.\n`,
  );
  process.exit(EXIT_NO_ANSWER);
}
const started = performance.now();
const result = await runSuite({
  baseUrl,
  allowMutations,
  profile,
  requestTimeoutMs: timeoutSeconds * 1000,
  settleMs: settleSeconds * 1000,
  ...selection,
  ...(token ? { token } : {}),
  ...(consoleToken ? { consoleToken } : {}),
  log: (line) => process.stderr.write(`${line}\n`),
});
const seconds = (performance.now() - started) / 1000;
const { violations, failures, coverage, checks } = result;
const out: string[] = [];
out.push(
  `contract suite against ${baseUrl} (profile ${profile}, ${allowMutations ? 'with mutations' : 'read-only'}), ${seconds.toFixed(1)} s`,
);
const count = (outcome: string) => checks.filter((c) => c.outcome === outcome).length;
out.push(`checks: ${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped`);
const judged = count('passed') + count('failed');
const unjudged = judgedTooLittle(checks, allowMutations);
if (unjudged) out.push(unjudged);
if (failures.length > 0) {
  out.push(`\n${failures.length} expectations failed:`);
  for (const f of failures) out.push(`  ${describeFailure(f)}${f.curl ? `\n    ${f.curl}` : ''}`);
}
if (violations.length > 0) {
  const groups = groupViolations(violations);
  out.push(`\n${violations.length} answers break the document, in ${groups.length} way(s):`);
  for (const g of groups)
    out.push(
      `  ${g.operation} ${g.status} ${g.pointer || '(answer)'}: expected ${g.expected}, got ${g.got}${g.count > 1 ? ` (×${g.count})` : ''}\n    e.g. ${g.requests[0]}`,
    );
}
if (allowMutations) {
  out.push(
    `\ncoverage: ${coverage.exercised} of ${coverage.total} operation × status pairs exercised; ${coverage.allowed.length} listed with a reason; ${coverage.gaps.length} unlisted gaps${result.coverageJudged ? '' : ' (not judged: only a whole strict run is)'}`,
  );
  if (result.coverageJudged) for (const gap of coverage.gaps) out.push(`  not exercised: ${gap}`);
}
const failed = suiteFailed(result);
out.push(failed ? '\nFAILED' : `\nPASSED${unjudged ? ` (${judged} of ${checks.length} checks judged)` : ''}`);
process.stdout.write(`${out.join('\n')}\n`);
if (values.junit) writeFileSync(values.junit, junitSuiteReport(result, baseUrl, seconds));
if (values.report) {
  const report = {
    baseUrl,
    profile,
    passed: !failed,
    seconds,
    checks,
    failures,
    violations,
    violationGroups: groupViolations(violations),
    coverage: { ...coverage, judged: result.coverageJudged, table: coverageTable(coverage) },
  };
  writeFileSync(values.report, `${JSON.stringify(report, null, 2)}\n`);
}
process.exit(failed ? 1 : 0);

/**
 * A run that skipped most checks must not look like a full pass: how many
 * checks were judged, why the rest were not, and the run that judges them.
 */
function judgedTooLittle(
  checks: ReadonlyArray<{ outcome: string; reason?: string }>,
  mutations: boolean,
): string | null {
  // A check the full run covers in another way (document.read-only under --allow-mutations) leaves nothing unjudged.
  const skipped = checks.filter((check) => check.outcome === 'skipped' && !/covers it$/.test(check.reason ?? ''));
  if (skipped.length === 0) return null;
  const byReason = new Map<string, number>();
  for (const check of skipped)
    byReason.set(check.reason ?? 'skipped', (byReason.get(check.reason ?? 'skipped') ?? 0) + 1);
  const why = [...byReason].map(([reason, count]) => `${count} ${reason}`).join(', ');
  const more = mutations
    ? ''
    : `\n  To judge them, on a deployment you own (it creates accounts, orders and sessions): add --allow-mutations` +
      ' (and a token with --token-file or SVC_TOKEN where the deployment does not let the suite register its own account).';
  return `  judged: ${checks.length - skipped.length} of ${checks.length} checks; not judged: ${why}.${more}`;
}
