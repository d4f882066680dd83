import { spawnSync } from 'node:child_process';
import { bash } from '../server/testing/bash.js';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { missingTool } from '../contracts/common/missing-tool.js';
import { startServerProcess, stopServerProcess } from '../server/testing/server-process.js';
import { socatSkip } from './pty-pair.js';

// The terminal docs' commands (terminal/README.md and docs/terminal/*.md),
// pasted into bash in the checkout as a user would: each dialect's path
// from nothing to a sale, ZVT's flows with amounts of one's own, Adyen's
// library file as pasted, and the transcripts. Every background job they
// start is ended with them, and none writes into the checkout.

const root = fileURLToPath(new URL('..', import.meta.url));
const page = (name: string) => readFileSync(join(root, 'docs/terminal', `${name}.md`), 'utf8');

/** The `n`th block of `language` after `marker` in the dialect's page. */
function block(name: string, marker: string, n = 0, language = 'sh'): string {
  const text = page(name);
  const from = text.indexOf(marker);
  if (from === -1) throw new Error(`docs/terminal/${name}.md has no ${marker}`);
  const blocks = [...text.slice(from).matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))];
  return blocks[n]![1]!;
}

/** Runs `script` in bash from the checkout's root; its background jobs die with it. */
const inCheckout = (script: string, env: NodeJS.ProcessEnv = {}) => bash(script, root, env);

const curl = missingTool('curl', () => spawnSync('curl', ['--version']).status === 0, "install Debian's curl package");
const before = () =>
  readdirSync(root)
    .filter((name) => !['.tap', 'dist', 'node_modules'].includes(name))
    .sort();
const PATH = '## From nothing to a sale';

/** A dialect's path from nothing to a sale, against a server of the test's own; what it printed. */
async function sale(t: Test, name: string, edit: (script: string) => string = (script) => script) {
  const server = await startServerProcess({ DATA_DIR: `${t.testdir()}/data` });
  t.teardown(() => stopServerProcess(server));
  const listed = before();
  const result = await inCheckout(edit(block(name, PATH)).replace(/^B=.*$/m, `B=${server.baseUrl}`));
  t.equal(result.code, 0, result.stderr);
  t.match(result.stdout, /^order \S+ on POS-\d+: PAID$/m, `${name}: the order PAID`);
  t.same(before(), listed, `${name}: nothing written into the checkout: the secret, the state and the logs are in $W`);
  return result;
}

t.test('svc: from nothing to a sale, and the close', { skip: socatSkip() || curl }, async (t) => {
  const result = await sale(t, 'svc');
  t.match(result.stdout, /^close journaled for POS-\d+ .*: the bridge carries it out at its next cycle$/m);
});

t.test('transbank: from nothing to a sale on an emulated POS Integrado', { skip: socatSkip() || curl }, async (t) => {
  await sale(t, 'transbank');
});

t.test('zvt: from nothing to a sale over TCP, and each flow with amounts of its own', { skip: curl }, async (t) => {
  await sale(t, 'zvt', (script) => script.replaceAll('20007', '20927'));
  const flows = await inCheckout(block('zvt', '## Each flow with amounts').replaceAll('20008', '20928'));
  t.equal(flows.code, 0, flows.stdout + flows.stderr);
  t.match(flows.stdout, /amount 5000, trace 1, receipt 1/, 'the reservation');
  t.match(flows.stdout, /amount 2345, trace 2, receipt 2, original trace 1/, 'booked in part');
  t.match(flows.stdout, /reverse: completed/);
  t.match(flows.stdout, /pay: aborted: 06 1E 05/, 'a decline with its result code');
  t.match(flows.stdout, /amount 2345, trace \d+, end of day: 1 transaction\(s\)/);
});

