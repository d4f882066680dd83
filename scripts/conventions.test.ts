import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';

// One convention across the commands, checked on each as a user runs it
// (compiled, as installed): a mistyped option is one line in our words and
// where to read more (exit 2), never the parser's text; nothing answering
// at the address given is exit 3, said in one line, whatever the command.

const root = fileURLToPath(new URL('..', import.meta.url));
const bins = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { bin: Record<string, string> }
).bin;
const bin = (name: string) => fileURLToPath(new URL(`../${bins[name]}`, import.meta.url));

const run = (name: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
  promisify(execFile)(process.execPath, [bin(name), ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    timeout: 60_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: error.code ?? -1,
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }),
  );

const COMMANDS = [
  'svc-relay',
  'svc-terminal',
  'svc-contracts',
  'svc-scenario',
  'svc-replay',
  'svc-race',
  'svc-demo',
  'svc-store',
];

t.test('a mistyped option: one line of ours, where to read more, exit 2', async (t) => {
  for (const name of COMMANDS) {
    const args =
      name === 'svc-terminal' ? ['emulate', '--bogus'] : name === 'svc-scenario' ? ['run', '--bogus'] : ['--bogus'];
    const answer = await run(name, args);
    t.equal(answer.code, 2, `${name}: exit 2`);
    t.match(
      answer.stderr,
      new RegExp(`^${name}: unknown option --bogus\\n\\(${name}.* --help says more\\)\\n$`),
      `${name}: one line`,
    );
    t.notMatch(answer.stderr, /positional argument|ERR_PARSE_ARGS/, `${name}: not the parser's words`);
  }
  const none = await run('svc-scenario', []);
  t.equal(none.code, 2);
  t.equal(
    none.stderr,
    'svc-scenario: name a command: run FILE… (or schema)\n(svc-scenario --help says more)\n',
    'svc-scenario with nothing: one line, not its usage',
  );
});

t.test('nothing answering is exit 3, in one line, for every command that reaches out', async (t) => {
  // A port nothing listens on.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  const url = `http://127.0.0.1:${port}`;
  const secret = { SVC_TERMINAL_SECRET: 'ab'.repeat(32) };
  const cases: Array<[string, string[], NodeJS.ProcessEnv?]> = [
    ['svc-contracts', ['--base-url', url]],
    ['svc-scenario', ['run', '--base-url', url, 'fixtures/scenarios/discard-then-commit.json']],
    ['svc-replay', ['--base-url', url, '--terminal', 'T1', 'fixtures/batches/pos-0001-usd-week.json'], secret],
    ['svc-race', ['--base-url', url, '--orders', '1']],
    ['svc-demo', ['--base-url', url]],
    ['svc-terminal', ['play', '--host', `127.0.0.1:${port}`, 'fixtures/serial/zvt/registration-and-status.json']],
  ];
  for (const [name, args, env] of cases) {
    const answer = await run(name, args, env);
    t.equal(answer.code, 3, `${name}: exit 3`);
    t.match(answer.stderr, /cannot reach/, `${name}: says it cannot reach`);
    t.notMatch(answer.stderr, /TypeError|\n\s+at /, `${name}: no stack trace`);
  }
});
