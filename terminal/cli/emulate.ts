import { createInterface } from 'node:readline';
import { EmulatedTerminal } from '../device/svc/emulated-terminal.js';
import { FaultyPort, type Faults } from '../device/faulty-port.js';
import { TRANSBANK_CARD_DELAY_MS, TransbankPos, TURNAROUND_MS } from '../device/transbank/transbank-pos.js';
import { seededRandom } from '../../contracts/seeded-random.js';
import { Link } from '../protocol/link.js';
import { openSerial } from '../serial-port.js';
import { emulateZvt } from './emulate-zvt.js';
import { duration, integer, logTo, parseOptions, stopped, UsageError, type CliIo } from './io.js';
import { usage } from './usage.js';

/** svc-terminal emulate: an emulated device on a serial line, until stopped. */
export async function emulate(argv: string[], io: CliIo): Promise<void> {
  const log = logTo(io);
  const { values } = parseOptions(
    {
      args: argv,
      options: {
        path: { type: 'string' },
        listen: { type: 'string' },
        password: { type: 'string' },
        serial: { type: 'string' },
        state: { type: 'string' },
        'auto-approve-ms': { type: 'string' },
        baud: { type: 'string' },
        debug: { type: 'boolean' },
        dialect: { type: 'string', default: 'svc' },
        'commerce-code': { type: 'string' },
        'card-delay-ms': { type: 'string' },
        'turnaround-ms': { type: 'string' },
        seed: { type: 'string' },
        clock: { type: 'string' },
        'corrupt-frame': { type: 'string' },
        'drop-ack': { type: 'string' },
        'split-gap-ms': { type: 'string' },
        'delay-ms': { type: 'string' },
        'auto-approve': { type: 'string' },
        'card-delay': { type: 'string' },
        turnaround: { type: 'string' },
        'split-gap': { type: 'string' },
        delay: { type: 'string' },
        'silent-after': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    },
    usage.emulate,
  );
  if (values.help) return void io.out(usage.emulate);
  const faults: Faults = {};
  const setFault = (key: keyof Faults, name: string) => {
    const value = integer(name, values[name as keyof typeof values] as string | undefined);
    if (value !== undefined) faults[key] = value;
  };
  setFault('corruptFrame', 'corrupt-frame');
  setFault('dropAck', 'drop-ack');
  const splitGap = duration(io, values, 'split-gap');
  if (splitGap !== undefined) faults.splitGapMs = splitGap;
  const delay = duration(io, values, 'delay');
  if (delay !== undefined) faults.delayMs = delay;
  setFault('silentAfter', 'silent-after');
  const times = {
    autoApproveMs: duration(io, values, 'auto-approve'),
    cardDelayMs: duration(io, values, 'card-delay'),
    turnaroundMs: duration(io, values, 'turnaround'),
  };
  if (values.dialect === 'zvt') return emulateZvt({ ...values, cardDelayMs: times.cardDelayMs }, faults, io);
  if (values.listen !== undefined || values.password !== undefined)
    throw new UsageError('--listen and --password are for --dialect zvt', usage.emulate);
  if (!values.path || !values.serial) throw new UsageError('emulate needs --path and --serial', usage.emulate);
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
  const operator = createInterface({ input: io.input }).on(
    'line',
    (line) => line.trim() && io.out(`${device.operator(line)}\n`),
  );
  await stopped(io.stop);
  closing = true;
  operator.close();
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
      throw new UsageError(
        `a Transbank terminal id is at most 8 characters; --serial ${JSON.stringify(values.serial)} has ${values.serial!.length}`,
      );
    if (values['commerce-code'] !== undefined && !/^\d{1,12}$/.test(values['commerce-code']))
      throw new UsageError('--commerce-code is at most 12 digits');
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
    throw new UsageError('--seed and --clock are for --dialect transbank', usage.emulate);
  if (values.dialect !== 'svc')
    throw new UsageError(`--dialect is svc, transbank or zvt, got ${JSON.stringify(values.dialect)}`, usage.emulate);
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
      throw new UsageError(`--clock takes an ISO 8601 time, got ${JSON.stringify(values.clock)}`);
  }
  return {
    ...(seed !== undefined ? { random: seededRandom(seed) } : {}),
    ...(clock ? { clock: () => clock } : {}),
  };
}
