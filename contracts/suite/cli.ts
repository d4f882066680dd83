#!/usr/bin/env node
// svc-contracts: the contract suite against any deployment of the interface.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { receiverCli } from '../receiver/cli.js';
import { coverageTable } from './recorder.js';
import { runSuite } from './run-suite.js';
import { groupViolations, junitSuiteReport } from './suite-report.js';

// svc-contracts receiver …: grade a webhook receiver (contracts/receiver/).
if (process.argv[2] === 'receiver') process.exit(await receiverCli(process.argv.slice(3)));

const usage = `usage: svc-contracts --base-url URL [--token T] [--console-token T] [--report FILE] [--junit FILE] [--allow-mutations] [--request-timeout S]
       svc-contracts receiver --url URL --secret-file FILE [...]   (grade a webhook receiver; receiver --help)

Runs the contract suite: every answer is checked against the OpenAPI
document (status, media type, required headers, body). Read-only unless
--allow-mutations: then it registers an account and creates orders,
sessions, stops… on the deployment (never point that at production), runs
negative requests generated from the request schemas, and reports which
documented operation × status pairs it exercised.

  --base-url URL        the deployment
  --token T             an API token, for authenticated reads in read-only mode
  --console-token T     a console token, for the console reads in read-only mode
  --report FILE         write the JSON report (violations, and the same grouped
                        with a count, problems, coverage) there
  --junit FILE          write JUnit XML there (for CI): a test case per
                        operation × status exercised, per way the answers
                        break the document, per failed expectation and per
                        coverage gap
  --allow-mutations     create data: the full suite with coverage
  --request-timeout S   a request not answered within S seconds (default 10)
                        fails, named in the report, and the run goes on;
                        so does one that meets a network error

Exit code: 0 when nothing broke the document, 1 otherwise, 2 for a usage error.
`;

let values;
try {
  ({ values } = parseArgs({
    options: { 'base-url': { type: 'string' }, token: { type: 'string' }, 'console-token': { type: 'string' }, report: { type: 'string' }, 'allow-mutations': { type: 'boolean' }, 'request-timeout': { type: 'string' }, junit: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  }));
} catch (error) {
  process.stderr.write(`svc-contracts: ${(error as Error).message}\n\n${usage}`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(usage);
  process.exit(0);
}
if (!values['base-url']) {
  process.stderr.write(`svc-contracts: --base-url is required\n\n${usage}`);
  process.exit(2);
}
try {
  new URL(values['base-url']);
} catch {
  process.stderr.write(`svc-contracts: --base-url must be an absolute URL\n`);
  process.exit(2);
}

const timeoutSeconds = values['request-timeout'] === undefined ? 10 : Number(values['request-timeout']);
if (!(timeoutSeconds > 0 && timeoutSeconds <= 3600)) {
  process.stderr.write(`svc-contracts: --request-timeout must be a number of seconds from 0.001 to 3600, got ${JSON.stringify(values['request-timeout'])}\n`);
  process.exit(2);
}

const started = performance.now();
const result = await runSuite({
  baseUrl: values['base-url'],
  allowMutations: values['allow-mutations'] ?? false,
  requestTimeoutMs: timeoutSeconds * 1000,
  ...(values.token ? { token: values.token } : {}),
  ...(values['console-token'] ? { consoleToken: values['console-token'] } : {}),
  log: (line) => process.stderr.write(`${line}\n`),
});
const { violations, problems, coverage } = result;
const out: string[] = [];
out.push(`contract suite against ${values['base-url']} (${values['allow-mutations'] ? 'with mutations' : 'read-only'}), ${((performance.now() - started) / 1000).toFixed(1)} s`);
if (violations.length > 0) {
  const groups = groupViolations(violations);
  out.push(`\n${violations.length} answers break the document, in ${groups.length} way(s):`);
  for (const g of groups) out.push(`  ${g.operation} ${g.status} ${g.pointer || '(answer)'}: expected ${g.expected}, got ${g.got}${g.count > 1 ? ` (×${g.count})` : ''}\n    e.g. ${g.requests[0]}`);
}
if (problems.length > 0) {
  out.push(`\n${problems.length} expectations failed:`);
  for (const p of problems) out.push(`  ${p}`);
}
if (values['allow-mutations']) {
  out.push(`\ncoverage: ${coverage.exercised} of ${coverage.total} operation × status pairs exercised; ${coverage.allowed.length} listed with a reason; ${coverage.gaps.length} unlisted gaps`);
  for (const gap of coverage.gaps) out.push(`  not exercised: ${gap}`);
}
const failed = violations.length > 0 || problems.length > 0 || (values['allow-mutations'] && coverage.gaps.length > 0);
out.push(failed ? '\nFAILED' : '\nPASSED');
process.stdout.write(`${out.join('\n')}\n`);
if (values.junit) writeFileSync(values.junit, junitSuiteReport(result, values['base-url'], (performance.now() - started) / 1000, values['allow-mutations'] ?? false));
if (values.report) writeFileSync(values.report, `${JSON.stringify({ baseUrl: values['base-url'], passed: !failed, violations, violationGroups: groupViolations(violations), problems, coverage: { ...coverage, table: coverageTable(coverage) } }, null, 2)}\n`);
process.exit(failed ? 1 : 0);
