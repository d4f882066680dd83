// Records the ZVT transcripts of fixtures/serial/zvt/ from our emulated
// terminal, as a cash register (the bridge's own, EcrSession) sees them,
// over TCP on loopback; the same APDUs cross a serial line framed:
//   node --import tsx scripts/record-zvt-transcripts.ts
// The terminal is started as each file's `device` says, so that svc-terminal
// play gets the same bytes back from it (terminal/transcript/zvt-transcripts.test.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { seededRandom } from '../contracts/common/seeded-random.js';
import { EcrSession } from '../terminal/bridge/zvt/ecr-session.js';
import { ZvtTerminal } from '../terminal/device/zvt/zvt-terminal.js';
import { apdu, type Apdu } from '../terminal/protocol/zvt/apdu.js';
import { bcdNumber, packBcd } from '../terminal/protocol/zvt/bcd.js';
import { encodeFields } from '../terminal/protocol/zvt/bitmaps.js';
import { TcpZvtLine } from '../terminal/protocol/zvt/line.js';
import { command, POSITIVE } from '../terminal/protocol/zvt/messages.js';
import { constructed, encodeTlv, tlv } from '../terminal/protocol/zvt/tlv.js';
import { apduEntry, type ZvtTranscript, type ZvtTranscriptDevice } from '../terminal/transcript/zvt-transcript.js';

const device: ZvtTranscriptDevice = {
  dialect: 'zvt',
  serial: '29001006',
  seed: 7,
  clock: '2026-11-21T13:45:00.000Z',
  cardDelayMs: 0,
};

const password = packBcd('000000');
const euro = bcdNumber(978, 2);
const register = (configByte: number, extra: Buffer = Buffer.alloc(0)) =>
  command('registration', Buffer.concat([password, Buffer.of(configByte), euro, extra]));
const pay = (amount: number) =>
  command(
    'authorisation',
    encodeFields([
      { bmp: 0x04, value: bcdNumber(amount, 6) },
      { bmp: 0x49, value: euro },
    ]),
  );
const reverse = (receipt: number) =>
  command('reversal', Buffer.concat([password, encodeFields([{ bmp: 0x87, value: bcdNumber(receipt, 2) }])]));

/** A step: the command, and whether the terminal is master after it (Completion or Abort ends it). */
type Step = { message: Apdu; completes: boolean };
const master = (message: Apdu): Step => ({ message, completes: true });

