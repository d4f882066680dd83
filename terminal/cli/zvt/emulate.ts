import { createServer, type Server, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { seededRandom } from '../../../contracts/common/seeded-random.js';
import { FaultyPort, type Faults } from '../../device/faulty-port.js';
import { ZVT_CARD_DELAY_MS, ZvtTerminal } from '../../device/zvt/zvt-terminal.js';
import { SerialZvtLine, TcpZvtLine, type ZvtLine } from '../../protocol/zvt/line.js';
import { openSerial } from '../../serial-port.js';
import type { EmulateCommand } from '../dialect-commands.js';
import { FAULT_OPTIONS, faultsOf } from '../fault-options.js';
import { duration, integer, logTo, stopped, usageError, type CliIo } from '../io.js';
import { operatorChannel } from '../operator.js';

// svc-terminal emulate --dialect zvt: an emulated ZVT payment terminal on a
// serial line (--path, 9600 8N2 unless --baud) or listening for a cash
// register on TCP (--listen HOST:PORT; ZVT's port is 20007).

export const ZVT_PORT = 20007;
export const ZVT_BAUD = 9600;

export interface ZvtEmulateValues {
  path?: string;
  listen?: string;
  serial?: string;
  password?: string;
  state?: string;
  baud?: string;
  debug?: boolean;
  cardDelayMs?: number | undefined;
  seed?: string;
  clock?: string;
  control?: string;
}

/** HOST:PORT (or :PORT, or PORT) to listen on. */
export function listenAddress(text: string): { host: string; port: number } {
  const match = /^(?:(.*):)?(\d+)$/.exec(text);
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535)
    throw usageError(`--listen takes HOST:PORT (ZVT's is ${ZVT_PORT}), got ${JSON.stringify(text)}`);
  return { host: (match[1] ?? '').replace(/^\[|\]$/g, '') || '127.0.0.1', port };
}

export async function emulateZvt(values: ZvtEmulateValues, faults: Faults, io: CliIo): Promise<void> {
  const log = logTo(io);
  if (!values.serial || !/^\d{8}$/.test(values.serial))
    throw usageError(`a ZVT terminal id (--serial) is 8 digits, got ${JSON.stringify(values.serial ?? '')}`);
  if (values.password !== undefined && !/^\d{6}$/.test(values.password)) throw usageError('--password is 6 digits');
  if (Boolean(values.path) === Boolean(values.listen))
    throw usageError('emulate --dialect zvt needs --path or --listen, one of them');
  const seed = integer('seed', values.seed);
  const clock = values.clock === undefined ? undefined : new Date(values.clock);
  if (clock && Number.isNaN(clock.getTime()))
    throw usageError(`--clock takes an ISO 8601 time, got ${JSON.stringify(values.clock)}`);
  let terminal: ZvtTerminal;
  try {
    terminal = new ZvtTerminal({
      terminalId: values.serial,
      ...(values.password ? { password: values.password } : {}),
      ...(values.state ? { statePath: values.state } : {}),
      cardDelayMs: values.cardDelayMs ?? ZVT_CARD_DELAY_MS,
      log,
      ...(values.debug ? { debug: log } : {}),
      ...(seed !== undefined ? { random: seededRandom(seed) } : {}),
      ...(clock ? { clock: () => clock } : {}),
    });
  } catch (error) {
    throw usageError((error as Error).message);
  }
  if (values.state)
    log(
      `memory in ${values.state}: ${terminal.snapshot.turnover.length} transaction(s) in the turnover, next receipt ${terminal.snapshot.nextReceipt}`,
    );
  const lineOptions = values.debug ? { debug: log } : {};
  const faulty = (stream: Duplex) => (Object.keys(faults).length ? new FaultyPort(stream, faults) : stream);
  const close = values.listen
    ? await listen(
        listenAddress(values.listen),
        (socket) => {
          const line = new TcpZvtLine(faulty(socket), lineOptions);
          log(`cash register connected from ${socket.remoteAddress}:${socket.remotePort}`);
          line.once('close', (error: Error) => log(`cash register gone (${error.message})`));
          return line;
        },
        terminal,
        log,
        values.serial,
      )
    : await serial(
        values.path!,
        integer('baud', values.baud, ZVT_BAUD)!,
        (port) => new SerialZvtLine(faulty(port), lineOptions),
        terminal,
        log,
        values.serial,
      );
  const operator = await operatorChannel(io, (text) => terminal.operator(text), values.control);
  log(`operator commands: ${operator.describe}`);
  await stopped(io.stop);
  await operator.close();
  await close();
}