t.test(
  "nexo: from nothing to a sale, then Adyen's library file as pasted: a payment and its status",
  { skip: curl },
  async (t) => {
    const address = '127.0.0.52';
    const result = await sale(t, 'nexo', (script) =>
      script.replaceAll('127.0.0.2', address).replace(/echo "order .*$/m, (line) => `${line}\necho "W=$W"`),
    );
    const W = /^W=(\S+)$/m.exec(result.stdout)![1]!;
    // The bash helper ended the emulator with the block: start it again, on the same state and root, for the file.
    // The bash helper ended the emulator with the block: its emulate command again (on the same $W), for the file,
    // on an address of its own (the first may still be letting go of its port).
    const fileAddress = '127.0.0.53';
    const lines = block('nexo', PATH).split('\n');
    const start = lines.findIndex((line) => line.includes('svc-terminal emulate'));
    let end = start;
    while (lines[end]!.endsWith('\\')) end += 1;
    const again = [...lines.slice(start, end + 1), lines.find((line) => line.startsWith('until grep'))!]
      .join('\n')
      .replaceAll('127.0.0.2', fileAddress);
    // The file in a folder of its own, with @adyen/api-library as its project would have it installed.
    const project = mkdtempSync(join(tmpdir(), 'adyen-project-'));
    t.teardown(() => rmSync(project, { recursive: true, force: true }));
    symlinkSync(join(root, 'node_modules'), join(project, 'node_modules'));
    writeFileSync(
      join(project, 'adyen-pay.cjs'),
      block('nexo', "## The same terminal from Adyen's Node library", 0, 'js').replaceAll('127.0.0.2', fileAddress),
    );
    const run = await bash(`W=${W}\ncd ${root}\n${again}\ncd ${project}\nW=$W node adyen-pay.cjs`, project, { W });
    t.equal(run.code, 0, run.stdout + run.stderr);
    t.match(run.stdout, /^payment: Success \S+\.\d+$/m);
    t.match(run.stdout, /^status: Success, the payment was Success$/m);
    rmSync(W, { recursive: true, force: true });
  },
);

t.test('the transcripts, each against a fresh emulated terminal: Transbank and ZVT', async (t) => {
  const transbank = await inCheckout(block('transbank', '## Transcripts to diff against, and to play', 0));
  t.equal(transbank.code, 0, transbank.stdout + transbank.stderr);
  t.equal(transbank.stdout.match(/ok: \d+ frames, byte for byte/g)?.length, 7, 'all seven');
  const zvt = await inCheckout(block('zvt', '## Transcripts\n', 0));
  t.equal(zvt.code, 0, zvt.stdout + zvt.stderr);
  t.equal(zvt.stdout.match(/ok: \d+ APDUs, byte for byte/g)?.length, 9, 'all nine');
});

t.test(
  'a transcript against an emulator on a pseudo-terminal pair, and one over TCP',
  { skip: socatSkip() },
  async (t) => {
    const serial = await inCheckout(block('transbank', '## Transcripts to diff against, and to play', 1));
    t.equal(serial.code, 0, serial.stdout + serial.stderr);
    t.match(serial.stdout, /ok: \d+ frames, byte for byte/);
    const tcp = await inCheckout(block('zvt', '## Transcripts\n', 1).replace(/20007/g, '20917'));
    t.equal(tcp.code, 0, tcp.stdout + tcp.stderr);
    t.match(tcp.stdout, /ok: 38 APDUs, byte for byte/);
  },
);

t.test('terminal/README.md links a page per dialect, each starting with its path, and stays short', (t) => {
  const readme = readFileSync(join(root, 'terminal/README.md'), 'utf8');
  for (const name of ['svc', 'transbank', 'zvt', 'nexo', 'shared']) {
    t.match(readme, `../docs/terminal/${name}.md`, `links ${name}.md`);
    if (name !== 'shared')
      t.match(
        page(name).split('\n## ')[1] ?? '',
        /^From nothing to a sale, copy and paste/,
        `${name}.md starts with its path`,
      );
  }
  t.ok(Buffer.byteLength(readme) <= 20 * 1024, `${Buffer.byteLength(readme)} bytes`);
  t.end();
});
