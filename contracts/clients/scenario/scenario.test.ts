import { readdir, readFile } from 'node:fs/promises';
import t from 'tap';
import { ManualClock } from '../../../server/clock.js';
import { defaultConfig } from '../../../server/config.js';
import { PgStore } from '../../../server/store/postgres/pg-store.js';
import { postgresSkip, startPostgres } from '../../../server/store/postgres/pg-testing.js';
import { serveApp, startTestServer } from '../../../server/testing/test-server.js';
import { startMutatingProxy } from '../../testing/mutating-proxy.js';
import { conformingVariant, mutations, openChoicesVariant } from '../../testing/mutations.js';
import { runScenario, type RunOptions, type ScenarioOutcome } from './run-scenario.js';
import { parseScenario, ScenarioFileError, scenarioSchema, type Scenario } from './scenario-format.js';

// The bundled scenario library (fixtures/scenarios/) played against our
// server on each store, and against our server behind a proxy that breaks
// one rule of the interface: the scenario covering that rule fails, naming
// the step, the request and what was expected.

const folder = new URL('../../../fixtures/scenarios/', import.meta.url);
const library: Array<{ file: string; scenario: Scenario }> = await Promise.all(
  (await readdir(folder))
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map(async (name) => ({
      file: name,
      scenario: parseScenario(name, await readFile(new URL(name, folder), 'utf8')),
    })),
);

const playAll = async (baseUrl: string, options: Partial<RunOptions> = {}): Promise<ScenarioOutcome[]> => {
  const outcomes = [];
  for (const { file, scenario } of library)
    outcomes.push(await runScenario(file, scenario, { baseUrl, profile: 'strict', seed: 7, ...options }));
  return outcomes;
};
const failuresOf = (outcomes: ScenarioOutcome[]) =>
  outcomes
    .filter((outcome) => !outcome.ok)
    .map((outcome) => {
      const step = outcome.steps.find((each) => each.problems.length > 0)!;
      return `${outcome.file}: ${step.name} (${step.request}): ${step.problems.join('; ')}`;
    });

t.test('every bundled scenario passes on our server, embedded store', async (t) => {
  t.ok(library.length >= 33, `${library.length} scenarios`);
  const server = await startTestServer(t);
  server.clock.set(Date.now()); // scenarios sign POS requests with the real time
  const outcomes = await playAll(server.baseUrl);
  t.same(failuresOf(outcomes), []);
  t.equal(outcomes.filter((outcome) => outcome.skipped).length, 0, 'the strict profile plays them all');
});

t.test('every bundled scenario passes on our server, PostgreSQL store', { skip: postgresSkip() }, async (t) => {
  const clock = new ManualClock();
  clock.set(Date.now());
  const store = await PgStore.open({ connectionString: startPostgres(t) });
  const served = await serveApp({
    store,
    clock,
    config: { ...defaultConfig, dataDir: t.testdir(), port: 0, scryptCost: 1024, logLevel: 'silent' },
  });
  t.teardown(served.stop);
  t.same(failuresOf(await playAll(served.baseUrl)), []);
});

t.test('the interface profile skips what needs more than the interface, saying why', async (t) => {
  const server = await startTestServer(t);
  server.clock.set(Date.now());
  const outcomes = await playAll(server.baseUrl, { profile: 'interface' });
  const skipped = outcomes.filter((outcome) => outcome.skipped);
  t.same(
    skipped.map((outcome) => outcome.file),
    library.filter(({ scenario }) => scenario.requires?.length).map(({ file }) => file),
  );
  t.match(skipped[0]?.skipped, /needs control-plane/);
  t.same(failuresOf(outcomes), []);
});

