import { spawn, spawnSync } from 'node:child_process';
import { connect, createServer, type AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { missingTool } from '../contracts/common/missing-tool.js';
import { waitFor } from '../server/testing/wait-for.js';
import { BridgeState } from './bridge/bridge-state.js';
import { runCli, startCli } from './testing/cli-io.js';

// A process started in the background of an interactive shell, as the
// README's copy-and-paste sale starts the emulator and the bridge, must not
// read the terminal (the shell would stop it, "Stopped (tty input)", and
// kill %1 would not end it); its operator's commands come through
// `svc-terminal control` (--control) and `svc-terminal close`.

const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));
const script = missingTool(
  'script',
  () => spawnSync('script', ['--version']).status === 0,
  "install Debian's bsdutils",
);

t.test(
  'an emulator started with & in an interactive shell runs on, and kill %1 ends it',
  { skip: script },
  async (t) => {
    const dir = t.testdir();
    const log = join(dir, 'emulator.log');
    const session = join(dir, 'session.sh');
    writeFileSync(
      session,
      `node --import tsx ${cli} emulate --dialect zvt --listen 127.0.0.1:0 --serial 29001006 > ${log} 2>&1 &
sleep 4; jobs -l; kill %1; sleep 1; jobs -l; echo done
`,
    );
    // script(1) gives bash a terminal of its own, so it runs with job control as a user's shell does.
    const shell = spawnSync('script', ['-qec', `bash --norc --noprofile -i ${session}`, '/dev/null'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    t.notMatch(shell.stdout, /Stopped/, 'never stopped for reading the terminal');
    t.match(shell.stdout, /Running[\s\S]*Terminated|Running[\s\S]*Done/, 'running, then ended by kill %1');
    t.match(readFileSync(log, 'utf8'), /operator commands: none \(started in the background without --control\)/);
  },
);

t.test('svc-terminal control: an operator command to an emulator started with --control', async (t) => {
  const socket = join(mkdtempSync(join(tmpdir(), 'ctl-')), 'zvt.sock');
  const emulator = startCli([
    'emulate',
    '--dialect',
    'zvt',
    '--listen',
    '127.0.0.1:0',
    '--serial',
    '29001006',
    '--control',
    socket,
  ]);
  t.teardown(() => emulator.stop());
  await waitFor(() => emulator.out().includes('operator commands:'), 10_000, 'the emulator');
  t.match(emulator.out(), /operator commands: stdin or svc-terminal control /);
  const status = await runCli(['control', socket, 'status']);
  t.equal(status.code, 0);
  t.match(status.out, /29001006/);
  const nothing = await runCli(['control', join(tmpdir(), 'nobody-here.sock'), 'status']);
  t.equal(nothing.code, 3, 'nothing answered: exit 3');
  t.match(nothing.err, /nothing answers on .*nobody-here\.sock: no emulator or bridge runs with --control there/);
});

t.test('svc-terminal close journals a close for the running bridge', async (t) => {
  const stateDir = t.testdir();
  const closed = await runCli(['close', '--serial', 'POS-9', '--state', stateDir]);
  t.equal(closed.code, 0);
  t.match(closed.out, /close journaled for POS-9/);
  const pending = await (await BridgeState.open(stateDir, 'POS-9')).pendingClose();
  t.ok(pending?.closeId, 'a close the bridge reads at its next cycle');
  const again = await runCli(['close', '--serial', 'POS-9', '--state', stateDir]);
  t.match(again.out, /still pending/, 'one close at a time');
  t.equal((await runCli(['close'])).code, 2);
});

/** Whether something accepts a TCP connection on the port. */
const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

const root = fileURLToPath(new URL('..', import.meta.url));

for (const [how, signal] of [
  ['SIGTERM to npx', 'SIGTERM'],
  ['npx killed outright (its parent gone)', 'SIGKILL'],
] as const) {
  t.test(`npx svc-terminal emulate, started as the docs start it, stops when npx does: ${how}`, async (t) => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const npx = spawn(
      'npx',
      ['svc-terminal', 'emulate', '--dialect', 'zvt', '--listen', `127.0.0.1:${port}`, '--serial', '29001006'],
      { cwd: root, stdio: 'ignore' },
    );
    t.teardown(() => void npx.kill('SIGKILL'));
    await waitFor(() => answers(port), 60_000, 'the emulator to listen');
    npx.kill(signal);
    await waitFor(async () => !(await answers(port)), 30_000, 'the emulator to let go of its port');
    t.pass('the port is free again: nothing runs on as an orphan');
  });
}