const transcripts: Array<{ name: string; description: string; steps: Step[] }> = [
  {
    name: 'registration-and-status',
    description:
      'Registration (06 00: password 000000, config byte BA as ecrterm sends it, EUR): 80 00, then the Completion with the status byte, the terminal id and the currency; a status enquiry (05 01): the Completion with the software version (LLL-var) and the terminal status 00.',
    steps: [master(register(0xba)), master(command('statusEnquiry'))],
  },
  {
    name: 'payment-print-lines',
    description:
      'Registered with config byte 8A (intermediate status; the cash register prints payment receipts, as print lines), a payment of 25.00 EUR: 80 00, 04 FF 0A (insert card), the status information (04 0F: result 00, amount, trace, time, date, expiry, payment type, masked PAN, terminal id, authorisation attribute, currency, receipt number, card type and name), the receipt as print lines (06 D1, the last with attribute 81), then 06 0F.',
    steps: [master(register(0x8a)), master(pay(2500))],
  },
  {
    name: 'payment-declined',
    description:
      'Payments of 0.05 and 0.16 EUR, declined by the emulated host with result codes 05 and 10: each status information carries the code (bitmap 27) and the terminal hands the line back with 06 1E and the same code. On a serial line the 10 is doubled (DLE stuffing).',
    steps: [master(register(0x00)), master(pay(5)), master(pay(16))],
  },
  {
    name: 'reversal',
    description:
      'A payment of 12.00 EUR, its reversal by receipt number (06 30: status information with the original trace in bitmap 37), and the same reversal again: B4 (already reversed) in the status information and the Abort.',
    steps: [master(register(0x00)), master(pay(1200)), master(reverse(1)), master(reverse(1))],
  },
  {
    name: 'end-of-day',
    description:
      'Two payments (15.00 and 20.00 EUR), the end of day (06 50): status information with the total (35.00) and the single totals (bitmap 60, LLL-var: receipt numbers from and to, a count and a total per scheme), then another end of day: the turnover is empty.',
    steps: [
      master(register(0x00)),
      master(pay(1500)),
      master(pay(2000)),
      master(command('endOfDay', password)),
      master(command('endOfDay', password)),
    ],
  },
  {
    name: 'text-blocks',
    description:
      "Registered with a TLV container whose permitted commands (tag 26) list 06 D3, and config byte 82: the payment receipt comes as one text block (06 D3: tag 25 with the lines in 07 and the last-line attribute 09 81), and the Completion of the registration carries the terminal's own list of commands.",
    steps: [
      master(
        register(
          0x82,
          encodeFields([{ bmp: 0x06, value: encodeTlv([constructed('26', [tlv('0A', Buffer.of(0x06, 0xd3))])]) }]),
        ),
      ),
      master(pay(990)),
    ],
  },
  {
    name: 'refusals-and-log-off',
    description:
      'An end of day with a wrong password (84 37), a command the terminal does not know (84 83), an authorisation with an unknown bitmap (84 83) and one in Swiss francs (80 00, then 06 1E 6F 09 78: the terminal takes euro), then log-off (06 02: 80 00 only).',
    steps: [
      master(command('endOfDay', packBcd('123456'))),
      master(apdu(0x06, 0x99)),
      master(command('authorisation', Buffer.from('040000000001005f01', 'hex'))),
      master(
        command(
          'authorisation',
          encodeFields([
            { bmp: 0x04, value: bcdNumber(100, 6) },
            { bmp: 0x49, value: bcdNumber(756, 2) },
          ]),
        ),
      ),
      { message: command('logOff'), completes: false },
    ],
  },
  {
    name: 'repeat-receipt',
    description:
      "A repeat receipt before any transaction (06 1E 83), a payment of 42.00 EUR, and the repeat receipt with service byte 03 (status information wanted, nothing printed): the payment's status information again, as a cash register uses it to settle a transaction whose end it missed.",
    steps: [
      master(command('repeatReceipt', Buffer.concat([password, Buffer.of(0x03, 0x03)]))),
      master(register(0x00)),
      master(pay(4200)),
      master(command('repeatReceipt', Buffer.concat([password, Buffer.of(0x03, 0x03)]))),
    ],
  },
  {
    name: 'pre-authorisation',
    description:
      "An EV charger's session (PA00P015 §2.8, §2.13): 50.00 EUR reserved (06 22: status information with the amount, trace, receipt 0001 and AID, and no receipt printed), 23.45 EUR booked against receipt 0001 when charging ends (06 24: status information with the booked amount and the reservation's trace in bitmap 37, the receipt as print lines, 06 0F), then the end of day: its total is the 23.45 booked, not the 50.00 reserved.",
    steps: [
      master(register(0x82)),
      master(
        command(
          'reservation',
          encodeFields([
            { bmp: 0x04, value: bcdNumber(5000, 6) },
            { bmp: 0x49, value: euro },
          ]),
        ),
      ),
      master(
        command(
          'bookTotal',
          encodeFields([
            { bmp: 0x87, value: bcdNumber(1, 2) },
            { bmp: 0x04, value: bcdNumber(2345, 6) },
            { bmp: 0x49, value: euro },
          ]),
        ),
      ),
      master(command('endOfDay', password)),
    ],
  },
];

const folder = new URL('../fixtures/serial/zvt/', import.meta.url);
mkdirSync(folder, { recursive: true });
for (const { name, description, steps } of transcripts) {
  const clock = new Date(device.clock);
  const terminal = new ZvtTerminal({
    terminalId: device.serial,
    cardDelayMs: device.cardDelayMs,
    random: seededRandom(device.seed),
    clock: () => clock,
  });
  const server = createServer((socket) => terminal.attach(new TcpZvtLine(socket)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const socket = connect((server.address() as { port: number }).port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const line = new TcpZvtLine(socket);
  const apdus: ZvtTranscript['apdus'] = [];
  line.on('apdu', (message: Apdu) => apdus.push(apduEntry('T→H', message)));
  const send = line.send.bind(line);
  line.send = (message: Apdu) => {
    apdus.push(apduEntry('H→T', message));
    return send(message);
  };
  const ecr = new EcrSession(() => undefined);
  ecr.attach(line);
  // The cash register takes the status information its commands ask for.
  for (const step of steps) await ecr.transact(step.message, step.completes, { onStatus: async () => POSITIVE });
  await terminal.idle();
  line.close();
  await new Promise((resolve) => server.close(resolve));
  const transcript: ZvtTranscript = { protocol: 'zvt', description, device, apdus };
  writeFileSync(new URL(`${name}.json`, folder), `${JSON.stringify(transcript, null, 2)}\n`);
  process.stdout.write(`${name}: ${apdus.length} APDUs\n`);
}
