import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { runCommand } from '../../server/testing/run-command.js';
import { registerAccount, startTestServer } from '../../server/testing/test-server.js';
import { waitFor } from '../../server/testing/wait-for.js';

// svc-relay takes its token as every command does: a file, SVC_TOKEN, or
// the flag with a warning; without one it says how to give it.

const cli = fileURLToPath(new URL('./svc-relay.ts', import.meta.url));
const forwardTo = 'http://127.0.0.1:9/webhooks';

t.test('without a token: a usage error that says how to give one', async (t) => {
  const { code, err } = await runCommand(
    ['--import', 'tsx', cli, '--base-url', 'http://127.0.0.1:9', '--forward-to', forwardTo],
    { ...process.env, SVC_TOKEN: '' },
  );
  t.equal(code, 2);
  t.match(err, /svc-relay: missing the token \(give the API token with --token-file FILE or SVC_TOKEN\)/);
});

t.test('a token from a file connects quietly; one on the command line connects with a warning', async (t) => {
  const server = await startTestServer(t);
  const account = await registerAccount(server.api);
  const file = `${t.testdir()}/token`;
  writeFileSync(file, `${account.key.token}\n`);
  for (const [how, args] of [
    ['file', ['--token-file', file]],
    ['flag', ['--token', account.key.token]],
  ] as const) {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', cli, '--base-url', server.baseUrl, '--forward-to', forwardTo, ...args],
      { env: { ...process.env, SVC_TOKEN: '' } },
    );
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    await waitFor(() => /connected/.test(out), 10_000, `svc-relay (token by ${how}) to connect`);
    child.kill('SIGTERM');
    t.equal(await exited, 0, `${how}: stops cleanly`);
    if (how === 'file') t.equal(err, '', 'file: no warning');
    else t.match(err, /^svc-relay: warning: --token is visible to every local user in ps/m, 'flag: the warning');
  }
});
