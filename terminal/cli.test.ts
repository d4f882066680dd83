import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { BridgeState } from './bridge/bridge-state.js';
import { SaleJournal } from './bridge/transbank/sale-journal.js';
import { Link } from './protocol/link.js';
import { openPort, PtyPair, socatSkip } from './pty-pair.js';
import { waitFor } from '../server/testing/wait-for.js';

import { runCli as run, startCli } from './testing/cli-io.js';

// svc-terminal's commands in this process (main(argv, io)); the two tests
// that need a real process (a kill -9, a pipe closed early) spawn the bin.
const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));

t.test('svc-terminal and each command answer --help', async (t) => {
  t.match((await run(['--help'])).out, /commands:\s+emulate[\s\S]*bridge[\s\S]*ports/);
  for (const command of ['emulate', 'bridge', 'held', 'retry', 'ports']) {
    const { code, out } = await run([command, '--help']);
    t.equal(code, 0, command);
    t.match(out, new RegExp(`usage: svc-terminal ${command}`), command);
  }
  const missing = await run(['bridge', '--path', '/dev/null']);
  t.equal(missing.code, 2);
  t.match(missing.err, /bridge needs --base-url, --serial/);
  t.equal((await run(['launch'])).code, 2);
});

t.test("ports lists the machine's serial ports or says clearly why it cannot", async (t) => {
  const { code, out, err } = await run(['ports']);
  if (code === 0) t.ok(out.length > 0, 'a list (or "no serial ports found")');
  else t.match(err, /cannot list its serial ports/);
});

t.test(
  'emulate answers a host on a real pseudo-terminal and takes operator commands',
  { skip: socatSkip() },
  async (t) => {
    const line = new PtyPair(t.testdir());
    await line.start();
    const emulator = startCli(['emulate', '--path', line.device, '--serial', 'CLI-1', '--debug']);
    const out = emulator.out;
    t.teardown(async () => {
      await emulator.stop();
      await line.stop();
    });
    await waitFor(() => out().includes('device CLI-1 on'), 10_000, 'the emulator to start');
    const port = await openPort(line.host);
    t.teardown(() => new Promise((resolve) => port.close(resolve)));
    const host = new Link(port);
    const answers: string[] = [];
    host.on('message', (payload: string) => answers.push(payload));
    await host.send('0100');
    await waitFor(() => answers.length > 0, 5000, 'the 0110 answer');
    t.equal(answers[0], '0110|CLI-1|1.0.0|0|0');
    // The log reaches this process by its own pipe, maybe after the answer on the line.
    await waitFor(() => /rx 02 30 31 30 30 03 02/.test(out()), 5000, 'the frame in hex at debug level');
    t.pass('frames logged in hex at debug level');
    emulator.type('status');
    await waitFor(() => out().includes('serial CLI-1'), 5000, 'the status');
    t.pass('operator status answered on stdin');
    t.equal(await emulator.stop(), 0, 'stopped as by SIGTERM: the line closed, exit 0');
  },
);

t.test(
  'a mistyped option or dialect is a usage error: exit 2, one line and where to read more, never a stack trace',
  async (t) => {
    const unknown = await run(['bridge', '--dialectt', 'svc']);
    t.equal(unknown.code, 2);
    t.match(unknown.err, /^svc-terminal: unknown option --dialectt\n\(svc-terminal bridge --help says more\)\n$/);
    t.notMatch(unknown.err, /ERR_PARSE_ARGS|at parseArgs/);
    const dialect = await run(['emulate', '--path', '/dev/null', '--serial', 'S1', '--dialect', 'x']);
    t.equal(dialect.code, 2);
    t.match(dialect.err, /--dialect is svc, transbank, zvt or nexo, got "x"/);
    const long = await run(['emulate', '--path', '/dev/null', '--serial', 'TOO-LONG-ID', '--dialect', 'transbank']);
    t.equal(long.code, 2);
    t.match(long.err, /a Transbank terminal id is at most 8 characters/);
    t.equal((await run(['held', '--serial', 'S1', '--bogus'])).code, 2);
    const bridgeDialect = await run([
      'bridge',
      '--path',
      '/dev/null',
      '--base-url',
      'http://127.0.0.1:1',
      '--serial',
      'S1',
      '--dialect',
      'x',
    ]);
    t.equal(bridgeDialect.code, 2);
    t.equal(
      bridgeDialect.err,
      'svc-terminal: --dialect is svc, transbank, zvt or nexo, got "x"\n(svc-terminal bridge --help says more)\n',
    );
    const command = await run(['emulat']);
    t.equal(command.err, 'svc-terminal: unknown command "emulat"\n(svc-terminal --help says more)\n');
    const version = await run(['--version']);
    t.match(version.out, /^svc-terminal \d+\.\d+\.\d+ \(svc-pos-sim\)\n$/);
  },
);

t.test(
  'retry: a sale the POS declined is sent again by the bridge; an order that was not declined is a clear error',
  async (t) => {
    const stateDir = t.testdir();
    const notDeclined = await run(['retry', 'o-1', '--serial', 'S1', '--state-dir', stateDir]);
    t.equal(notDeclined.code, 2);
    t.match(notDeclined.err, /order o-1 has no sale declined by the POS of S1/);
    t.equal((await run(['retry', '--serial', 'S1'])).code, 2, 'no order');
    const state = await BridgeState.open(stateDir, 'S1');
    const journal = await SaleJournal.open(state.dir);
    await journal.decline('sale:o-1', { responseCode: '05', at: new Date().toISOString() });
    const retried = await run(['retry', 'o-1', '--serial', 'S1', '--state', stateDir]);
    t.equal(retried.code, 0, retried.err);
    t.match(
      notDeclined.err,
      /warning: --state-dir is the old spelling: --state /,
      'the old spelling works, and says the new',
    );
    t.match(retried.out, /retry o-1: the bridge sends it to the POS again at its next cycle/);
    t.equal(await state.retryRequested('o-1'), true, 'written where the bridge looks');
  },
);

