import { spawnSync } from 'node:child_process';
import { bash } from '../server/testing/bash.js';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { missingTool } from '../contracts/common/missing-tool.js';
import { startServerProcess, stopServerProcess } from '../server/testing/server-process.js';
import { socatSkip } from './pty-pair.js';

// terminal/README.md's commands, pasted into bash in the checkout as a user
// would: the hardware path (account, provisioning, device, bridge, a sale),
// and the transcripts (each against a fresh emulated terminal, and one on a
// pseudo-terminal pair). Every background job they start is ended with them.

const root = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(new URL('./README.md', import.meta.url), 'utf8');

/** The `n`th sh block after `marker` in terminal/README.md. */
function block(marker: string, n = 0): string {
  const from = readme.indexOf(marker);
  if (from === -1) throw new Error(`terminal/README.md has no ${marker}`);
  const blocks = [...readme.slice(from).matchAll(/```sh\n([\s\S]*?)```/g)];
  return blocks[n]![1]!;
}

/** Runs `script` in bash from the checkout's root; its background jobs die with it. */
const inCheckout = (script: string) => bash(script, root);

const curl = missingTool('curl', () => spawnSync('curl', ['--version']).status === 0, "install Debian's curl package");
const before = readdirSync(root).sort();

t.test(
  'from nothing to a sale: an account, a terminal provisioned, an emulated device and the bridge, the order PAID',
  { skip: socatSkip() || curl },
  async (t) => {
    const server = await startServerProcess({ DATA_DIR: `${t.testdir()}/data` });
    t.teardown(() => stopServerProcess(server));
    const script = block('### From nothing to a sale').replace(/^B=.*$/m, `B=${server.baseUrl}`);
    const result = await inCheckout(script);
    t.equal(result.code, 0, result.stderr);
    t.match(result.stdout, /^order \S+ on POS-\d+: PAID$/m);
    t.match(result.stdout, /^close journaled for POS-\d+ .*: the bridge carries it out at its next cycle$/m);
    t.same(readdirSync(root).sort(), before, 'nothing written into the checkout: the secret and the logs are in $W');
  },
);

t.test('the transcripts, each against a fresh emulated terminal: Transbank and ZVT', async (t) => {
  const transbank = await inCheckout(block('### Transcripts to diff against, and to play', 0));
  t.equal(transbank.code, 0, transbank.stdout + transbank.stderr);
  t.equal(transbank.stdout.match(/ok: \d+ frames, byte for byte/g)?.length, 7, 'all seven');
  const zvt = await inCheckout(block('### Transcripts\n', 0));
  t.equal(zvt.code, 0, zvt.stdout + zvt.stderr);
  t.equal(zvt.stdout.match(/ok: \d+ APDUs, byte for byte/g)?.length, 9, 'all nine');
});

t.test(
  'a transcript against an emulator on a pseudo-terminal pair, and one over TCP',
  { skip: socatSkip() },
  async (t) => {
    const serial = await inCheckout(block('### Transcripts to diff against, and to play', 1));
    t.equal(serial.code, 0, serial.stdout + serial.stderr);
    t.match(serial.stdout, /ok: 54 frames, byte for byte|ok: \d+ frames, byte for byte/);
    const tcp = await inCheckout(block('### Transcripts\n', 1).replace(/20007/g, '20917'));
    t.equal(tcp.code, 0, tcp.stdout + tcp.stderr);
    t.match(tcp.stdout, /ok: 38 APDUs, byte for byte/);
  },
);
