import { connect as connectTcp } from 'node:net';
import { createInterface } from 'node:readline';
import { howToGive, readCredential, TERMINAL_SECRET } from '../../contracts/cli/credential.js';
import { PosClient } from '../../contracts/clients/pos-client.js';
import { Bridge } from '../bridge/bridge.js';
import { COMMON_DEFAULTS } from '../bridge/bridge-options.js';
import { BridgeState } from '../bridge/bridge-state.js';
import { missedClose, nextOccurrence, type DailyTime } from '../bridge/close-schedule.js';
import { SaleJournal } from '../bridge/transbank/sale-journal.js';
import { svcDialect } from '../bridge/svc/svc-dialect.js';
import { TRANSBANK_DEFAULTS, transbankDialect } from '../bridge/transbank/transbank-dialect.js';
import { ZvtJournal } from '../bridge/zvt/zvt-journal.js';
import { ZVT_DEFAULTS, zvtDialect } from '../bridge/zvt/zvt-dialect.js';
import { T4_MS } from '../bridge/zvt/ecr-session.js';
import type { SerialLine } from '../bridge/bridge-options.js';
import { openSerial } from '../serial-port.js';
import { duration, errorTo, integer, logTo, parseOptions, statePath, stopped, UsageError, type CliIo } from './io.js';
import { DEFAULT_STATE_DIR, usage } from './usage.js';

const usageError = (message: string, help?: string): never => {
  throw new UsageError(message, help);
};

