import { EcrSession, type TransactionEnd } from '../../bridge/zvt/ecr-session.js';
import { readStatus } from '../../bridge/zvt/status-reading.js';
import { ZVT_DEFAULTS } from '../../bridge/zvt/zvt-dialect.js';
import { LineError } from '../../errors.js';
import { currencyOf, toMinorUnits } from '../../protocol/currencies.js';
import { codeHex, type Apdu } from '../../protocol/zvt/apdu.js';
import { bcdNumber } from '../../protocol/zvt/bcd.js';
import { encodeFields, fieldOf, type Field } from '../../protocol/zvt/bitmaps.js';
import { SerialZvtLine, TcpZvtLine, type ZvtLine } from '../../protocol/zvt/line.js';
import { command, POSITIVE, type CommandName } from '../../protocol/zvt/messages.js';
import { commandFailed, parseOptions, unreachable, usageError, type CliIo } from '../io.js';
import { hostAndPort, serialLine, tcpLine } from '../lines.js';

// svc-terminal zvt: one ZVT command sent as a cash register sends it, to
// any ZVT terminal (the emulator, or a real one), and what came back in
// words. It is the way to try each flow the emulator carries out with
// amounts of one's own, without writing a cash register: it registers,
// sends the command, acknowledges every status information and print
// line, and prints the result, the amount, the trace and receipt numbers.

export const zvtUsage = `usage: svc-terminal zvt (--host HOST:PORT | --path PATH [--baud N]) [--password NNNNNN] [--currency EUR] ACTION [ARGS]

Sends one ZVT command (PA00P015) to a terminal as its cash register would,
after a registration (06 00), and prints what the terminal answered: each
status information (result, amount, trace, receipt), the receipt lines, and
how it ended. Every message the terminal sends is acknowledged (80 00).

  pay AMOUNT              authorisation, 06 01 (AMOUNT in major units: 12.50)
  refund AMOUNT           refund, 06 31
  reverse RECEIPT         reversal of a payment by its receipt number, 06 30
  preauth AMOUNT          pre-authorisation, 06 22 (how an EV charger reserves)
  book RECEIPT [AMOUNT]   book total of a pre-authorisation, 06 24 (all of it without AMOUNT)
  partial RECEIPT UNUSED  partial reversal: book all but UNUSED, 06 23
  release RECEIPT         pre-authorisation reversal, 06 25
  open-reservations       the first open pre-authorisation's receipt, 06 23 87 FF FF
  end-of-day              06 50: the day's totals; the turnover starts again
  status                  status enquiry, 05 01
  diagnosis               06 70
  repeat-receipt          the last transaction again, 06 20

  --host HOST:PORT        the terminal over TCP (usually port 20007)
  --path PATH             the terminal on a serial line (9600 8N2 unless --baud)
  --password NNNNNN       the terminal's password (default 000000)
  --currency CODE         the amounts' currency (default EUR)

Exit status: 0 the command ran and ended with a Completion, 1 the terminal
refused or aborted it, 2 a usage mistake, 3 nothing answered at the address.
`;

/** An ACTION and its words, as the command's data: what the terminal is sent. */
function commandFor(
  action: string,
  args: string[],
  password: Buffer,
  money: { minor: (text: string | undefined) => Buffer; currency: Buffer },
): { name: CommandName; data: Buffer } {
  const receipt = (text: string | undefined) => {
    if (!text || !/^\d{1,4}$/.test(text)) throw usageError(`${action} takes a receipt number (1 to 4 digits)`);
    return { bmp: 0x87, value: bcdNumber(Number(text), 2) };
  };
  const amount = (text: string | undefined) => ({ bmp: 0x04, value: money.minor(text) });
  const fields = (list: Array<{ bmp: number; value: Buffer }>) => encodeFields(list);
  switch (action) {
    case 'pay':
      return { name: 'authorisation', data: fields([amount(args[0]), { bmp: 0x49, value: money.currency }]) };
    case 'refund':
      return { name: 'refund', data: Buffer.concat([password, fields([amount(args[0])])]) };
    case 'reverse':
      return { name: 'reversal', data: Buffer.concat([password, fields([receipt(args[0])])]) };
    case 'preauth':
      return { name: 'reservation', data: fields([amount(args[0]), { bmp: 0x49, value: money.currency }]) };
    case 'book':
      return { name: 'bookTotal', data: fields([receipt(args[0]), ...(args[1] ? [amount(args[1])] : [])]) };
    case 'partial':
      return { name: 'partialReversal', data: fields([receipt(args[0]), amount(args[1])]) };
    case 'release':
      return { name: 'reservationReversal', data: fields([receipt(args[0])]) };
    case 'open-reservations':
      return { name: 'partialReversal', data: Buffer.of(0x87, 0xff, 0xff) };
    case 'end-of-day':
      return { name: 'endOfDay', data: password };
    case 'status':
      return { name: 'statusEnquiry', data: Buffer.alloc(0) };
    case 'diagnosis':
      return { name: 'diagnosis', data: Buffer.alloc(0) };
    case 'repeat-receipt':
      return { name: 'repeatReceipt', data: Buffer.concat([password, Buffer.of(0x03, 0x01)]) };
    default:
      throw usageError(`unknown action ${JSON.stringify(action)}`, zvtUsage);
  }
}

