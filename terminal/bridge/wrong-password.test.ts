import t from 'tap';
import { merchantWithTerminal, startTestServer } from '../../server/testing/test-server.js';
import { waitFor } from '../../server/testing/wait-for.js';
import { startCli } from '../testing/cli-io.js';

// A configuration the device refuses (a ZVT terminal's password) is not
// cured by reopening the line: the bridge says the refusal at every try,
// never only "line open", which reads as healthy.

t.test('a wrong ZVT password is said at every try', async (t) => {
  const server = await startTestServer(t);
  server.clock.set(Date.now());
  const merchant = await merchantWithTerminal(server);
  const terminal = startCli([
    'emulate',
    '--dialect',
    'zvt',
    '--listen',
    '127.0.0.1:0',
    '--serial',
    '29001006',
    '--password',
    '123456',
  ]);
  t.teardown(() => terminal.stop());
  await waitFor(() => /listening on 127\.0\.0\.1:\d+/.test(terminal.out()), 10_000, 'the terminal');
  const address = /listening on (127\.0\.0\.1:\d+)/.exec(terminal.out())![1]!;
  const bridge = startCli(
    [
      'bridge',
      '--dialect',
      'zvt',
      '--host',
      address,
      '--password',
      '000000',
      '--serial',
      merchant.serialNumber,
      '--base-url',
      server.baseUrl,
      '--state',
      t.testdir(),
    ],
    { ...process.env, SVC_TERMINAL_SECRET: merchant.secret },
  );
  t.teardown(() => bridge.stop());
  const refusals = () =>
    bridge.out().match(/the terminal refused the registration: a wrong password \(--password\)/g)?.length ?? 0;
  await waitFor(() => refusals() >= 3, 20_000, 'the refusal said at three tries');
  t.match(bridge.out(), /line down: the terminal refused the registration: a wrong password/);
  t.match(bridge.out(), /line still down \(try 2\): the terminal refused the registration: a wrong password/);
});
