import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runCli, startCli } from '../testing/cli-io.js';
import { waitFor } from '../../server/testing/wait-for.js';
import { checkNexoTranscript, nexoEmulateOptions, type NexoTranscript } from './nexo-transcript.js';

// The nexo transcripts (fixtures/nexo/transcripts/, recorded by
// scripts/record-nexo-transcripts.ts) played by `svc-terminal play`:
// --emulated (a terminal started afresh in the process for each), and over
// HTTPS against `svc-terminal emulate --dialect nexo` started as each says.
// One field of an answer changed fails, naming the exchange.

const folder = new URL('../../fixtures/nexo/transcripts/', import.meta.url);
const files = readdirSync(folder)
  .filter((name) => name.endsWith('.json'))
  .sort()
  .map((name) => new URL(name, folder).pathname);
const read = (path: string) => checkNexoTranscript(path, JSON.parse(readFileSync(path, 'utf8')) as NexoTranscript);

t.test('every transcript matches a fresh emulated terminal (play --emulated)', async (t) => {
  t.equal(files.length, 4);
  const played = await runCli(['play', '--emulated', ...files]);
  t.equal(played.code, 0, played.out + played.err);
  t.equal(played.out.match(/ok: \d+ responses, field for field/g)?.length, 4);
});

t.test('one field changed is a difference, named', async (t) => {
  const transcript = read(files.find((file) => file.endsWith('diagnosis-payment-status.json'))!);
  const changed = structuredClone(transcript);
  const body = (
    changed.exchanges[1]!.response as {
      SaleToPOIResponse: { PaymentResponse: { POIData: { POIReconciliationID: string } } };
    }
  ).SaleToPOIResponse.PaymentResponse;
  body.POIData.POIReconciliationID = '9999';
  const path = join(mkdtempSync(join(tmpdir(), 'nexo-play-')), 'changed.json');
  writeFileSync(path, JSON.stringify(changed));
  const played = await runCli(['play', '--emulated', path]);
  t.equal(played.code, 1);
  t.match(played.out, /DIFFERS at exchange 1 \(payment 25\.00 EUR\) after 1 matched/);
});

t.test('over HTTPS, against svc-terminal emulate --dialect nexo started as the transcript says', async (t) => {
  const path = files.find((file) => file.endsWith('reversal-refund-reconciliation.json'))!;
  const transcript = read(path);
  const dir = mkdtempSync(join(tmpdir(), 'nexo-play-'));
  writeFileSync(join(dir, 'pass'), 'play passphrase\n', { mode: 0o600 });
  const terminal = startCli([
    'emulate',
    '--listen',
    '127.0.0.41',
    ...nexoEmulateOptions(transcript.device!),
    '--key-identifier',
    'K',
    '--passphrase-file',
    join(dir, 'pass'),
    '--tls-dir',
    dir,
  ]);
  t.teardown(() => terminal.stop());
  await waitFor(() => terminal.out().includes('listening'), 10_000, 'the terminal to listen');
  const played = await runCli(['play', '--host', '127.0.0.41', '--ca', join(dir, 'ca.pem'), path]);
  t.equal(played.code, 0, played.out + played.err);
  t.match(played.out, /ok: 7 responses, field for field/);
});
