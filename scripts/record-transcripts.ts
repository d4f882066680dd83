// Records the Transbank POS Integrado transcripts of fixtures/serial/transbank/
// from our emulated POS, over a real pseudo-terminal pair (socat), as a cash
// register sending each request would see it:
//   node --import tsx scripts/record-transcripts.ts
// The POS is started as each file's `device` says, so that svc-terminal play
// gets the same bytes back from it (terminal/transcript/transcripts.test.ts).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeRequest, type RequestCode } from '../terminal/protocol/transbank/messages.js';
import { REJECTION_CODES } from '../terminal/protocol/transbank/response-codes.js';
import { openPort, PtyPair } from '../terminal/pty-pair.js';
import { PassThrough } from 'node:stream';
import { main } from '../terminal/cli/main.js';
import { recordTranscript } from '../terminal/transcript/play.js';
import { emulateOptions, type TranscriptDevice } from '../terminal/transcript/transcript.js';

const device: TranscriptDevice = {
  dialect: 'transbank',
  serial: 'TB000001',
  commerceCode: '597012345678',
  seed: 7,
  clock: '2026-11-21T13:45:00.000Z',
  cardDelayMs: 0,
  turnaroundMs: 0,
};

const request = (code: RequestCode, fields: Record<string, string | number | boolean> = {}) =>
  encodeRequest({ code, fields });
const sale = (amount: number, ticket: string, sendStatus = false) => request('0200', { amount, ticket, sendStatus });

const transcripts: Array<{ name: string; description: string; requests: string[] }> = [
  {
    name: 'sale-with-status',
    description:
      'Keys loaded (0800 → 0810), then a sale of 15000 CLP asking for the intermediate status messages: 0900 with 78 to 82 as the customer works the terminal, then the approved 0210; the last sale (0250 → 0260) is that sale.',
    requests: [request('0800'), sale(15000, 'A00001', true), request('0250')],
  },
  {
    name: 'sale-declines',
    description: `A sale declined with each rejection code a cash register must handle (${REJECTION_CODES.join(', ')}): the emulated POS refuses a sale of 1 to 99 pesos with that code, so each sale's amount is its code; then an approved sale of 100, the only one the last sale (0250) knows.`,
    requests: [...REJECTION_CODES.map((code) => sale(Number(code), `D${code}`)), sale(100, 'D-OK'), request('0250')],
  },
  {
    name: 'last-sale-none',
    description: 'The last sale asked of a POS that has made none: 0260 with 11 (no sale).',
    requests: [request('0250')],
  },
  {
    name: 'refund',
    description:
      'A sale, then its refund by operation number (1200 → 1210 approved), the same refund again (04: already refunded), and a refund of an operation that does not exist (05).',
    requests: [
      sale(4990, 'R00001'),
      request('1200', { operationNumber: '000001' }),
      request('1200', { operationNumber: '000001' }),
      request('1200', { operationNumber: '999999' }),
    ],
  },
  {
    name: 'close-and-totals',
    description:
      'Two sales, the totals of the open batch (0700 → 0710: 2 sales, 3500 CLP), the close of the day (0500 → 0510), and the totals again: the batch is empty.',
    requests: [sale(1500, 'C00001'), sale(2000, 'C00002'), request('0700'), request('0500'), request('0700')],
  },
  {
    name: 'sales-detail',
    description:
      'Two sales, then the sales detail sent to the cash register (0260|1: one 0261 a sale, then the empty 0261 that ends it), and printed on the POS instead (0260|0: ACK only).',
    requests: [
      sale(1200, 'S00001'),
      sale(3400, 'S00002'),
      request('0260', { sendToRegister: true }),
      request('0260', { sendToRegister: false }),
    ],
  },
  {
    name: 'multicode',
    description:
      'A multicode sale for a provider (0270 → 0271 with its commerce code), the multicode last sale with its voucher (0280|1 → 0281), and the multicode sales detail (0290|1 → 0291s and the end).',
    requests: [
      request('0270', { amount: 7800, ticket: 'M00001', sendStatus: false, commerceProvider: '597000000002' }),
      request('0280', { voucher: true }),
      request('0290', { sendToRegister: true }),
    ],
  },
];

const folder = new URL('../fixtures/serial/transbank/', import.meta.url);
mkdirSync(folder, { recursive: true });
for (const { name, description, requests } of transcripts) {
  const dir = mkdtempSync(join(tmpdir(), 'record-'));
  const pair = new PtyPair(dir);
  await pair.start();
  // svc-terminal emulate, in this process: what it prints kept to see when its line is open.
  let printed = '';
  const stop = new AbortController();
  const exited = main(['emulate', '--path', pair.device, ...emulateOptions(device)], {
    out: (text) => void (printed += text),
    err: (text) => void process.stderr.write(text),
    input: new PassThrough(),
    env: process.env,
    stop: stop.signal,
  });
  while (!printed.includes(`transbank device ${device.serial}`))
    await new Promise((resolve) => setTimeout(resolve, 10));
  const line = await openPort(pair.host);
  try {
    const frames = await recordTranscript(line, requests, { quietMs: 250 });
    const transcript = { description, device, frames };
    writeFileSync(new URL(`${name}.json`, folder), `${JSON.stringify(transcript, null, 2)}\n`);
    process.stdout.write(`${name}: ${frames.length} frames\n`);
  } finally {
    await new Promise<void>((resolve) => line.close(() => resolve()));
    stop.abort();
    await exited;
    await pair.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
