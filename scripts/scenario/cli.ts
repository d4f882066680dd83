#!/usr/bin/env node
import { readFile, writeFile } from 'node:fs/promises';
import { junitDocument, xml } from '../../contracts/common/junit.js';
import {
  ServerSilentError,
  runScenario,
  type ScenarioProfile,
  type ScenarioOutcome,
} from '../../contracts/clients/scenario/run-scenario.js';
import { parseScenario, ScenarioFileError, scenarioSchema } from '../../contracts/clients/scenario/scenario-format.js';
import { commandLine } from '../cli-args.js';
import { prepareReportFile } from '../../contracts/cli/report-file.js';
import { startOwnServer } from '../own-server.js';
import { exitUnlessAnswering } from '../../contracts/cli/no-answer.js';
import { bundledScenarioFolder } from '../../contracts/clients/scenario/bundled.js';

const usage = `usage: svc-scenario run [--base-url URL] [--profile strict|interface] [--seed N]
                        [--junit FILE] [--report FILE] FILE…
       svc-scenario schema

The bundled scenarios (33 files, fixtures/scenarios/ in a checkout) are in
${bundledScenarioFolder}
here: svc-scenario run ${bundledScenarioFolder.replace(/\/$/, '')}/*.json plays them all.

run     plays each scenario file (JSON, or YAML when named .yaml or .yml)
        against a deployment of the interface, step by step, and says which
        expectation failed, at which step and request.
        Without --base-url it starts a server of ours on a temporary folder.
        --profile interface skips the scenarios that need more than the
        interface (they say so in "requires"), for a team's own mock or the
        vendor's sandbox. --seed N draws the scenarios' generated values
        (\${gen.amount}, \${gen.email}…) and delays' jitter: the same seed,
        the same values.
        --junit FILE writes JUnit XML; --report FILE the outcomes as JSON.
schema  prints the JSON Schema of a scenario file.

Exit status: 0 when every expectation held, 1 when one did not, 2 for a
usage error or a bad scenario file, 3 when the server does not answer.
`;

const { values, positionals, fail } = commandLine('svc-scenario', usage, {
  'base-url': { type: 'string' },
  profile: { type: 'string', default: 'strict' },
  seed: { type: 'string', default: '1' },
  junit: { type: 'string' },
  report: { type: 'string' },
});
const [command, ...files] = positionals;
if (!command) fail('name a command: run FILE… (or schema)');
if (command === 'schema') {
  process.stdout.write(`${JSON.stringify(scenarioSchema, null, 2)}\n`);
  process.exit(0);
}
if (command !== 'run') fail(`unknown command ${JSON.stringify(command)}: run FILE… or schema`);
if (files.length === 0) fail('name at least one scenario file: svc-scenario run FILE…');
if (values.profile !== 'strict' && values.profile !== 'interface') fail('--profile is strict or interface');
const seed = Number(values.seed);
if (!Number.isInteger(seed)) fail('--seed takes a whole number');
for (const option of ['junit', 'report'] as const) {
  const path = values[option];
  const problem = path ? prepareReportFile(`--${option}`, path) : null;
  if (problem) fail(problem);
}

const scenarios = [];
for (const file of files) {
  const text = await readFile(file, 'utf8').catch((error: Error) => fail(`cannot read ${file}: ${error.message}`));
  try {
    scenarios.push({ file, scenario: parseScenario(file, text) });
  } catch (error) {
    if (error instanceof ScenarioFileError) fail(`${error.file} is not a scenario: ${error.problems.join('; ')}`);
    throw error;
  }
}

if (values['base-url']) await exitUnlessAnswering('svc-scenario', values['base-url']);
const own = values['base-url'] ? undefined : await startOwnServer();
const baseUrl = values['base-url'] ?? own!.baseUrl;
if (own) process.stdout.write(`started a server of ours at ${baseUrl}\n`);

const outcomes: ScenarioOutcome[] = [];
try {
  for (const { file, scenario } of scenarios) {
    process.stdout.write(`\n${file}: ${scenario.description}\n`);
    const outcome = await runScenario(file, scenario, {
      baseUrl,
      profile: values.profile as ScenarioProfile,
      seed,
      onStep: (step) =>
        process.stdout.write(
          step.problems.length === 0
            ? `  ok   ${step.name} (${step.request} → ${step.status})\n`
            : `  FAIL ${step.name} (${step.request} → ${step.status})\n${step.problems.map((p) => `       ${p}\n`).join('')}${step.answer ? `       the answer: ${step.answer}\n` : ''}`,
        ),
    });
    if (outcome.skipped) process.stdout.write(`  skipped: ${outcome.skipped}\n`);
    outcomes.push(outcome);
  }
} catch (error) {
  await own?.stop();
  if (error instanceof ServerSilentError) fail(error.message);
  throw error;
}
await own?.stop();

const failed = outcomes.filter((outcome) => !outcome.ok);
const skipped = outcomes.filter((outcome) => outcome.skipped);
process.stdout.write(
  `\n${outcomes.length - failed.length - skipped.length} passed, ${failed.length} failed, ${skipped.length} skipped\n`,
);
if (values.report) await writeFile(values.report, `${JSON.stringify(outcomes, null, 2)}\n`);
if (values.junit) await writeFile(values.junit, junit(outcomes));
process.exit(failed.length > 0 ? 1 : 0);

function junit(all: ScenarioOutcome[]): string {
  const cases = all.map((outcome) => {
    const name = `  <testcase classname="scenario" name="${xml(outcome.file)}" time="${(outcome.ms / 1000).toFixed(3)}">`;
    if (outcome.skipped) return `${name}<skipped message="${xml(outcome.skipped)}"/></testcase>`;
    const broken = outcome.steps.find((step) => step.problems.length > 0);
    if (!broken) return `${name}</testcase>`;
    const message = `${broken.name} (${broken.request}): ${broken.problems.join('; ')}`;
    return `${name}<failure message="${xml(message)}"/></testcase>`;
  });
  const seconds = all.reduce((sum, outcome) => sum + outcome.ms, 0) / 1000;
  return junitDocument(
    { name: 'svc-scenario', suite: 'scenarios', seconds, failures: failed.length, skipped: skipped.length },
    cases,
  );
}
