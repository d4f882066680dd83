import { connect } from 'node:net';
import t, { type Test } from 'tap';
import { EcrSession } from '../../bridge/zvt/ecr-session.js';
import { TcpZvtLine } from '../../protocol/zvt/line.js';
import { command } from '../../protocol/zvt/messages.js';
import { startCli } from '../../testing/cli-io.js';
import { waitFor } from '../../../server/testing/wait-for.js';

// A bridge polls the terminal with a status enquiry once a second: the
// emulated terminal's log says so only with --debug; a payment it logs always.

async function pollOnce(t: Test, extra: string[]) {
  const emulator = startCli([
    'emulate',
    '--dialect',
    'zvt',
    '--listen',
    '127.0.0.1:0',
    '--serial',
    '29001006',
    ...extra,
  ]);
  t.teardown(() => emulator.stop());
  await waitFor(() => /listening on 127\.0\.0\.1:\d+/.test(emulator.out()), 10_000, 'the terminal to listen');
  const port = Number(/listening on 127\.0\.0\.1:(\d+)/.exec(emulator.out())![1]);
  const socket = await new Promise<import('node:net').Socket>((resolve) => {
    const opened = connect(port, '127.0.0.1', () => resolve(opened));
  });
  const line = new TcpZvtLine(socket);
  const ecr = new EcrSession(() => undefined);
  ecr.attach(line);
  await ecr.transact(command('statusEnquiry'), true);
  line.close();
  return emulator.out();
}

t.test('status enquiries are debug detail', async (t) => {
  t.notMatch(await pollOnce(t, []), /statusEnquiry from the cash register/, 'not logged by default');
  t.match(await pollOnce(t, ['--debug']), /statusEnquiry from the cash register/, 'logged with --debug');
});
