import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { validatingFetch } from '../../contracts/testing/contract-client.js';
import { runCommand } from '../../server/testing/run-command.js';
import { merchantWithTerminal, signingClock, startTestServer } from '../../server/testing/test-server.js';
import { Bridge } from '../../terminal/bridge/bridge.js';
import { svcDialect } from '../../terminal/bridge/svc/svc-dialect.js';
import { BridgeState } from '../../terminal/bridge/bridge-state.js';
import { PosClient } from '../../contracts/clients/pos-client.js';
import { openPort, PtyPair, socatSkip } from '../../terminal/pty-pair.js';
import { loadBatches, replayBatches } from './replay.js';

const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/batches/${name}`, import.meta.url));
const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));

const runCli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCommand(['--import', 'tsx', cli, ...args], { ...process.env, ...env });

t.test('replaying the same files again reports replays, never duplicates', async (t) => {
  const server = await startTestServer(t);
  const merchant = await merchantWithTerminal(server);
  const options = {
    baseUrl: server.baseUrl,
    terminal: merchant.serialNumber,
    secret: merchant.secret,
    files: [fixture('pos-0001-usd-week.json'), fixture('pos-0002-eur-ars.json')],
    out: () => undefined,
    fetch: validatingFetch(),
    now: signingClock(server),
  };
  const first = await replayBatches(options);
  t.equal(first.exitCode, 0);
  t.same(
    first.results.map((r) => r.outcome),
    Array(7).fill('created'),
  );
  const second = await replayBatches(options);
  t.equal(second.exitCode, 0);
  t.same(
    second.results.map((r) => r.outcome),
    Array(7).fill('replayed'),
  );
  const stored = await server.api.get(
    `${merchant.merchantPath}/pos-terminals/${merchant.serialNumber}/settlements?size=100`,
    { token: merchant.account.key.token },
  );
  t.equal(stored.body.data.length, 7, 'seven settlements, not fourteen');
});

t.test(
  'the edge cases: longest fields created, the same batch replayed, a conflicting one reported with the exit code 1',
  async (t) => {
    const server = await startTestServer(t);
    const merchant = await merchantWithTerminal(server);
    const lines: string[] = [];
    const now = signingClock(server);
    const { results, exitCode } = await replayBatches({
      baseUrl: server.baseUrl,
      terminal: merchant.serialNumber,
      secret: merchant.secret,
      files: [fixture('edge-cases.json')],
      out: (l) => lines.push(l),
      fetch: validatingFetch(),
      now,
    });
    t.same(
      results.map((r) => r.outcome),
      ['created', 'created', 'replayed', 'conflict'],
    );
    t.match(results[3]!.reason, /SETTLEMENT_CONFLICT/);
    // The conflict is the file's purpose: said so, and not a failure.
    t.match(lines[3], /^conflict TWICE-0001 .* \(intended: the same batch number as #1/);
    t.equal(exitCode, 0, 'every refusal intended');
    t.match(
      lines.at(-1),
      /4 settlements: 2 created, 1 replayed, 1 conflict, 0 rejected; 1 refused as their file intended$/,
    );
    // Again: the same answers, no duplicates.
    const again = await replayBatches({
      baseUrl: server.baseUrl,
      terminal: merchant.serialNumber,
      secret: merchant.secret,
      files: [fixture('edge-cases.json')],
      out: () => {},
      fetch: validatingFetch(),
      now,
    });
    t.same(
      again.results.map((r) => r.outcome),
      ['replayed', 'replayed', 'replayed', 'conflict'],
    );
    t.equal(again.exitCode, 0);
  },
);

t.test(
  'a settlement its file means to be refused fails the replay when it is not; an unintended refusal fails it too',
  async (t) => {
    const server = await startTestServer(t);
    const merchant = await merchantWithTerminal(server);
    const settlement = {
      batchNumber: 'MEANT-0001',
      transactionCount: 2,
      closedAt: '2026-11-21T10:00:00.000Z',
      currencyReference: 'USD',
      terminal: 'X',
      debitBatch: 'DB-M',
    };
    const file = `${t.testdir()}/meant.json`;
    writeFileSync(
      file,
      JSON.stringify({
        description: 'a conflict that is not one',
        settlements: [settlement],
        intended: [{ index: 0, outcome: 'conflict', why: 'to see it refused' }],
      }),
    );
    const lines: string[] = [];
    const run = await replayBatches({
      baseUrl: server.baseUrl,
      terminal: merchant.serialNumber,
      secret: merchant.secret,
      files: [file],
      out: (l) => lines.push(l),
      now: signingClock(server),
    });
    t.equal(run.exitCode, 1);
    t.match(lines[0], /^created {2}MEANT-0001 .*NOT AS INTENDED: the file expects conflict, because to see it refused/);
    t.match(lines.at(-1), /; 1 not as expected$/);
    const plain = `${t.testdir()}/plain.json`;
    writeFileSync(
      plain,
      JSON.stringify({ description: 'a conflict nobody meant', settlements: [{ ...settlement, transactionCount: 3 }] }),
    );
    t.equal(
      (
        await replayBatches({
          baseUrl: server.baseUrl,
          terminal: merchant.serialNumber,
          secret: merchant.secret,
          files: [plain],
          out: () => {},
          now: signingClock(server),
        })
      ).exitCode,
      1,
    );
    // A malformed "intended" list is refused when the file is read.
    const bad = `${t.testdir()}/bad.json`;
    writeFileSync(
      bad,
      JSON.stringify({ settlements: [settlement], intended: [{ index: 4, outcome: 'conflict', why: 'x' }] }),
    );
    await t.rejects(
      loadBatches([bad], 'T'),
      /bad\.json: "intended" names settlement 4, which the file does not have \(0 to 0\)/,
    );
    writeFileSync(
      bad,
      JSON.stringify({ settlements: [settlement], intended: [{ index: 0, outcome: 'lost', why: 'x' }] }),
    );
    await t.rejects(loadBatches([bad], 'T'), /outcome of #0 is one of created, replayed, conflict, rejected/);
  },
);

t.test('the replay command: --help, usage errors, provisioning with a merchant token, and its exit code', async (t) => {
  const server = await startTestServer(t);
  server.clock.set(Date.now()); // the command signs with the real time
  const merchant = await merchantWithTerminal(server);
  t.match((await runCli(['--help'])).out, /usage: svc-replay/);
  t.equal((await runCli([fixture('edge-cases.json')])).code, 2, 'no --terminal');
  // The API token from SVC_TOKEN: nothing secret on the command line, which npm echoes.
  const provisioned = await runCli(
    [
      '--base-url',
      server.baseUrl,
      '--terminal',
      'REPLAY-NEW',
      '--merchant-id',
      merchant.account.merchant_id,
      fixture('pos-0001-usd-week.json'),
    ],
    { SVC_TOKEN: merchant.account.key.token },
  );
  t.equal(provisioned.code, 0, provisioned.err);
  t.equal(provisioned.err, '', 'no warning');
  t.match(provisioned.out, /provisioned REPLAY-NEW/);
  t.match(provisioned.out, /5 settlements: 5 created, 0 replayed, 0 conflicts, 0 rejected/);
  // The secret from a file; a wrong one is the server's SIGNATURE_INVALID.
  const secretFile = `${t.testdir()}/secret`;
  writeFileSync(secretFile, `${'0'.repeat(64)}\n`);
  const wrongSecret = await runCli([
    '--base-url',
    server.baseUrl,
    '--terminal',
    merchant.serialNumber,
    '--secret-file',
    secretFile,
    fixture('pos-0001-usd-week.json'),
  ]);
  t.equal(wrongSecret.code, 1);
  t.match(wrongSecret.out, /rejected .* SIGNATURE_INVALID/);
  // On the command line: it works, with a warning.
  const flagged = await runCli([
    '--base-url',
    server.baseUrl,
    '--terminal',
    merchant.serialNumber,
    '--secret',
    merchant.secret,
    fixture('pos-0001-usd-week.json'),
  ]);
  t.equal(flagged.code, 0, flagged.err);
  t.match(
    flagged.err,
    /^replay: warning: --secret is visible to every local user in ps \(and npm prints it\): prefer --secret-file or SVC_TERMINAL_SECRET$/m,
  );
  // A malformed secret is refused before anything is sent.
  const malformed = await runCli([
    '--base-url',
    server.baseUrl,
    '--terminal',
    merchant.serialNumber,
    '--secret',
    '00',
    fixture('pos-0001-usd-week.json'),
  ]);
  t.equal(malformed.code, 2, 'a usage error');
  t.match(
    malformed.err,
    /replay: the terminal's secret is 64 lowercase hex characters, as shown once at provisioning; what was given is not \(2 characters\)/,
  );
  t.equal(malformed.out, '', 'nothing sent');
  const none = await runCli(
    ['--base-url', server.baseUrl, '--terminal', merchant.serialNumber, fixture('pos-0001-usd-week.json')],
    { SVC_TERMINAL_SECRET: '', SVC_TOKEN: '' },
  );
  t.equal(none.code, 2);
  t.match(none.err, /give the terminal's secret \(--secret-file FILE or SVC_TERMINAL_SECRET\)/);
});

t.test(
  "replay through the serial line: the batches become the device's records and the bridge delivers them",
  { skip: socatSkip() },
  async (t) => {
    const server = await startTestServer(t);
    server.clock.set(Date.now());
    const merchant = await merchantWithTerminal(server);
    const dir = t.testdir();
    const line = new PtyPair(dir);
    await line.start();
    t.teardown(() => line.stop());
    const child = spawn(process.execPath, [
      '--import',
      'tsx',
      cli,
      '--via-serial',
      line.device,
      '--terminal',
      merchant.serialNumber,
      fixture('pos-0002-eur-ars.json'),
    ]);
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    while (!out.includes('queued')) await new Promise((resolve) => setTimeout(resolve, 20));
    const client = new PosClient({
      baseUrl: server.baseUrl,
      serialNumber: merchant.serialNumber,
      secret: merchant.secret,
      fetch: validatingFetch(),
    });
    const state = await BridgeState.open(`${dir}/bridge-state`, merchant.serialNumber);
    const bridge = new Bridge({
      dialect: svcDialect,
      open: () => openPort(line.host),
      client,
      state,
      answerTimeoutMs: 2000,
      pollMs: 20,
    });
    const running = bridge.run();
    t.equal(await exited, 0);
    await bridge.stop();
    await running;
    t.match(out, /2 settlements collected and confirmed by the bridge/);
    const stored = await server.api.get(`${merchant.merchantPath}/pos-terminals/${merchant.serialNumber}/settlements`, {
      token: merchant.account.key.token,
    });
    t.same(stored.body.data.map((s: { batchNumber: string }) => s.batchNumber).sort(), ['ARS-0001', 'EUR-0001']);
  },
);

t.test('a terminal the server does not know: said once, what to do, nothing more sent', async (t) => {
  const server = await startTestServer(t);
  const lines: string[] = [];
  const replayed = await replayBatches({
    baseUrl: server.baseUrl,
    terminal: 'NEVER-PROVISIONED',
    secret: 'ab'.repeat(32),
    files: [fixture('pos-0001-usd-week.json'), fixture('pos-0002-eur-ars.json')],
    out: (line) => lines.push(line),
    fetch: validatingFetch(),
    now: signingClock(server),
  });
  t.equal(replayed.exitCode, 1);
  t.equal(replayed.results.length, 1, 'one refusal, not one for each settlement');
  t.match(
    lines.at(-1),
    /^stopped: the server refuses terminal NEVER-PROVISIONED's signature \(401 SIGNATURE_INVALID\): either NEVER-PROVISIONED is not provisioned on .* or the secret given is not its own\. Provision it \(--merchant-id M with SVC_TOKEN does.*; 6 settlement\(s\) not sent$/,
  );
});