/** A status information in words: the fields a cash register acts on. */
function statusInWords(fields: Field[]): string {
  const reading = readStatus(fields);
  const terminal = fieldOf(fields, 0x29)?.toString('hex');
  return [
    `result ${codeHex(reading.resultCode)}${reading.resultCode === 0 ? ' (approved)' : ''}`,
    ...(reading.amount !== undefined ? [`amount ${reading.amount}`] : []),
    ...(reading.trace !== undefined ? [`trace ${reading.trace}`] : []),
    ...(reading.receipt !== undefined ? [`receipt ${reading.receipt}`] : []),
    ...(reading.originalTrace !== undefined ? [`original trace ${reading.originalTrace}`] : []),
    ...(reading.aid ? [`authorisation ${reading.aid}`] : []),
    ...(reading.endOfDay ? [`end of day: ${reading.endOfDay.count} transaction(s)`] : []),
    ...(terminal ? [`terminal ${terminal}`] : []),
  ].join(', ');
}

function endInWords(end: TransactionEnd): string {
  if (end.outcome === 'refused') return `refused: 84 ${codeHex(end.error)}`;
  if (end.outcome === 'aborted') return `aborted: 06 1E ${codeHex(end.resultCode)}`;
  return `completed: 06 0F${end.data.length ? ` ${end.data.toString('hex')}` : ''}`;
}

export async function zvtEcr(argv: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseOptions(
    {
      args: argv,
      allowPositionals: true,
      options: {
        host: { type: 'string' },
        path: { type: 'string' },
        baud: { type: 'string' },
        password: { type: 'string', default: ZVT_DEFAULTS.password },
        currency: { type: 'string', default: 'EUR' },
        help: { type: 'boolean', short: 'h' },
      },
    },
    zvtUsage,
  );
  if (values.help) return void io.out(zvtUsage);
  const [action, ...args] = positionals;
  if (!action) throw usageError('say what to send: pay AMOUNT, preauth AMOUNT, status …', zvtUsage);
  if ((values.host === undefined) === (values.path === undefined)) throw usageError('give --host or --path');
  if (!/^\d{6}$/.test(values.password)) throw usageError('--password is 6 digits');
  const currency = currencyOf(values.currency.toUpperCase());
  if (!currency) throw usageError(`--currency ${values.currency}: not an ISO 4217 code this project knows`);
  const money = {
    minor: (text: string | undefined) => {
      const units = text !== undefined && /^\d+(\.\d+)?$/.test(text) ? toMinorUnits(Number(text), currency) : undefined;
      if (units === undefined || units <= 0 || units > 999_999_999_999)
        throw usageError(`${action} takes an amount in ${currency.alpha} (12.50), got ${JSON.stringify(text)}`);
      return bcdNumber(units, 6);
    },
    currency: bcdNumber(currency.numeric, 2),
  };
  const password = Buffer.from(values.password, 'hex');
  const wanted = commandFor(action, args, password, money);

  const line = values.host
    ? tcpLine(hostAndPort(values.host, "a ZVT terminal's port is usually 20007", 20007))
    : serialLine(values.path!, Number(values.baud ?? 9600), 2);
  let stream;
  try {
    stream = await line.open();
  } catch (error) {
    throw unreachable(`nothing answers at ${line.describe}: ${(error as Error).message}`);
  }
  const zvt: ZvtLine = values.host ? new TcpZvtLine(stream) : new SerialZvtLine(stream);
  const session = new EcrSession((text) => io.out(`${text}\n`));
  session.attach(zvt);
  const say = (text: string) => io.out(`${text}\n`);
  const handlers = {
    onStatus: async (fields: Field[]): Promise<Apdu> => (say(`status information: ${statusInWords(fields)}`), POSITIVE),
    onIntermediate: (status: number) => say(`intermediate status ${codeHex(status)}`),
    onPrint: async (text: string): Promise<Apdu> => (say(`receipt | ${text}`), POSITIVE),
  };
  try {
    // A registration first, as every cash register makes on a new connection, with the bridge's config byte.
    const registered = await session.transact(
      command('registration', Buffer.concat([password, Buffer.of(ZVT_DEFAULTS.configByte), money.currency])),
      true,
    );
    say(`registration: ${endInWords(registered)}`);
    if (registered.outcome !== 'completed') throw commandFailed('the terminal did not take the registration');
    const end = await session.transact(command(wanted.name, wanted.data), true, handlers);
    // The enquiry is answered by an Abort that carries its answer (PA00P015 §2.10.1): B8, then 87 and a receipt.
    if (action === 'open-reservations' && end.outcome === 'aborted' && end.resultCode === 0xb8) {
      const receipt = end.data.subarray(2).toString('hex').toUpperCase();
      return say(
        `open-reservations: ${receipt === 'FFFF' || receipt === '' ? 'none open' : `first open receipt ${Number(receipt)}`}`,
      );
    }
    say(`${action}: ${endInWords(end)}`);
    if (end.outcome !== 'completed') throw commandFailed(`${action}: ${endInWords(end)}`);
  } catch (error) {
    if (error instanceof LineError) throw commandFailed(`the line failed: ${error.message}`);
    throw error;
  } finally {
    zvt.close();
  }
}
