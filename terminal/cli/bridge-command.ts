import { howToGive, readCredential, TERMINAL_SECRET } from '../../contracts/cli/credential.js';
import { PosClient } from '../../contracts/clients/pos-client.js';
import { Bridge } from '../bridge/bridge.js';
import { COMMON_DEFAULTS } from '../bridge/bridge-options.js';
import { BridgeState } from '../bridge/bridge-state.js';
import { missedClose, nextOccurrence, type DailyTime } from '../bridge/close-schedule.js';
import type { OptionValues } from './dialect-commands.js';
import { bridgeUsage, dialectNamed } from './dialects.js';
import { duration, errorTo, logTo, parseOptions, statePath, stopped, usageError, type CliIo } from './io.js';
import { operatorChannel } from './operator.js';
import { DEFAULT_STATE_DIR, usage } from './usage.js';

const refuseUsage = (message: string, help?: string): never => {
  throw usageError(message, help);
};

/** The options every dialect's bridge takes. */
const COMMON_OPTIONS = {
  state: { type: 'string' },
  poll: { type: 'string' },
  'answer-timeout': { type: 'string' },
  'base-url': { type: 'string' },
  serial: { type: 'string' },
  secret: { type: 'string' },
  'secret-file': { type: 'string' },
  'state-dir': { type: 'string' },
  'poll-ms': { type: 'string' },
  'answer-timeout-ms': { type: 'string' },
  'close-at': { type: 'string' },
  dialect: { type: 'string' },
  control: { type: 'string' },
  debug: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** svc-terminal bridge: drives one device for one terminal, until stopped. */
export async function bridge(argv: string[], io: CliIo): Promise<void> {
  const log = logTo(io);
  const logError = errorTo(io);
  const { name, commands } = dialectNamed(argv, usage.bridge);
  const help = bridgeUsage();
  const { values } = parseOptions({ args: argv, options: { ...COMMON_OPTIONS, ...commands.bridge.options } }, help);
  if (values.help) return void io.out(help);
  const missing: string[] = (['base-url', 'serial'] as const).filter((option) => !values[option]);
  if (missing.length > 0) refuseUsage(`bridge needs ${missing.map((m) => `--${m}`).join(', ')}`, help);
  const secret = terminalSecret(values, io);
  if (!URL.canParse(values['base-url']!))
    refuseUsage(`--base-url must be an absolute URL, got ${JSON.stringify(values['base-url'])}`);
  const closeAt = values['close-at'] === undefined ? null : dailyTime(values['close-at']);
  const stateDir = statePath(io, values) ?? DEFAULT_STATE_DIR;
  const state = await BridgeState.open(stateDir, values.serial!);
  const { definition: dialect, line } = await commands.bridge.configure(values as OptionValues, {
    io,
    stateDir: state.dir,
  });
  const client = new PosClient({ baseUrl: values['base-url']!, serialNumber: values.serial!, secret });
  const running: Bridge = new Bridge({
    open: line.open,
    client,
    state,
    serverUrl: values['base-url']!,
    pollMs: duration(io, values, 'poll', COMMON_DEFAULTS.pollMs)!,
    log,
    error: logError,
    ...(values.debug ? { debug: log } : {}),
    dialect,
    answerTimeoutMs: duration(io, values, 'answer-timeout', dialect.answerTimeoutMs)!,
  });
  log(`${name} bridge for ${values.serial} on ${line.describe} → ${values['base-url']}; state in ${state.dir}`);
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
  const operator = await operatorChannel(
    io,
    async (line) => {
      if (line !== 'close') return 'commands: close (the batch, from the host)';
      await close('close asked');
      return 'close: journaled for the next cycle';
    },
    typeof values.control === 'string' ? values.control : undefined,
  );
  log(`operator commands: ${operator.describe} (or svc-terminal close --serial ${values.serial})`);
  // Asked to stop while it was being set up, it stops at once.
  void stopped(io.stop).then(() => running.stop());
  const daily = closeAt ? scheduleDaily(closeAt, () => void close(`${values['close-at']}`)) : undefined;
  try {
    await running.run();
  } finally {
    await operator.close();
    daily?.stop();
  }
}

/** The terminal's secret from --secret-file, SVC_TERMINAL_SECRET or (with a warning) --secret, as every command takes it. */
function terminalSecret(
  values: { secret?: string | undefined; 'secret-file'?: string | undefined },
  io: CliIo,
): string {
  const answer = readCredential(TERMINAL_SECRET, { flag: values.secret, file: values['secret-file'], env: io.env });
  if ('error' in answer) return refuseUsage(answer.error);
  for (const warning of answer.warnings) io.err(`svc-terminal: warning: ${warning}\n`);
  return answer.value ?? refuseUsage(howToGive(TERMINAL_SECRET), usage.bridge);
}

function dailyTime(text: string): DailyTime {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text);
  if (!match) refuseUsage(`--close-at takes a local time as HH:MM, got ${JSON.stringify(text)}`);
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
