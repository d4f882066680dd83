import { EmulatedTerminal } from '../device/svc/emulated-terminal.js';
import { FaultyPort } from '../device/faulty-port.js';
import { TRANSBANK_CARD_DELAY_MS, TransbankPos, TURNAROUND_MS } from '../device/transbank/transbank-pos.js';
import { seededRandom } from '../../contracts/common/seeded-random.js';
import { Link } from '../protocol/link.js';
import { openSerial } from '../serial-port.js';
import { FAULT_OPTIONS, faultsOf } from './fault-options.js';
import { duration, integer, logTo, stopped, usageError, type CliIo } from './io.js';
import { operatorChannel } from './operator.js';
import { usage } from './usage.js';

/** The options of an svc device and a Transbank POS, both on a serial line. */
export const SERIAL_OPTIONS = {
  path: { type: 'string' },
  serial: { type: 'string' },
  state: { type: 'string' },
  'auto-approve-ms': { type: 'string' },
  baud: { type: 'string' },
  debug: { type: 'boolean' },
  'commerce-code': { type: 'string' },
  'card-delay-ms': { type: 'string' },
  'turnaround-ms': { type: 'string' },
  seed: { type: 'string' },
  clock: { type: 'string' },
  'auto-approve': { type: 'string' },
  'card-delay': { type: 'string' },
  turnaround: { type: 'string' },
  control: { type: 'string' },
  ...FAULT_OPTIONS,
} as const;

export type SerialValues = {
  [name in keyof typeof SERIAL_OPTIONS]?: (typeof SERIAL_OPTIONS)[name]['type'] extends 'boolean' ? boolean : string;
};

/** An svc device or a Transbank POS on a serial line, until stopped. */
export async function emulateOnSerial(
  values: SerialValues & { dialect: 'svc' | 'transbank' },
  io: CliIo,
): Promise<void> {
  const log = logTo(io);
  const faults = faultsOf(values, io);
  const times = {
    autoApproveMs: duration(io, values, 'auto-approve'),
    cardDelayMs: duration(io, values, 'card-delay'),
    turnaroundMs: duration(io, values, 'turnaround'),
  };
  if (!values.path || !values.serial) throw usageError('emulate needs --path and --serial', usage.emulate);
  const device = emulatedDevice({ ...values, ...times }, log);
  const baud = integer('baud', values.baud, 115200)!;
  let backoff = 500;
  let closing = false;
  const open: { line?: { port: { isOpen: boolean; close(callback: () => void): void }; link: Link } } = {};
  const connect = async (): Promise<void> => {
    try {
      const port = await openSerial(values.path!, baud);
      const line = Object.keys(faults).length > 0 ? new FaultyPort(port, faults) : port;
      const link = new Link(line, values.debug ? { debug: log } : {});
      device.attach(link);
      backoff = 500;
      log(
        `${values.dialect} device ${values.serial} on ${values.path} (${baud} 8N1)${Object.keys(faults).length ? `, faults ${JSON.stringify(faults)}` : ''}; type "status" or "help"`,
      );
      open.line = { port, link };
      link.once('close', () => {
        if (closing) return;
        log('line closed; reopening');
        if (port.isOpen) port.close(() => undefined);
        setTimeout(() => void connect(), backoff);
      });
    } catch (error) {
      log(`cannot open ${values.path}: ${(error as Error).message}; retrying in ${backoff} ms`);
      if (!closing) setTimeout(() => void connect(), backoff);
      backoff = Math.min(10_000, backoff * 2);
    }
  };
  await connect();
  const operator = await operatorChannel(io, (line) => device.operator(line), values.control);
  log(`operator commands: ${operator.describe}`);
  await stopped(io.stop);
  closing = true;
  await operator.close();
  if (open.line) {
    const { port, link } = open.line;
    link.close();
    if (port.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
  }
}

/** The device the options describe: today's svc terminal, or a Transbank POS Integrado. */
function emulatedDevice(
  values: {
    serial?: string;
    state?: string;
    dialect?: string;
    autoApproveMs?: number | undefined;
    'commerce-code'?: string;
    cardDelayMs?: number | undefined;
    turnaroundMs?: number | undefined;
    seed?: string;
    clock?: string;
    debug?: boolean;
  },
  log: (line: string) => void,
): {
  attach(link: Link): void;
  operator(line: string): string;
} {
  if (values.dialect === 'transbank') {
    if (values.serial!.length > 8)
      throw usageError(
        `a Transbank terminal id is at most 8 characters; --serial ${JSON.stringify(values.serial)} has ${values.serial!.length}`,
      );
    if (values['commerce-code'] !== undefined && !/^\d{1,12}$/.test(values['commerce-code']))
      throw usageError('--commerce-code is at most 12 digits');
    const pos = new TransbankPos({
      terminalId: values.serial!,
      verbose: values.debug ?? false,
      log,
      ...(values['commerce-code'] ? { commerceCode: values['commerce-code'] } : {}),
      ...(values.state ? { statePath: values.state } : {}),
      cardDelayMs: values.cardDelayMs ?? TRANSBANK_CARD_DELAY_MS,
      turnaroundMs: values.turnaroundMs ?? TURNAROUND_MS,
      ...reproducible(values),
    });
    if (values.state)
      log(
        `memory in ${values.state}: ${pos.snapshot.batch.length} sale(s) in the batch, next operation ${pos.snapshot.nextOperation}`,
      );
    return pos;
  }
  if (values.seed !== undefined || values.clock !== undefined)
    throw usageError('--seed and --clock are for --dialect transbank', usage.emulate);
  const autoApprove = values.autoApproveMs;
  const device = new EmulatedTerminal({
    serial: values.serial!,
    verbose: values.debug ?? false,
    autoApproveMs: autoApprove ?? null,
    log,
    ...(values.state ? { statePath: values.state } : {}),
  });
  if (values.state)
    log(
      `journal in ${values.state}: ${device.snapshot.records.length} unconfirmed record(s), next batch B${String(device.snapshot.nextBatch).padStart(4, '0')}`,
    );
  return device;
}

/** --seed and --clock: a POS that answers the same bytes to the same requests (transcripts, `svc-terminal play`). */
function reproducible(values: { seed?: string; clock?: string }): { random?: () => number; clock?: () => Date } {
  const seed = integer('seed', values.seed);
  let clock: Date | undefined;
  if (values.clock !== undefined) {
    clock = new Date(values.clock);
    if (Number.isNaN(clock.getTime()))
      throw usageError(`--clock takes an ISO 8601 time, got ${JSON.stringify(values.clock)}`);
  }
  return {
    ...(seed !== undefined ? { random: seededRandom(seed) } : {}),
    ...(clock ? { clock: () => clock } : {}),
  };
}
