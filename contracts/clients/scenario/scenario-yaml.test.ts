import { readFile } from 'node:fs/promises';
import t from 'tap';
import { stringify } from 'yaml';
import { parseScenario, ScenarioFileError } from './scenario-format.js';

// A scenario written in YAML (a file named .yaml or .yml) is the same
// scenario as its JSON; what is wrong with one is said with its line.

const problems = (file: string, text: string) => {
  try {
    parseScenario(file, text);
    return [];
  } catch (error) {
    t.type(error, ScenarioFileError);
    return (error as ScenarioFileError).problems;
  }
};

t.test('every bundled scenario written as YAML reads as the same scenario', async (t) => {
  const folder = new URL('../../../fixtures/scenarios/', import.meta.url);
  for (const name of ['race-simultaneous.json', 'payment-page-accredited.json', 'relay-routing.json']) {
    const json = await readFile(new URL(name, folder), 'utf8');
    const yaml = stringify(JSON.parse(json));
    t.same(parseScenario(name.replace('.json', '.yaml'), yaml), parseScenario(name, json), name);
  }
});

t.test('bad YAML, and a YAML file that is not a scenario, are named by line', async (t) => {
  t.match(problems('x.yml', 'description: d\nsteps:\n  - name: a\n   request: [\n'), [
    /^not YAML at line \d+, column \d+: /,
  ]);
  const wrong = [
    'description: a scenario',
    'steps:',
    '  - name: health',
    '    request:',
    '      method: GET',
    '      path: health',
    '  - name: a typo',
    '    expect:',
    '      statuz: 200',
    '    request: { method: GET, path: / }',
  ].join('\n');
  t.same(problems('x.yaml', wrong), [
    '/steps/0/request/path (line 6) must match pattern "^/"',
    '/steps/1/expect (line 9) must NOT have additional properties (statuz)',
  ]);
  t.same(problems('x.yaml', 'description: d\nsteps:\n  - name: nothing to send\n'), [
    '/steps/0 (line 3) must have request or resend',
  ]);
});
