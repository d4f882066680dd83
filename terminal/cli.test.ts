import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runCommand } from '../server/testing/run-command.js';
import t from 'tap';
import { Link } from './protocol/link.js';
import { openPort, PtyPair, socatSkip, waitFor } from './testing/pty-pair.js';

const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));

const run = (args: string[]) => runCommand(['--import', 'tsx', cli, ...args]);

t.test('svc-terminal and each command answer --help', async (t) => {
  t.match((await run(['--help'])).out, /commands:\s+emulate[\s\S]*bridge[\s\S]*ports/);
  for (const command of ['emulate', 'bridge', 'held', 'ports']) {
    const { code, out } = await run([command, '--help']);
    t.equal(code, 0, command);
    t.match(out, new RegExp(`usage: svc-terminal ${command}`), command);
  }
  const missing = await run(['bridge', '--path', '/dev/null']);
  t.equal(missing.code, 2);
  t.match(missing.err, /bridge needs --base-url, --serial/);
  t.equal((await run(['launch'])).code, 2);
});

t.test('ports lists the machine\'s serial ports or says clearly why it cannot', async (t) => {
  const { code, out, err } = await run(['ports']);
  if (code === 0) t.ok(out.length > 0, 'a list (or "no serial ports found")');
  else t.match(err, /cannot list its serial ports/);
});

t.test('emulate answers a host on a real pseudo-terminal and takes operator commands', { skip: socatSkip() }, async (t) => {
  const line = new PtyPair(t.testdir());
  await line.start();
  const child = spawn(process.execPath, ['--import', 'tsx', cli, 'emulate', '--path', line.device, '--serial', 'CLI-1', '--debug']);
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  t.teardown(async () => {
    child.kill('SIGTERM');
    await line.stop();
  });
  await waitFor(() => out.includes('device CLI-1 on'), 10_000, 'the emulator to start');
  const port = await openPort(line.host);
  t.teardown(() => new Promise((resolve) => port.close(resolve)));
  const host = new Link(port);
  const answers: string[] = [];
  host.on('message', (payload: string) => answers.push(payload));
  await host.send('0100');
  await waitFor(() => answers.length > 0, 5000, 'the 0110 answer');
  t.equal(answers[0], '0110|CLI-1|1.0.0|0|0');
  t.match(out, /rx 02 30 31 30 30 03 02/, 'frames logged in hex at debug level');
  child.stdin.write('status\n');
  await waitFor(() => out.includes('serial CLI-1'), 5000, 'the status');
  t.pass('operator status answered on stdin');
});
