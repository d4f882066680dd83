import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { decodeApdu } from '../protocol/zvt/apdu.js';
import { PtyPair, socatSkip } from '../pty-pair.js';
import { runCli, startCli } from '../testing/cli-io.js';
import { waitFor } from '../../server/testing/wait-for.js';
import { checkZvtTranscript, zvtEmulateOptions, type ZvtTranscript } from './zvt-transcript.js';

// The ZVT transcripts (fixtures/serial/zvt/, recorded by
// scripts/record-zvt-transcripts.ts) played by `svc-terminal play` against
// `svc-terminal emulate --dialect zvt` started as each says: over TCP
// (play --host) and over a real pseudo-terminal pair (play --path, the
// APDUs framed and ACKed). One byte of an answer changed fails, naming it.

const folder = new URL('../../fixtures/serial/zvt/', import.meta.url);
const files = readdirSync(folder)
  .filter((name) => name.endsWith('.json'))
  .sort()
  .map((name) => ({ name, path: new URL(name, folder).pathname }));
const read = (path: string): ZvtTranscript =>
  checkZvtTranscript(path, JSON.parse(readFileSync(path, 'utf8')) as ZvtTranscript);

t.test('the transcripts are whole APDUs, recorded from a terminal that can be started again', async (t) => {
  t.equal(files.length, 9);
  for (const { name, path } of files) {
    const transcript = read(path);
    t.ok(transcript.device, `${name} names the terminal that answered it`);
    for (const entry of transcript.apdus) decodeApdu(Buffer.from(entry.hex.replace(/ /g, ''), 'hex'));
  }
  const declined = read(files.find((file) => file.name === 'payment-declined.json')!.path);
  t.ok(
    declined.apdus.some((entry) => entry.hex === '06 1e 01 10'),
    'a result code that is a DLE',
  );
});

/** The emulated terminal as a transcript says, listening on a free port: its HOST:PORT. */
async function terminalOnTcp(t: Test, transcript: ZvtTranscript): Promise<string> {
  const terminal = startCli(['emulate', '--listen', '127.0.0.1:0', ...zvtEmulateOptions(transcript.device!)]);
  t.teardown(() => terminal.stop());
  await waitFor(() => /listening on 127\.0\.0\.1:\d+/.test(terminal.out()), 10_000, 'the terminal to listen');
  return /listening on (127\.0\.0\.1:\d+)/.exec(terminal.out())![1]!;
}

async function terminalOnPty(t: Test, transcript: ZvtTranscript): Promise<string> {
  const pair = new PtyPair(t.testdir());
  await pair.start();
  const terminal = startCli(['emulate', '--path', pair.device, ...zvtEmulateOptions(transcript.device!)]);
  t.teardown(async () => {
    await terminal.stop();
    await pair.stop();
  });
  await waitFor(() => terminal.out().includes(`ZVT terminal ${transcript.device!.serial} on`), 10_000, 'the line');
  return pair.host;
}

t.test('svc-terminal play --host: each transcript against the emulated terminal over TCP, byte for byte', async (t) => {
  for (const { name, path } of files) {
    const address = await terminalOnTcp(t, read(path));
    const played = await runCli(['play', '--host', address, path]);
    t.equal(played.code, 0, `${name}: ${played.out}${played.err}`);
    t.match(played.out, new RegExp(`ok: ${read(path).apdus.length} APDUs, byte for byte`));
  }
});

t.test(
  'svc-terminal play --path: the same transcripts over a serial line (framed, stuffed, ACKed)',
  { skip: socatSkip() },
  async (t) => {
    for (const { name, path } of files) {
      const host = await terminalOnPty(t, read(path));
      const played = await runCli(['play', '--path', host, path]);
      t.equal(played.code, 0, `${name}: ${played.out}${played.err}`);
    }
  },
);

t.test('a transcript with one byte of an answer changed differs at that APDU', async (t) => {
  const original = read(files.find((file) => file.name === 'reversal.json')!.path);
  const at = original.apdus.findIndex((entry) => entry.hex === '06 1e 01 b4');
  const changed: ZvtTranscript = {
    ...original,
    apdus: original.apdus.map((entry, index) => (index === at ? { ...entry, hex: '06 1e 01 b5' } : entry)),
  };
  const address = await terminalOnTcp(t, changed);
  const file = join(t.testdir(), 'changed.json');
  writeFileSync(file, JSON.stringify(changed));
  const played = await runCli(['play', '--host', address, file]);
  t.equal(played.code, 1, played.out + played.err);
  t.match(
    played.out,
    new RegExp(`DIFFERS at APDU ${at} \\(abort\\) after ${at} matched\\s+expected 06 1e 01 b5\\s+got {6}06 1e 01 b4`),
  );
  t.match(played.err, /1 of 1 transcripts differ/);
});

t.test('svc-terminal play says what is wrong with its arguments', async (t) => {
  const path = files[0]!.path;
  t.match(await runCli(['play', path]), { code: 2, err: /--path .*, --host .* or --emulated/ });
  t.match(await runCli(['play', '--host', 'nowhere', path]), { code: 2, err: /--host takes HOST:PORT/ });
  t.match(await runCli(['play', '--host', '127.0.0.1:1', path]), { code: 3, err: /cannot reach 127\.0\.0\.1:1/ });
  const transbank = new URL('../../fixtures/serial/transbank/refund.json', import.meta.url).pathname;
  t.match(await runCli(['play', '--host', '127.0.0.1:1', transbank]), { code: 2, err: /--host plays ZVT transcripts/ });
  t.match(await runCli(['play', '--host', '127.0.0.1:1', path, transbank]), { code: 2, err: /separate runs/ });
});
