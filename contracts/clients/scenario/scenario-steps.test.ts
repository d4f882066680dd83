import t from 'tap';
import { registerAccount, startTestServer } from '../../../server/testing/test-server.js';
import { runScenario } from './run-scenario.js';
import type { Scenario } from './scenario-format.js';

// The step kinds beyond a request, against our server: a receiver of the
// runner's own reached through the relay, its inbox read until what it got
// holds, a relay refused, a request asked again until it holds or its time
// is up, values given by the caller, and draws from the seed.

const play = (baseUrl: string, scenario: Scenario, extra: Partial<Parameters<typeof runScenario>[2]> = {}) =>
  runScenario('x.json', scenario, { baseUrl, profile: 'strict', seed: 4, ...extra });
const problems = (outcome: Awaited<ReturnType<typeof runScenario>>) =>
  outcome.steps.filter((step) => step.problems.length > 0).map((step) => `${step.name}: ${step.problems.join('; ')}`);

t.test(
  'a receiver behind the relay gets the session’s webhooks; a wrong secret or a wrong count fails, naming the step',
  async (t) => {
    const server = await startTestServer(t);
    server.clock.set(Date.now());
    const account = await registerAccount(server.api);
    const given = { account };
    const steps = (secret: string, atLeast: number): Scenario['steps'] => [
      { name: 'a receiver', receiver: { capture: 'shop', status: 202 } },
      { name: 'the relay', relay: { token: '${account.key.token}', forwardTo: '${shop.url}' } },
      {
        name: 'an agreement',
        request: {
          method: 'POST',
          path: '/api/v1/ext/agreements',
          token: '${account.key.token}',
          json: { name: 'a', currency_reference: 'USD', split: false, payment_methods: ['card'] },
        },
        capture: 'agreement',
      },
      {
        name: 'a session to the receiver',
        request: {
          method: 'POST',
          path: '/api/v1/ext/payment-sessions/buttons',
          token: '${account.key.token}',
          json: {
            agreement_id: '${agreement.agreement_id}',
            amount_reference: '${gen.decimalAmount}',
            webhook_url: '${shop.url}',
          },
        },
        expect: { status: 201 },
      },
      {
        name: 'what the receiver got',
        inbox: 'shop',
        eventually: { withinMs: 1500 },
        expect: { fields: { '/deliveries/0/status': 202 }, signed: { list: '/deliveries', secret, atLeast } },
      },
    ];
    const held = await play(
      server.baseUrl,
      { description: 'd', steps: steps(account.key.webhook_secret, 1) },
      { given },
    );
    t.same(problems(held), []);
    t.match(held.steps[0]!.request, /^receiver at http:\/\/127\.0\.0\.1:\d+\/webhooks$/);
    t.equal(held.steps[1]!.status, 101, 'the relay connected');

    const wrong = await play(server.baseUrl, { description: 'd', steps: steps('whsec_not_it', 1) }, { given });
    t.same(problems(wrong), [
      'what the receiver got: within 1500 ms: expected /deliveries/0 to carry a valid signature: signature_mismatch',
    ]);
    const more = await play(
      server.baseUrl,
      { description: 'd', steps: steps(account.key.webhook_secret, 2) },
      { given },
    );
    t.same(problems(more), [
      'what the receiver got: within 1500 ms: expected at least 2 webhooks at /deliveries, got 1',
    ]);
    t.ok(more.steps.at(-1)!.ms >= 1400, 'asked again until its time was up');
  },
);

t.test('a relay refused, and one expected refused that connects', async (t) => {
  const server = await startTestServer(t);
  const account = await registerAccount(server.api);
  const outcome = await play(server.baseUrl, {
    description: 'd',
    steps: [
      { name: 'receiver', receiver: { capture: 'shop' } },
      {
        name: 'the console token',
        relay: { token: account.console_token, forwardTo: '${shop.url}' },
        expect: { status: 401 },
      },
      { name: 'the API token', relay: { token: account.key.token, forwardTo: '${shop.url}' }, expect: { status: 401 } },
    ],
  });
  t.same(problems(outcome), ['the API token: expected the relay to be refused (401), it was connected']);
  t.equal(outcome.steps[1]!.status, 401);
});

t.test('a value given by the caller skips the step that would capture it', async (t) => {
  const server = await startTestServer(t);
  const account = await registerAccount(server.api);
  const outcome = await play(
    server.baseUrl,
    {
      description: 'd',
      steps: [
        {
          name: 'a merchant account',
          request: { method: 'POST', path: '/console/register', json: { email: 'x', password: 'y' } },
          capture: 'account',
          expect: { status: 201 },
        },
        {
          name: 'its keys',
          request: { method: 'GET', path: '/console/keys', token: '${account.console_token}' },
          expect: { status: 200 },
        },
      ],
    },
    { given: { account } },
  );
  t.same(
    outcome.steps.map((step) => [step.name, step.request, step.given ?? false, step.problems]),
    [
      ['a merchant account', '(given)', true, []],
      ['its keys', 'GET /console/keys', false, []],
    ],
  );
});

t.test('the same seed sends the same generated values and waits the same jitter', async (t) => {
  const server = await startTestServer(t);
  const sent = async (seed: number) => {
    const paths: string[] = [];
    await runScenario(
      'x.json',
      {
        description: 'd',
        steps: [
          { name: 'a', request: { method: 'GET', path: '/health?n=${gen.batchNumber}&e=${gen.email}' }, jitterMs: 5 },
          { name: 'b', request: { method: 'GET', path: '/health?n=${gen.amount}' } },
        ],
      },
      { baseUrl: server.baseUrl, profile: 'strict', seed, onStep: (step) => paths.push(step.request) },
    );
    return paths;
  };
  const first = await sent(11);
  t.same(await sent(11), first);
  t.not(JSON.stringify(await sent(12)), JSON.stringify(first));
  t.match(first[0], /^GET \/health\?n=\d+&e=payer-[0-9a-f]{6}@example\.com$/);
});

t.test('a signing time that is not a time fails its step before anything is sent', async (t) => {
  const server = await startTestServer(t);
  const outcome = await play(server.baseUrl, {
    description: 'd',
    steps: [
      {
        name: 'signed at no time',
        request: {
          method: 'POST',
          path: '/api/v1/pos-terminals/X/settlements',
          signAs: { serialNumber: 'X', secret: 's', at: 'yesterday' },
          json: {},
        },
      },
    ],
  });
  t.same(problems(outcome), ['signed at no time: signAs.at "yesterday" is not an ISO 8601 time']);
  t.equal(outcome.steps[0]!.request, '(not sent)');
});