t.test(
  'emulate --dialect transbank: the official SDK sells through it, and its memory survives a restart',
  { skip: socatSkip() },
  async (t) => {
    const { default: sdk } = await import('transbank-pos-sdk');
    const dir = t.testdir();
    const line = new PtyPair(dir);
    await line.start();
    const start = () => {
      const child = spawn(process.execPath, [
        '--import',
        'tsx',
        cli,
        'emulate',
        '--dialect',
        'transbank',
        '--path',
        line.device,
        '--serial',
        'TBK-CLI',
        '--state',
        `${dir}/pos.json`,
        '--card-delay',
        '200ms',
      ]);
      let out = '';
      child.stdout.on('data', (c) => (out += c));
      return { child, output: () => out };
    };
    let emulator = start();
    t.teardown(async () => {
      emulator.child.kill('SIGKILL');
      await line.stop();
    });
    await waitFor(() => emulator.output().includes('transbank device TBK-CLI on'), 10_000, 'the emulator to start');
    const register = new sdk.POSIntegrado();
    register.posTimeout = 3000;
    await register.connect(line.host);
    t.match(await register.sale(1_990, 'A1'), { successful: true, operationNumber: '000001', terminalId: 'TBK-CLI' });
    await register.disconnect();

    const exited = new Promise((resolve) => emulator.child.once('exit', resolve));
    emulator.child.kill('SIGKILL');
    await exited;
    emulator = start();
    await waitFor(() => emulator.output().includes('transbank device TBK-CLI on'), 10_000, 'the emulator to restart');
    t.match(emulator.output(), /memory in .*pos\.json: 1 sale\(s\) in the batch, next operation 2/);
    await register.connect(line.host);
    t.match(
      await register.getLastSale(),
      { successful: true, ticket: '0000A1', amount: 1990, operationNumber: '000001' },
      'the last sale, after a kill -9',
    );
    t.match(
      await register.sale(10, 'A2'),
      { successful: false, responseCode: 10 },
      'an amount of 10 pesos is refused with 10',
    );
    t.match(
      await register.sale(2_000, 'A3'),
      { successful: true, operationNumber: '000002' },
      'the operation counter went on',
    );
    t.match(await register.getTotals(), { txCount: 2, txTotal: 3_990 });
    await register.disconnect();
  },
);

t.test('held piped into a reader that stops early ends quietly; a secret given twice says which is used', async (t) => {
  const { spawnSync } = await import('node:child_process');
  const { mkdirSync, writeFileSync } = await import('node:fs');
  const dir = t.testdir();
  // Many held records, so the output outlives `head -1`.
  const held = `${dir}/S1/held`;
  mkdirSync(held, { recursive: true });
  for (let i = 0; i < 300; i += 1) {
    writeFileSync(
      `${held}/0210-${i}-abcdef01.json`,
      JSON.stringify({
        key: `0210-${i}-abcdef01`,
        record: { code: '0210', seq: i },
        message: `0210|${i}|o|1|USD|A|t`,
        reason: 'test',
        server: { status: 409 },
        heldAt: 't',
      }),
    );
  }
  const piped = spawnSync(
    'sh',
    [
      '-c',
      `${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(cli)} held --serial S1 --state ${JSON.stringify(dir)} | head -1`,
    ],
    { encoding: 'utf8' },
  );
  t.notMatch(piped.stderr, /EPIPE|Error/, 'no error on stderr');
  t.match(piped.stdout, /^0210-/);

  const secretFile = `${dir}/secret`;
  writeFileSync(secretFile, 'a'.repeat(64));
  const both = await run(
    [
      'bridge',
      '--path',
      '/nonexistent',
      '--serial',
      'S1',
      '--base-url',
      'http://127.0.0.1:9',
      '--secret-file',
      secretFile,
      '--state',
      dir,
      '--bogus-after',
    ],
    { ...process.env, SVC_TERMINAL_SECRET: 'b'.repeat(64) },
  );
  t.equal(both.code, 2, 'the mistyped option is found first');
  const twice = startCli(
    [
      'bridge',
      '--path',
      '/nonexistent',
      '--serial',
      'S1',
      '--base-url',
      'http://127.0.0.1:9',
      '--secret-file',
      secretFile,
      '--state',
      dir,
    ],
    { ...process.env, SVC_TERMINAL_SECRET: 'b'.repeat(64) },
  );
  await waitFor(() => twice.err().includes('warning'), 10_000, 'the warning');
  t.equal(await twice.stop(), 0, 'stopped as by SIGTERM');
  t.match(
    twice.err(),
    /warning: the terminal's secret is given by --secret-file and SVC_TERMINAL_SECRET; --secret-file is used/,
  );
});

t.test('a bridge whose journal cannot be read stops with exit 1, naming the failure by its code', async (t) => {
  const dir = t.testdir();
  // A directory where the journal's file should be: reading it fails as a damaged disk would.
  mkdirSync(join(dir, 'J1', 'asked.json'), { recursive: true });
  const { code, err } = await run(
    ['bridge', '--base-url', 'http://127.0.0.1:9', '--serial', 'J1', '--path', '/dev/null', '--state', dir],
    { ...process.env, SVC_TERMINAL_SECRET: '0'.repeat(64) },
  );
  t.equal(code, 1);
  t.match(err, /^svc-terminal: the journal file .*asked\.json failed: .*EISDIR.* \[JOURNAL_FAILED\]\n$/);
});
