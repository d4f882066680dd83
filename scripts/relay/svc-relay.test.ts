import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { runCommand } from '../../server/testing/run-command.js';
import { registerAccount, startTestServer } from '../../server/testing/test-server.js';
import { runLaddersOut, traceOf, webhookSetup } from '../../server/webhooks/webhooks-testkit.js';
import { startExampleReceiver } from '../example-receiver.js';
import { defaultStateFile, readCursor, saveCursor } from './relay-state.js';
import { parseDuration } from '../../contracts/cli/duration.js';
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
  const dir = t.testdir();
  const file = `${dir}/token`;
  writeFileSync(file, `${account.key.token}\n`);
  for (const [how, args] of [
    ['file', ['--token-file', file]],
    ['flag', ['--token', account.key.token]],
  ] as const) {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', cli, '--base-url', server.baseUrl, '--forward-to', forwardTo, ...args],
      { env: { ...process.env, SVC_TOKEN: '', XDG_STATE_HOME: dir } },
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

/** svc-relay as a user runs it, its output gathered. */
function runRelay(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ['--import', 'tsx', cli, ...args], { env: { ...process.env, ...env } });
  const output = { out: '', err: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output.out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output.err += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { child, output, exited };
}

t.test(
  'the relay process killed for a while misses nothing: started again, it resumes from its kept cursor',
  async (t) => {
    const server = await startTestServer(t);
    const { sessionTo, force, account, secret } = await webhookSetup(server);
    const received: string[] = [];
    const receiver = await startExampleReceiver({
      secret,
      now: () => server.clock.now(),
      onEvent: (e) => received.push(e.event_id),
    });
    t.teardown(() => receiver.server.close());
    const state = `${t.testdir()}/relay-state.json`;
    const args = ['--base-url', server.baseUrl, '--forward-to', receiver.url, '--state', state];
    const env = { SVC_TOKEN: account.key.token };
    const paid = async () => {
      const session = await sessionTo('http://localhost:4000/webhooks');
      await force(session.session_id, 1, 'paid');
      await server.app.jobs.dispatcher.runDue();
    };

    const first = runRelay(args, env);
    await waitFor(() => /nothing missed \(cursor 0\)/.test(first.output.out), 10_000, 'svc-relay to connect');
    for (let i = 0; i < 5; i += 1) await paid();
    await waitFor(() => received.length === 10, 10_000, 'ten deliveries');
    await waitFor(() => readCursor(state).position === 10, 5000, 'the kept cursor');
    first.child.kill('SIGKILL');
    await first.exited;
    await waitFor(() => !server.app.jobs.relay.isConnected(account.account_id), 5000, 'the server to see it gone');

    for (let i = 0; i < 5; i += 1) await paid();
    for (let i = 0; i < 5; i += 1) await sessionTo('http://localhost:4000/webhooks');
    await runLaddersOut(server);
    t.equal((await traceOf(server, account.account_id, 'webhook.gave_up')).length, 15, '15 given up while it was away');

    const second = runRelay(args, env);
    t.teardown(() => second.child.kill('SIGKILL'));
    await waitFor(() => received.length === 25, 10_000, 'every missed delivery');
    t.match(second.output.out, /cursor 10 \(.*relay-state\.json\)/, 'it says which cursor it kept, and where');
    t.match(second.output.out, /resuming 15 missed deliveries, first routed at \S+ \(cursor 10\)/);
    // Its line comes once the receiver has answered, after the receiver counted it.
    await waitFor(() => second.output.out.match(/\(resumed\) → POST/g)?.length === 15, 5000, 'the lines');
    t.pass('a line per resumed delivery, marked so');
    t.equal(new Set(received).size, 25, '0 of 25 lost, none twice');
    t.match(second.output.out, /Z payment_session\.\w+ evt_\S+ \(resumed\) → POST/, 'each line names the event type');
    second.child.kill('SIGTERM');
    t.equal(await second.exited, 0);
    t.equal(readCursor(state).position, 25, 'the cursor kept at the end');
    t.match(
      second.output.out,
      /stopping \(SIGTERM\)\nstopped; cursor 25 kept in .*relay-state\.json: what comes while the relay is away is sent when it starts again\n$/,
      'it says it stopped, and what it kept',
    );
  },
);

t.test(
  'the state file: named by a hash of the server and token, written whole, unreadable said so; durations',
  async (t) => {
    const dir = t.testdir();
    const file = defaultStateFile('http://127.0.0.1:3000/', 'sk_secret', { XDG_STATE_HOME: dir });
    t.match(file, new RegExp(`^${dir}/svc-relay/[0-9a-f]{16}\\.json$`));
    t.notMatch(file, /sk_secret/, 'never the token itself');
    t.not(file, defaultStateFile('http://127.0.0.1:3000/', 'sk_other', { XDG_STATE_HOME: dir }), 'one per token');
    t.same(readCursor(file), { position: null }, 'absent: a first connection');
    saveCursor(file, 42);
    t.same(readCursor(file), { position: 42 });
    writeFileSync(file, '{"cursor":');
    t.match(readCursor(file), { position: null, warning: /holds no cursor; starting without one/ });
    t.equal(parseDuration('2h'), 7_200_000);
    t.equal(parseDuration('30m'), 1_800_000);
    t.equal(parseDuration('90'), null, 'a bare number has no unit');
    t.equal(parseDuration('1.5s'), 1500);
    t.equal(parseDuration('200ms'), 200);
    t.equal(parseDuration('2 days'), null);
    t.equal(parseDuration('0s'), 0);
    const bad = await runCommand(
      ['--import', 'tsx', cli, '--base-url', 'http://127.0.0.1:9', '--forward-to', forwardTo, '--backfill', '3d'],
      {
        ...process.env,
        SVC_TOKEN: 'sk_x',
        XDG_STATE_HOME: dir,
      },
    );
    t.equal(bad.code, 2);
    t.match(
      bad.err,
      /--backfill takes a duration with its unit \(200ms, 5s, 2m\), got "3d" \(30m or 2h, at most 24h\)/,
    );
  },
);