t.test('under the interface profile they pass against other implementations of the interface', async (t) => {
  // Implementations that break no rule but choose otherwise where the interface leaves it open (open-choices.ts).
  const server = await startTestServer(t);
  server.clock.set(Date.now());
  for (const variant of [conformingVariant, openChoicesVariant]) {
    const proxy = await startMutatingProxy(server.baseUrl, variant);
    t.same(failuresOf(await playAll(proxy.baseUrl, { profile: 'interface' })), [], variant.name);
    await proxy.close();
  }
});

t.test(
  'a broken rule fails the scenario that covers it, naming the step, the request and what was expected',
  async (t) => {
    const server = await startTestServer(t);
    server.clock.set(Date.now());
    const broken = (name: string) => {
      const mutation = mutations.find((each) => each.name === name);
      if (!mutation) throw new Error(`no mutation named ${name}`);
      return mutation;
    };
    const cases = [
      {
        rule: 'a commit after a discard answers 409 (the race rule broken)',
        file: 'discard-then-commit.json',
        message:
          /^discard-then-commit\.json: the POS confirms the payment it took \(POST \/api\/v1\/pos-terminals\/POS-\S+\/transactions\/order-\S+\/commit\): expected status 200, got 409/,
      },
      {
        rule: 'a settlement sent again with the same fields answers 409',
        file: 'settlement-replay-and-conflict.json',
        message:
          /the same close again, signed anew \(POST \/api\/v1\/pos-terminals\/\S+\/settlements\): expected status 200, got 409/,
      },
      {
        rule: 'a replayed POS signature is accepted',
        file: 'signature-replayed.json',
        message:
          /the same request captured and sent again \(POST \/api\/v1\/pos-terminals\/\S+\/settlements\): expected status 401, got 200/,
      },
      {
        rule: 'malformed JSON answers VALIDATION_FAILED instead of MALFORMED_JSON',
        file: 'session-validation.json',
        message:
          /a body that is not JSON \(POST \/api\/v1\/ext\/payment-sessions\/buttons\): expected code MALFORMED_JSON, got "VALIDATION_FAILED"/,
      },
      {
        rule: 'invalidating a VOIDED order answers 200',
        file: 'order-transition-table.json',
        message:
          /an invalidation of a VOIDED order: 409 \(POST \/api\/v1\/merchants\/\S+\/transactions\/a-\S+\/invalidation\): expected status 409, got 200/,
      },
      {
        rule: 'webhooks are signed over re-serialised JSON, not the bytes sent',
        file: 'payment-page-accredited.json',
        message:
          /captura received created, paid, accredited, in order, each signed \(GET \/console\/trace\?type=webhook\.received&session_id=ses_\w+\): within 5000 ms: expected \/data\/0 to carry a valid signature: signature_mismatch/,
      },
      {
        rule: 'a 429 of the rate brake carries no Retry-After',
        file: 'rate-brake.json',
        message: /the third is refused \(GET \/api\/v1\/ext\/stops\): expected a header retry-after, there is none/,
      },
      {
        rule: "the terminal list shows each terminal's secret",
        file: 'tokens-and-terminals.json',
        message:
          /the terminal list: no secret \(GET \/api\/v1\/merchants\/\S+\/pos-terminals\): expected no \/data\/0\/secret, got "[0-9a-f]{64}"/,
      },
      {
        rule: 'a clock advance moves the account clock 2 s further than asked',
        file: 'clock-advanced.json',
        message: /the offset is the sum \(GET \/control\/clock\): expected \/offset_ms to be 3660000, got 3664000/,
      },
    ];
    for (const { rule, file, message } of cases) {
      const proxy = await startMutatingProxy(server.baseUrl, broken(rule));
      const { scenario } = library.find((each) => each.file === file)!;
      const outcome = await runScenario(file, scenario, { baseUrl: proxy.baseUrl, profile: 'strict', seed: 1 });
      await proxy.close();
      t.notOk(outcome.ok, `${rule}: ${file} fails`);
      t.match(failuresOf([outcome])[0], message, rule);
    }
  },
);

