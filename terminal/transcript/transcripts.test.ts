import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { decodeRequest, decodeResponse } from '../protocol/transbank/messages.js';
import { PtyPair, socatSkip } from '../pty-pair.js';
import { runCli, startCli } from '../testing/cli-io.js';
import { waitFor } from '../../server/testing/wait-for.js';
import { emulateOptions, frameOf, parseTranscript, type Transcript } from './transcript.js';

// The Transbank POS Integrado transcripts (fixtures/serial/transbank/,
// recorded by scripts/record-transcripts.ts) played by `svc-terminal play`
// against `svc-terminal emulate` started as each says, over a real
// pseudo-terminal pair: every byte the POS sends matches. And a transcript
// with one byte of an answer changed fails, naming the frame.

const folder = new URL('../../fixtures/serial/transbank/', import.meta.url);
const files = readdirSync(folder)
  .filter((name) => name.endsWith('.json'))
  .sort()
  .map((name) => ({ name, path: new URL(name, folder).pathname }));
const read = (path: string): Transcript => parseTranscript(path, readFileSync(path, 'utf8'));

t.test('the transcripts are frames of the POS Integrado, recorded from a POS that can be started again', async (t) => {
  t.same(
    files.map((file) => file.name),
    [
      'close-and-totals.json',
      'last-sale-none.json',
      'multicode.json',
      'refund.json',
      'sale-declines.json',
      'sale-with-status.json',
      'sales-detail.json',
    ],
  );
  for (const { name, path } of files) {
    const transcript = read(path);
    t.ok(transcript.device, `${name} names the POS that answered it`);
    for (const frame of transcript.frames)
      t.doesNotThrow(
        () => (frame.direction === 'H→T' ? decodeRequest(frame.payload) : decodeResponse(frame.payload)),
        `${name}: ${frame.payload.slice(0, 40)} is a ${frame.direction === 'H→T' ? 'request' : 'response'} of the protocol`,
      );
  }
  const declines = read(files.find((file) => file.name === 'sale-declines.json')!.path);
  const codes = declines.frames
    .filter((frame) => frame.payload.startsWith('0210|'))
    .map((frame) => frame.payload.slice(5, 7));
  t.ok(codes.filter((code) => code !== '00').length >= 25, `${codes.length - 1} declines, each its own code`);
});

/** `svc-terminal emulate` on one end of a fresh pseudo-terminal pair, as the transcript's device says; the other end's path. */
async function posFor(t: Test, transcript: Transcript): Promise<string> {
  const pair = new PtyPair(t.testdir());
  await pair.start();
  const pos = startCli(['emulate', '--path', pair.device, ...emulateOptions(transcript.device!)]);
  t.teardown(async () => {
    await pos.stop();
    await pair.stop();
  });
  await waitFor(
    () => pos.out().includes(`transbank device ${transcript.device!.serial}`),
    10_000,
    'the POS to open its line',
  );
  return pair.host;
}

t.test(
  'svc-terminal play: each transcript against svc-terminal emulate, byte for byte',
  { skip: socatSkip() },
  async (t) => {
    for (const { name, path } of files) {
      const host = await posFor(t, read(path));
      const played = await runCli(['play', '--path', host, path]);
      t.equal(played.code, 0, `${name}: ${played.out}${played.err}`);
      t.match(played.out, new RegExp(`ok: ${read(path).frames.length} frames, byte for byte`));
      t.match(
        played.out,
        /svc-terminal emulate --path … --dialect transbank --serial TB000001/,
        'how to start the POS',
      );
    }
  },
);

t.test('a transcript with one byte of an answer changed differs at that frame', { skip: socatSkip() }, async (t) => {
  const original = read(files.find((file) => file.name === 'refund.json')!.path);
  const at = original.frames.findIndex((frame) => frame.payload.startsWith('1210|04'));
  const changed: Transcript = {
    ...original,
    frames: original.frames.map((frame, index) =>
      index === at ? frameOf('T→H', frame.payload.replace('1210|04', '1210|05')) : frame,
    ),
  };
  const host = await posFor(t, changed); // makes the test's folder afresh: the file goes in after
  const file = join(t.testdirName, 'changed.json');
  writeFileSync(file, JSON.stringify(changed));
  const played = await runCli(['play', '--path', host, file]);
  t.equal(played.code, 1, played.out + played.err);
  t.match(played.out, new RegExp(`DIFFERS at frame ${at} \\(1210\\|05[^)]*\\) after ${at} matched`));
  t.match(
    played.out,
    /expected 02 31 32 31 30 7c 30 35[\s\S]*got {6}02 31 32 31 30 7c 30 34/,
    'the bytes expected and the bytes that came',
  );
  t.match(played.err, /1 of 1 transcripts differ/);
});

t.test('svc-terminal play says what is wrong with its arguments', async (t) => {
  t.match(await runCli(['play', 'x.json']), { code: 2, err: /play needs --path/ });
  t.match(await runCli(['play', '--path', '/dev/null']), { code: 2, err: /name at least one transcript file/ });
  const bad = join(t.testdir(), 'bad.json');
  writeFileSync(
    bad,
    JSON.stringify({ description: 'x', frames: [{ direction: 'H→T', payload: '0100', hex: '02 30' }] }),
  );
  t.match(await runCli(['play', '--path', '/dev/null', bad]), {
    code: 2,
    err: /frames\/0's hex is not its payload framed/,
  });
  t.match((await runCli(['play', '--help'])).out, /byte for byte/);
});
