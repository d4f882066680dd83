import { createServer } from 'node:http';
import t from 'tap';
import { runSuite } from './run-suite.js';

// A deployment whose registration answers 201 with an empty body: the
// suite says once what the answer lacked and which checks could not run,
// never a TypeError stack in each check that reads the account.

t.test('POST /console/register answering 201 {}: said once, no TypeError', async (t) => {
  const server = createServer((request, response) => {
    const registering = request.method === 'POST' && request.url === '/console/register';
    response.writeHead(registering ? 201 : 404, { 'content-type': 'application/json' });
    response.end(registering ? '{}' : JSON.stringify({ message: 'not here', code: 'NOT_FOUND' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as { port: number };
  const result = await runSuite({
    baseUrl: `http://127.0.0.1:${port}`,
    allowMutations: true,
    requestTimeoutMs: 2000,
    settleMs: 200,
  });
  const said = result.failures.map((failure) => failure.got);
  t.same(
    said.filter((got) => /TypeError|stack|at .*\.ts:\d+/.test(got)),
    [],
    'no TypeError, no stack trace',
  );
  const full = said.filter((got) =>
    /answered without key\.token, key\.webhook_secret, console_token, account_id, merchant_id, hooks/.test(got),
  );
  t.equal(full.length, 1, 'what the answer lacked, said once');
  t.ok(said.filter((got) => /the same setup failure as /.test(got)).length > 5, 'the other checks name the first');
});