/** Listens for cash registers; a new connection replaces the one before (it ends its transaction). */
async function listen(
  address: { host: string; port: number },
  lineOf: (socket: Socket) => ZvtLine,
  terminal: ZvtTerminal,
  log: (line: string) => void,
  terminalId: string,
): Promise<() => Promise<void>> {
  let current: ZvtLine | null = null;
  const server: Server = createServer((socket) => {
    socket.setNoDelay(true);
    if (current && !current.isClosed) {
      log('a new connection replaces the open one');
      current.close();
    }
    current = lineOf(socket);
    terminal.attach(current);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        usageError(
          `cannot listen on ${address.host}:${address.port}: ${error.code === 'EADDRINUSE' ? 'the port is in use' : error.message}`,
        ),
      ),
    );
    server.listen(address.port, address.host, () => resolve());
  });
  const bound = server.address();
  log(
    `ZVT terminal ${terminalId} listening on ${address.host}:${typeof bound === 'object' && bound ? bound.port : address.port} (TCP); type "status" or "help"`,
  );
  return async () => {
    current?.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
}

/** Opens the serial line, and again whenever it closes, with backoff. */
async function serial(
  path: string,
  baud: number,
  lineOf: (port: Duplex) => ZvtLine,
  terminal: ZvtTerminal,
  log: (line: string) => void,
  terminalId: string,
): Promise<() => Promise<void>> {
  let closing = false;
  let backoff = 500;
  let open: { port: Awaited<ReturnType<typeof openSerial>>; line: ZvtLine } | null = null;
  const connect = async (): Promise<void> => {
    try {
      const port = await openSerial(path, baud, 2);
      const line = lineOf(port);
      terminal.attach(line);
      open = { port, line };
      backoff = 500;
      log(`ZVT terminal ${terminalId} on ${path} (${baud} 8N2); type "status" or "help"`);
      line.once('close', () => {
        if (closing) return;
        log('line closed; reopening');
        if (port.isOpen) port.close(() => undefined);
        setTimeout(() => void connect(), backoff);
      });
    } catch (error) {
      log(`cannot open ${path}: ${(error as Error).message}; retrying in ${backoff} ms`);
      if (!closing) setTimeout(() => void connect(), backoff);
      backoff = Math.min(10_000, backoff * 2);
    }
  };
  await connect();
  return async () => {
    closing = true;
    if (!open) return;
    const { port, line } = open;
    line.close();
    if (port.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
  };
}

export const zvtEmulateCommand: EmulateCommand = {
  options: {
    path: { type: 'string' },
    listen: { type: 'string' },
    serial: { type: 'string' },
    password: { type: 'string' },
    state: { type: 'string' },
    baud: { type: 'string' },
    debug: { type: 'boolean' },
    'card-delay': { type: 'string' },
    'card-delay-ms': { type: 'string' },
    seed: { type: 'string' },
    clock: { type: 'string' },
    control: { type: 'string' },
    ...FAULT_OPTIONS,
  },
  usage: `  --dialect zvt       a ZVT payment terminal (PA00P015;
                      docs/terminal/zvt.md): on the serial line PATH (9600
                      8N2 unless --baud: DLE STX frames, CRC, ACK/NAK) or
                      listening for a cash register with --listen HOST:PORT
                      (bare APDUs; ZVT's port is ${ZVT_PORT}). --serial is its
                      terminal id, 8 digits; --password its 6-digit password
                      (default 000000). It answers registration, payment,
                      reversal, refund, end of day, status enquiry, repeat
                      receipt and log-off, approves every payment after
                      --card-delay (default ${ZVT_CARD_DELAY_MS}ms) except 1 to 99 cents,
                      declined with that result code, and stores a payment
                      only once the cash register acknowledged it (otherwise
                      it reverses it by itself). --state keeps its turnover,
                      numbers and last receipt. On stdin: next approve|RC,
                      set-status HH, status, journal.
  --seed N, --clock ISO  authorisation codes and card digits drawn from N,
                      and the time stamped on every sale: with both, the terminal
                      answers the same bytes to the same requests
                      (svc-terminal play checks a transcript so)
`,
  run: (values, io) =>
    emulateZvt(
      { ...(values as ZvtEmulateValues), cardDelayMs: duration(io, values, 'card-delay') },
      faultsOf(values, io),
      io,
    ),
};