/** svc-terminal bridge: drives one device for one terminal, until stopped. */
export async function bridge(argv: string[], io: CliIo): Promise<void> {
  const log = logTo(io);
  const logError = errorTo(io);
  const { values } = parseOptions(
    {
      args: argv,
      options: {
        path: { type: 'string' },
        host: { type: 'string' },
        password: { type: 'string' },
        't4-ms': { type: 'string' },
        t4: { type: 'string' },
        state: { type: 'string' },
        poll: { type: 'string' },
        'answer-timeout': { type: 'string' },
        'sale-timeout': { type: 'string' },
        'base-url': { type: 'string' },
        serial: { type: 'string' },
        secret: { type: 'string' },
        'secret-file': { type: 'string' },
        'state-dir': { type: 'string' },
        'poll-ms': { type: 'string' },
        'answer-timeout-ms': { type: 'string' },
        'close-at': { type: 'string' },
        dialect: { type: 'string', default: 'svc' },
        'sale-timeout-ms': { type: 'string' },
        baud: { type: 'string' },
        debug: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    },
    usage.bridge,
  );
  if (values.help) return void io.out(usage.bridge);
  const zvt = values.dialect === 'zvt';
  const missing: string[] = (['base-url', 'serial'] as const).filter((name) => !values[name]);
  if (!values.path && !(zvt && values.host)) missing.unshift(zvt ? 'path or --host' : 'path');
  if (missing.length > 0) usageError(`bridge needs ${missing.map((m) => `--${m}`).join(', ')}`, usage.bridge);
  if (values.dialect !== 'svc' && values.dialect !== 'transbank' && !zvt)
    usageError(`--dialect is svc, transbank or zvt, got ${JSON.stringify(values.dialect)}`, usage.bridge);
  if (values.host !== undefined && (!zvt || values.path !== undefined))
    usageError('--host is for --dialect zvt over TCP, instead of --path', usage.bridge);
  if (values.password !== undefined && (!zvt || !/^\d{6}$/.test(values.password)))
    usageError("--password is the ZVT terminal's, 6 digits (--dialect zvt)", usage.bridge);
  const tcp = values.host === undefined ? undefined : hostAndPort(values.host);
  const secret = terminalSecret(values, io);
  if (!URL.canParse(values['base-url']!))
    usageError(`--base-url must be an absolute URL, got ${JSON.stringify(values['base-url'])}`);
  const closeAt = values['close-at'] === undefined ? null : dailyTime(values['close-at']);
  const baud = integer('baud', values.baud, zvt ? 9600 : 115200)!;
  const stateDir = statePath(io, values) ?? DEFAULT_STATE_DIR;
  const state = await BridgeState.open(stateDir, values.serial!);
  const client = new PosClient({ baseUrl: values['base-url']!, serialNumber: values.serial!, secret });
  const common = {
    open: (): Promise<SerialLine> => (tcp ? openTcp(tcp) : openSerial(values.path!, baud, zvt ? 2 : 1)),
    client,
    state,
    serverUrl: values['base-url']!,
    pollMs: duration(io, values, 'poll', COMMON_DEFAULTS.pollMs)!,
    log,
    error: logError,
    ...(values.debug ? { debug: log } : {}),
  };
  const dialect =
    values.dialect === 'transbank'
      ? transbankDialect({
          journal: await SaleJournal.open(state.dir),
          saleTimeoutMs: duration(io, values, 'sale-timeout', TRANSBANK_DEFAULTS.saleTimeoutMs)!,
        })
      : zvt
        ? zvtDialect({
            journal: await ZvtJournal.open(state.dir),
            transport: tcp ? 'tcp' : 'serial',
            password: values.password ?? ZVT_DEFAULTS.password,
            masterTimeoutMs: duration(io, values, 't4', T4_MS)!,
          })
        : svcDialect;
  const running: Bridge = new Bridge({
    ...common,
    dialect,
    answerTimeoutMs: duration(io, values, 'answer-timeout', dialect.answerTimeoutMs)!,
  });
  log(
    `${values.dialect} bridge for ${values.serial} on ${tcp ? `${tcp.host}:${tcp.port} (TCP)` : `${values.path} (${baud} 8N${zvt ? 2 : 1})`} → ${values['base-url']}; state in ${state.dir}`,
  );
  const held = (await state.listHeld()).length + (await state.listHeldAsks()).length;
  if (held > 0) logError(`${held} held from before, waiting for a decision: ${state.heldCommand()}`);
  const close = (why: string) =>
    running.requestClose().then(
      () => log(`${why}: batch close journaled, sent to the device at the next cycle`),
      (error: Error) => logError(`${why}: the batch close could not be journaled (${error.message}); not sent`),
    );
  if (closeAt) {
    const last = await state.lastCloseAsked();
    if (missedClose(closeAt, last?.requestedAt, Date.now()))
      void close(`the ${values['close-at']} close was missed (the last was asked ${last!.requestedAt})`);
  }
  const operator = createInterface({ input: io.input }).on('line', (line) => {
    if (line.trim() === 'close') void close('close typed');
    else if (line.trim()) io.out('commands: close (the batch, from the host)\n');
  });
  // Asked to stop while it was being set up, it stops at once.
  void stopped(io.stop).then(() => running.stop());
  const daily = closeAt ? scheduleDaily(closeAt, () => void close(`${values['close-at']}`)) : undefined;
  try {
    await running.run();
  } finally {
    operator.close();
    daily?.stop();
  }
}

/** The terminal's secret from --secret-file, SVC_TERMINAL_SECRET or (with a warning) --secret, as every command takes it. */
function terminalSecret(
  values: { secret?: string | undefined; 'secret-file'?: string | undefined },
  io: CliIo,
): string {
  const answer = readCredential(TERMINAL_SECRET, { flag: values.secret, file: values['secret-file'], env: io.env });
  if ('error' in answer) return usageError(answer.error);
  for (const warning of answer.warnings) io.err(`svc-terminal: warning: ${warning}\n`);
  return answer.value ?? usageError(howToGive(TERMINAL_SECRET), usage.bridge);
}

/** HOST:PORT of a ZVT terminal on the LAN (its port is usually 20007). */
function hostAndPort(text: string): { host: string; port: number } {
  const match = /^(.+):(\d{1,5})$/.exec(text);
  if (!match || Number(match[2]) > 65535)
    return usageError(`--host takes HOST:PORT (a ZVT terminal's port is usually 20007), got ${JSON.stringify(text)}`);
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port: Number(match[2]) };
}

/** A TCP connection to the terminal, as the line the bridge opens and reopens. */
function openTcp(address: { host: string; port: number }): Promise<SerialLine> {
  return new Promise((resolve, reject) => {
    const socket = connectTcp(address.port, address.host);
    socket.setNoDelay(true);
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

function dailyTime(text: string): DailyTime {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text);
  if (!match) usageError(`--close-at takes a local time as HH:MM, got ${JSON.stringify(text)}`);
  return { hours: Number(match![1]), minutes: Number(match![2]) };
}

/** Runs `work` every day at the local time given, until stopped. */
function scheduleDaily(at: DailyTime, work: () => void): { stop(): void } {
  let timer: NodeJS.Timeout;
  const next = () => {
    timer = setTimeout(
      () => {
        work();
        next();
      },
      nextOccurrence(at, Date.now()) - Date.now(),
    ).unref();
  };
  next();
  return { stop: () => clearTimeout(timer) };
}
