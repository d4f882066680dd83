import t from 'tap';
import { isInbox, isReceiver, isRelay, isTogether, parseScenario, ScenarioFileError } from './scenario-format.js';

// What a scenario file may say, and how what is wrong with one is told:
// the line of bad JSON, the pointer (and in YAML the line) of a step off
// its shape, only the errors of the shape the step meant, at most eight.

const problems = (file: string, text: string): string[] => {
  try {
    parseScenario(file, text);
    return [];
  } catch (error) {
    if (!(error instanceof ScenarioFileError)) throw error;
    return error.problems;
  }
};
const steps = (...list: unknown[]) => JSON.stringify({ description: 'd', steps: list });
const get = { method: 'GET', path: '/health' };

t.test('a valid file reads as its scenario; each step shape is told by its key', async (t) => {
  const scenario = parseScenario(
    's.json',
    steps(
      { name: 'a', request: get, expect: { status: 200 } },
      {
        name: 'b',
        together: [
          { name: 'b1', request: get },
          { name: 'b2', request: get },
        ],
      },
      { name: 'c', receiver: { capture: 'hook' } },
      { name: 'd', inbox: 'hook' },
      { name: 'e', relay: { token: 't', forwardTo: 'http://127.0.0.1:1/' } },
    ),
  );
  t.same(
    scenario.steps.map((step) => [isTogether(step), isReceiver(step), isInbox(step), isRelay(step)]),
    [
      [false, false, false, false],
      [true, false, false, false],
      [false, true, false, false],
      [false, false, true, false],
      [false, false, false, true],
    ],
  );
});

t.test('bad JSON is named by line and column where JSON.parse says a position', async (t) => {
  const [said] = problems('s.json', '{\n  "description" 1\n}');
  t.match(said, /^not JSON at line 2, column 17: /);
  t.match(problems('s.json', '')[0], /^not JSON: /, 'no position to tell: the message alone');
  t.match(problems('s.json', '{"a":1}\n\n   x')[0], /^not JSON at line 3, column 4: /);
});

t.test('the error says the file and every problem', async (t) => {
  const error = (() => {
    try {
      parseScenario('name.json', JSON.stringify({ steps: [{ name: 'a', request: get }] }));
    } catch (caught) {
      return caught as ScenarioFileError;
    }
  })();
  t.equal(error?.file, 'name.json');
  t.same(error?.problems, ["/ must have required property 'description'"]);
  t.equal(error?.message, "name.json: / must have required property 'description'");
});

t.test('a step off its shape: only the errors of the shape its key names', async (t) => {
  t.same(problems('s.json', steps(5)), ['/steps/0 must be object'], 'not even an object: a request was meant');
  t.same(problems('s.json', steps({ name: 'a', together: 5 })), ['/steps/0/together must be array']);
  t.same(problems('s.json', steps({ name: 'a', receiver: {} })), [
    "/steps/0/receiver must have required property 'capture'",
  ]);
  t.same(problems('s.json', steps({ name: 'a', inbox: 5 })), ['/steps/0/inbox must be string']);
  t.same(problems('s.json', steps({ name: 'a', relay: { token: 't' } })), [
    "/steps/0/relay must have required property 'forwardTo'",
  ]);
  t.same(problems('s.json', steps({ name: 'a', request: { ...get, method: 'FETCH' } })), [
    '/steps/0/request/method must be equal to one of the allowed values (GET, POST, PUT, PATCH, DELETE)',
  ]);
  t.same(problems('s.json', steps({ name: 'a', request: get, extra: 1 })), [
    '/steps/0 must NOT have additional properties (extra)',
  ]);
  t.same(problems('s.json', steps({ name: 'a' })), ['/steps/0 must have request or resend'], 'one sentence for both');
});

t.test('at most eight problems, each once', async (t) => {
  const said = problems('s.json', steps(...Array.from({ length: 12 }, (_, i) => ({ name: `s${i}`, inbox: i }))));
  t.equal(said.length, 8);
  t.equal(said[0], '/steps/0/inbox must be string');
  t.equal(new Set(said).size, said.length);
});

t.test('YAML: the line of a pointer, its ~1 and ~0 read back as / and ~', async (t) => {
  const yaml = [
    'description: d',
    'steps:',
    '  - name: a',
    '    request: { method: GET, path: /health }',
    '    expect:',
    '      headers:',
    '        x-a~b: 5',
    '      fields:',
    '        /a~1b: 1',
  ].join('\n');
  const said = problems('s.yml', yaml);
  t.ok(
    said.some((line) => line.startsWith('/steps/0/expect/headers/x-a~0b (line 7) must be')),
    'the header named with a ~ found on its line',
  );
  const one = 'steps:\n  - { name: a, request: { method: GET, path: /health } }\n';
  t.same(problems('s.YAML', `description: d\n${one}`), [], 'named .YAML is YAML too');
  t.same(problems('s.yaml', one), ["/ (line 1) must have required property 'description'"], 'the document root');
});

t.test('how each problem is found and said, at the edges', async (t) => {
  const error = (() => {
    try {
      parseScenario('two.json', JSON.stringify({ steps: [{ name: 'a', inbox: 5 }] }));
    } catch (caught) {
      return caught as ScenarioFileError;
    }
  })();
  t.equal(
    error?.message,
    "two.json: / must have required property 'description'; /steps/0/inbox must be string",
    'the problems of the whole file and of the step, both kept, joined',
  );
  t.match(problems('s.yaml.json', '{'), [/^not JSON/], 'a name ending in .json is JSON, whatever it holds');
  t.same(problems('s.json', 'null'), ['/ must be object'], 'no document');
  t.same(problems('s.json', steps(null)), ['/steps/0 must be object'], 'a null step');
  const eleven = steps(...Array.from({ length: 10 }, (_, i) => ({ name: `s${i}`, request: get })), {
    name: 'last',
    inbox: 5,
  });
  t.same(problems('s.json', eleven), ['/steps/10/inbox must be string'], 'the step at index 10, by its own shape');
});

t.test(
  'YAML problems: the first line of each of at most three, and lines found by escaped or numeric keys',
  async (t) => {
    const bad = problems('s.yaml', 'a: [\nb: ]\nc: {\nd: }\ne: [\nf: {\n');
    t.ok(bad.length >= 1 && bad.length <= 3, 'at most three');
    for (const line of bad) {
      t.match(line, /^not YAML at line \d+, column \d+: \S+ \S+/, 'the message, more than its first character');
      t.notMatch(line, /\n|at line \d+, column \d+:.*at line/, 'its first line, said once');
    }
    const yaml = [
      'description: d',
      'steps:',
      ...Array.from({ length: 10 }, (_, i) => `  - { name: s${i}, request: { method: GET, path: /health } }`),
      '  - name: eleventh',
      '    request: { method: GET, path: /health }',
      '    expect:',
      '      headers:',
      '        1x: 5',
      '        x/y: 6',
      '        x1: 7',
      '        12: 8',
    ].join('\n');
    const said = problems('s.yaml', yaml);
    t.ok(
      said.includes('/steps/10/expect/headers/1x (line 17) must be string,boolean'),
      `a key that begins with a digit: ${said.join(' | ')}`,
    );
    t.ok(said.includes('/steps/10/expect/headers/x~1y (line 18) must be string,boolean'), 'a key with a /');
    t.ok(said.includes('/steps/10/expect/headers/x1 (line 19) must be string,boolean'), 'a key that ends with a digit');
    t.ok(said.includes('/steps/10/expect/headers/12 (line 20) must be string,boolean'), 'a key of two digits');
  },
);