t.test('a file that is not a scenario is refused with where it is wrong', async (t) => {
  const refused = (text: string) => {
    try {
      parseScenario('x.json', text);
      return [];
    } catch (error) {
      t.type(error, ScenarioFileError);
      return (error as ScenarioFileError).problems;
    }
  };
  t.same(
    refused(JSON.stringify({ description: 'd', steps: [{ name: 'a', request: { method: 'GET', path: 'no-slash' } }] })),
    ['/steps/0/request/path must match pattern "^/"'],
  );
  t.same(
    refused(
      JSON.stringify({
        description: 'd',
        steps: [{ name: 'a', request: { method: 'GET', path: '/' }, expect: { statuz: 200 } }],
      }),
    ),
    ['/steps/0/expect must NOT have additional properties (statuz)'],
  );
  t.same(
    refused(
      JSON.stringify({
        description: 'd',
        steps: [{ name: 'g', together: [{ name: 'a' }, { name: 'b', request: { method: 'GET', path: '/' } }] }],
      }),
    ),
    ['/steps/0/together/0 must have request or resend'],
    'a group: the errors of the group, not of a request',
  );
  t.match(refused('{\n  "description": "d",\n  "steps": [,]\n}')[0], /^not JSON/);
  t.same(refused(JSON.stringify({ steps: [] })), [
    "/ must have required property 'description'",
    '/steps must NOT have fewer than 1 items',
  ]);
});

t.test('a value captured before is used later; one never captured stops the scenario at that step', async (t) => {
  const server = await startTestServer(t);
  const outcome = await runScenario(
    'x.json',
    {
      description: 'd',
      steps: [
        { name: 'health', request: { method: 'GET', path: '/health' }, capture: 'health', expect: { status: 200 } },
        { name: 'uses it', request: { method: 'GET', path: '/health?kind=${health.store}' }, expect: { status: 200 } },
        { name: 'a typo', request: { method: 'GET', path: '/x/${helth.store}' } },
        { name: 'never sent', request: { method: 'GET', path: '/health' } },
      ],
    },
    { baseUrl: server.baseUrl, profile: 'strict', seed: 1 },
  );
  t.same(
    outcome.steps.map((step) => [step.name, step.request, step.problems]),
    [
      ['health', 'GET /health', []],
      ['uses it', 'GET /health?kind=embedded', []],
      ['a typo', '(not sent)', ['${helth.store} names nothing captured before this step']],
    ],
  );
  t.notOk(outcome.ok);
});

t.test('a resend names an earlier step; one that names none fails without sending', async (t) => {
  const server = await startTestServer(t);
  const outcome = await runScenario(
    'x.json',
    {
      description: 'd',
      steps: [
        { name: 'health', request: { method: 'GET', path: '/health' }, expect: { status: 200 } },
        { name: 'again', resend: 'health', expect: { status: 200 } },
        { name: 'a typo', resend: 'helth' },
      ],
    },
    { baseUrl: server.baseUrl, profile: 'strict', seed: 1 },
  );
  t.same(
    outcome.steps.map((step) => [step.name, step.request, step.problems]),
    [
      ['health', 'GET /health', []],
      ['again', 'GET /health', []],
      ['a typo', '(not sent)', ['no earlier step named "helth" sent a request']],
    ],
  );
});

t.test('the schema published beside the library is the one files are checked against', async (t) => {
  const published = JSON.parse(await readFile(new URL('../scenario.schema.json', folder), 'utf8')) as unknown;
  t.same(
    published,
    JSON.parse(JSON.stringify(scenarioSchema)),
    'fixtures/scenario.schema.json: svc-scenario schema > it',
  );
  for (const { file, scenario } of library) {
    t.equal((scenario as { $schema?: string }).$schema, '../scenario.schema.json', `${file} names it, for editors`);
    t.ok(scenario.surfaces?.length, `${file} names the surfaces it plays (the library's index)`);
  }
});
