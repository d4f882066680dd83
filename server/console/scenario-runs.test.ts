import t from 'tap';
import { registerAccount, startTestServer, type TestServer } from '../testing/test-server.js';
import { waitFor } from '../testing/wait-for.js';

// The console's Scenarios panel, through its three operations (their
// answers validated against the OpenAPI document by the test client): the
// bundled scenarios listed, one played on the operator's own account, the
// run read as it goes.

async function finished(server: TestServer, runId: string, token: string) {
  let run: { status: string } = { status: 'running' };
  await waitFor(
    async () => {
      run = (await server.api.get(`/console/scenario-runs/${runId}`, { token })).body;
      return run.status !== 'running';
    },
    20_000,
    `run ${runId} to end`,
  );
  return run as {
    status: string;
    steps: Array<{ name: string; problems: string[]; given?: boolean }>;
    order?: { taken_first: string; status: string };
  };
}

t.test('the console lists the bundled scenarios and plays one on the operator’s account', async (t) => {
  const server = await startTestServer(t);
  server.clock.set(Date.now()); // scenarios sign POS requests with the real time
  const account = await registerAccount(server.api);
  const ct = account.console_token;

  const listed = await server.api.get('/console/scenarios', { token: ct });
  t.equal(listed.status, 200);
  const names = listed.body.data.map((each: { name: string }) => each.name);
  t.ok(names.includes('race-simultaneous') && names.includes('payment-page-accredited'), `${names.length} listed`);
  const relay = listed.body.data.find((each: { name: string }) => each.name === 'relay-routing');
  t.equal(relay.runnable, false, 'a scenario that opens a relay is not run by the console');
  t.match(relay.not_runnable_because, /replace the operator's own relay/);
  t.equal(
    (await server.api.get('/console/scenarios', { token: account.key.token })).status,
    401,
    'the console token only',
  );

  const started = await server.api.post('/console/scenarios/race-simultaneous/runs', { token: ct });
  t.equal(started.status, 202);
  t.match(started.body, { scenario: 'race-simultaneous', status: 'running', link: /\/console#run_[0-9a-f]{16}$/ });
  const busy = await server.api.post('/console/scenarios/commit-twice/runs', { token: ct });
  t.equal(busy.status, 409, 'one run at a time per account');
  t.equal(busy.body.code, 'SCENARIO_RUNNING');

  const run = await finished(server, started.body.run_id, ct);
  t.equal(run.status, 'passed', JSON.stringify(run.steps.filter((step) => step.problems.length > 0)));
  t.equal(run.steps[0]!.name, 'a merchant account');
  t.equal(run.steps[0]!.given, true, "the operator's account stood for the registration");
  t.match(
    run.order,
    { taken_first: /^(merchant|pos)$/, status: /^(PAID|VOIDED)$/ },
    'which side the server took first',
  );
  const orders = await server.api.get(`/api/v1/merchants/${account.merchant_id}/transactions`, {
    token: account.key.token,
  });
  t.equal(orders.body.data.length, 1, "the order is the operator's");

  const other = await registerAccount(server.api);
  t.equal(
    (await server.api.get(`/console/scenario-runs/${started.body.run_id}`, { token: other.console_token })).status,
    404,
    "another account's run is not found",
  );
  t.equal((await server.api.post('/console/scenarios/no-such-thing/runs', { token: ct })).status, 404);
  const refused = await server.api.post('/console/scenarios/relay-routing/runs', { token: ct });
  t.equal(refused.status, 400);
  t.match(refused.body.message, /run it with svc-scenario/);
  t.equal((await server.api.get('/console/scenario-runs/run_nothex', { token: ct })).status, 400);
});

t.test('a control-plane scenario run from the console moves the operator’s clock and passes', async (t) => {
  const server = await startTestServer(t);
  server.clock.set(Date.now());
  const account = await registerAccount(server.api);
  const started = await server.api.post('/console/scenarios/webhook-retry-ladder/runs', {
    token: account.console_token,
  });
  const run = await finished(server, started.body.run_id, account.console_token);
  t.equal(run.status, 'passed', JSON.stringify(run.steps.filter((step) => step.problems.length > 0)));
  const clock = await server.api.get('/control/clock', { token: account.key.token });
  t.equal(clock.body.offset_ms, 7000, "the account's clock moved as the scenario moved it");
});
