import t from 'tap';
import { Link } from '../../protocol/link.js';
import { memoryLine } from '../../transcript/emulated-peer.js';
import { EmulatedTerminal } from './emulated-terminal.js';

// The emulator's log is where an operator reads and types (approve, close):
// the bridge's poll every second and its "any record?" when there is none
// stay out of it unless --debug asks for them.

async function exchange(verbose: boolean): Promise<string[]> {
  const logs: string[] = [];
  const [host, device] = memoryLine();
  const terminal = new EmulatedTerminal({
    serial: 'Q-1',
    autoApproveMs: null,
    log: (line) => logs.push(line),
    verbose,
  });
  terminal.attach(new Link(device));
  const link = new Link(host);
  const answers: string[] = [];
  link.on('message', (payload: string) => answers.push(payload));
  for (const request of ['0100', '0250', '0300|q-1|1500|USD', '0100']) {
    const before = answers.length;
    await link.send(request);
    while (answers.length === before) await new Promise((resolve) => setImmediate(resolve));
  }
  link.close();
  return logs;
}

t.test('polls and empty record asks are not logged; a charge asked is', async (t) => {
  t.same(await exchange(false), ['host 0300|q-1|1500|USD → 0310|00']);
  t.equal((await exchange(true)).length, 4, 'all four with --debug');
});
