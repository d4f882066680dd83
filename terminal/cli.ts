#!/usr/bin/env node
// svc-terminal: drive real or emulated POS devices over a serial line.
import { createInterface } from 'node:readline';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { SerialPort } from 'serialport';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Bridge, DEFAULTS } from './bridge/bridge.js';
import { BridgeState } from './bridge/bridge-state.js';
import { missedClose, nextOccurrence, type DailyTime } from './bridge/close-schedule.js';
import { SaleJournal } from './bridge/transbank/sale-journal.js';
import { TRANSBANK_DEFAULTS, TransbankBridge } from './bridge/transbank/transbank-bridge.js';
import { EmulatedTerminal } from './device/emulated-terminal.js';
import { DEFAULT_CARD_DELAY_MS, TransbankPos, TURNAROUND_MS } from './device/transbank/transbank-pos.js';
import { FaultyPort, type Faults } from './device/faulty-port.js';
import { PosClient } from '../contracts/clients/pos-client.js';
import { openSerial } from './serial-port.js';
import { Link } from './protocol/link.js';

/** Where the bridge keeps its state unless --state-dir says otherwise (XDG's state directory). */
const DEFAULT_STATE_DIR = join(process.env.XDG_STATE_HOME ?? join(homedir(), '.local', 'state'), 'svc-terminal');

const usage = {
  main: `usage: svc-terminal <command> [options]

commands:
  emulate   an emulated POS device on a serial line (operator commands on stdin)
  bridge    drive one device for one terminal: orders to the device, records to the server
  held      records the bridge holds for an operator's decision, and the decisions
  retry     send a sale the POS declined again (Transbank: the cashier's "try another card")
  ports     list the serial ports of this machine

svc-terminal <command> --help says more. Line settings: 115200 8N1 unless --baud.
`,
  emulate: `usage: svc-terminal emulate --path PATH --serial SN [--dialect svc|transbank] [--state FILE] [--auto-approve-ms N] [--baud N] [fault options] [--debug]

An emulated POS device on the serial line PATH (a real port or one end of a
pseudo-terminal pair). It answers the host (addendum §9) and keeps every
record until the host confirms it. Charges and voids are approved after
--auto-approve-ms, or by you on stdin: approve [orderId], decline [orderId],
void [orderId], close (the batch), status.

  --state FILE        the device's journal, as a real terminal keeps one in
                      flash: unconfirmed records, the batch number and the
                      orders it approved survive a restart (written before
                      every answer). Without it, everything is in memory.
                      A charge asked for an order already approved is
                      refused with rc 94, never approved twice.

  --dialect transbank a Transbank POS Integrado instead (terminal/README.md):
                      --serial is its terminal id (8 characters at most), it
                      answers the cash register's sale, multicode sale, last
                      sale, refund, close, totals, sales detail, load keys,
                      poll and change to normal POS, and approves every sale
                      after --card-delay-ms (default ${DEFAULT_CARD_DELAY_MS}) except amounts
                      of 1 to 99 pesos, refused with that response code.
                      --state keeps its batch, operation numbers and last
                      sale. On stdin: next approve|debit|RC (the next sale's
                      outcome), unload-keys, integrated, status.
  --commerce-code N   the Transbank POS's commerce code (12 digits at most)
  --turnaround-ms N   transbank: the least time from a request's ACK to each
                      frame after it (default ${TURNAROUND_MS}: the official SDK cuts
                      packets by 100 ms of silence, so less breaks it; a
                      cash register that reads frames may use less)

fault options (for tests and demos):
  --corrupt-frame N   corrupt the LRC of the Nth frame sent
  --drop-ack N        do not send the Nth ACK
  --split-gap-ms N    send every frame in two halves N ms apart
  --delay-ms N        hold every write N ms
  --silent-after N    stop sending after the Nth frame
`,
  bridge: `usage: svc-terminal bridge --path PATH --base-url URL --serial SN [--dialect svc|transbank] [--secret-file FILE] [options]

Drives the device on PATH for terminal SN: asks it to charge the server's
PENDING orders and to void its VOID_PENDING ones, sends every record it
holds to the server (signed with the terminal's secret), and confirms a
record to the device only once the server holds that same record. A record
the server holds differently (a conflicting batch, a second charge) is held
under --state-dir, left on the device, and reported: see svc-terminal held.

The terminal's secret (64 hex characters, shown at provisioning) comes from
--secret-file FILE or SVC_TERMINAL_SECRET; --secret HEX works, with a
warning, since every local user can read it in ps.

  --state-dir DIR         what must survive a restart: the orders asked (a
                          restarted bridge never asks twice) and held records
                          (default ${DEFAULT_STATE_DIR})
  --poll-ms N             pause between two cycles (default ${DEFAULTS.pollMs})
  --answer-timeout-ms N   how long to wait for the device's answer to one
                          request; a device slower than this is a dead line
                          (default ${DEFAULTS.answerTimeoutMs})
  --close-at HH:MM        close the batch from the host (0500) every day at
                          this local time; typing "close" on stdin does it now
  --dialect transbank     the device is a Transbank POS Integrado and the bridge
                          its cash register (terminal/README.md): each PENDING
                          order is sold (whole CLP, a durable 6-character
                          ticket), an approval commits it with the POS's
                          authorization code, a decline leaves it PENDING
                          until svc-terminal retry ORDER, a VOID_PENDING order
                          is refunded by its sale's operation number, and a
                          close is totals, close and one CLP settlement.
                          Every sale, refund and close is journaled before it
                          goes on the line and settled from the POS after a
                          kill (the last sale, the refund again, the totals).
  --sale-timeout-ms N     transbank: how long a sale may wait for the customer
                          (default ${TRANSBANK_DEFAULTS.saleTimeoutMs})
  --baud N                line speed (default 115200, 8N1)
  --debug                 frames in hex and link events

The serial line and the server fail separately: a silent device or a pulled
cable reopens the line (0.5 s doubling to 10 s); a server that is down or
answers 5xx leaves the line open and polled and is tried again (1 s doubling
to 30 s). Each change of state is one log line.
`,
  held: `usage: svc-terminal held --serial SN [--state-dir DIR]
       svc-terminal held --serial SN [--state-dir DIR] resend KEY
       svc-terminal held --serial SN [--state-dir DIR] discard KEY --reason TEXT

Records the bridge holds for terminal SN because the server holds something
different in their place (a batch number reused with other fields, a second
charge of an order). Each stays on the device, unconfirmed, and the device's
later records wait behind it, until you decide:

  resend KEY      after fixing the cause (on the server, or on the device):
                  the bridge sends the record again at its next cycle
  discard KEY     the record is not wanted (say why with --reason): the
                  bridge confirms it to the device, which deletes it; the
                  decision is kept in <state-dir>/<serial>/released.jsonl

A running bridge carries the decision out at its next cycle.
`,
  retry: `usage: svc-terminal retry ORDER --serial SN [--state-dir DIR]

A sale the Transbank POS declined stays PENDING on the server and is not
sent to the POS again by itself (the customer may have walked away). When
the cashier wants to try again (another card), this sends it: the running
bridge for terminal SN (the same --state-dir) takes it at its next cycle.
`,
  ports: `usage: svc-terminal ports

Lists the serial ports this machine has (path, manufacturer, serial number).
`,
};

const log = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);
const logError = (line: string) => process.stderr.write(`${new Date().toISOString()} ERROR ${line}\n`);
const fail = (message: string, help?: string): never => {
  process.stderr.write(`svc-terminal: ${message}\n${help ? `\n${help}` : ''}`);
  process.exit(2);
};

type ParsedResults<T extends ParseArgsConfig> = ReturnType<typeof parseArgs<T>>;

/** parseArgs, with a mistyped option answered as a usage error (exit 2), not a stack trace. */
function parseOptions<const T extends ParseArgsConfig>(config: T, help: string): ParsedResults<T> {
  try {
    return parseArgs(config);
  } catch (error) {
    return fail((error as Error).message, help);
  }
}

function integer(name: string, value: string | undefined, fallback?: number): number | undefined {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) fail(`--${name} must be a whole number, got ${JSON.stringify(value)}`);
  return Number(value);
}

async function emulate(argv: string[]): Promise<void> {
  const { values } = parseOptions({
    args: argv,
    options: {
      path: { type: 'string' }, serial: { type: 'string' }, state: { type: 'string' }, 'auto-approve-ms': { type: 'string' }, baud: { type: 'string' }, debug: { type: 'boolean' },
      dialect: { type: 'string', default: 'svc' }, 'commerce-code': { type: 'string' }, 'card-delay-ms': { type: 'string' }, 'turnaround-ms': { type: 'string' },
      'corrupt-frame': { type: 'string' }, 'drop-ack': { type: 'string' }, 'split-gap-ms': { type: 'string' }, 'delay-ms': { type: 'string' }, 'silent-after': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }, usage.emulate);
  if (values.help) return void process.stdout.write(usage.emulate);
  if (!values.path || !values.serial) fail('emulate needs --path and --serial', usage.emulate);
  const faults: Faults = {};
  const setFault = (key: keyof Faults, name: string) => {
    const value = integer(name, values[name as keyof typeof values] as string | undefined);
    if (value !== undefined) faults[key] = value;
  };
  setFault('corruptFrame', 'corrupt-frame');
  setFault('dropAck', 'drop-ack');
  setFault('splitGapMs', 'split-gap-ms');
  setFault('delayMs', 'delay-ms');
  setFault('silentAfter', 'silent-after');
  const device = emulatedDevice(values);
  const baud = integer('baud', values.baud, 115200)!;
  let backoff = 500;
  const connect = async (): Promise<void> => {
    try {
      const port = await openSerial(values.path!, baud);
      const line = Object.keys(faults).length > 0 ? new FaultyPort(port, faults) : port;
      const link = new Link(line, values.debug ? { debug: log } : {});
      device.attach(link);
      backoff = 500;
      log(`${values.dialect} device ${values.serial} on ${values.path} (${baud} 8N1)${Object.keys(faults).length ? `, faults ${JSON.stringify(faults)}` : ''}; type "status" or "help"`);
      link.once('close', () => {
        log('line closed; reopening');
        if (port.isOpen) port.close(() => undefined);
        setTimeout(() => void connect(), backoff);
      });
    } catch (error) {
      log(`cannot open ${values.path}: ${(error as Error).message}; retrying in ${backoff} ms`);
      setTimeout(() => void connect(), backoff);
      backoff = Math.min(10_000, backoff * 2);
    }
  };
  await connect();
  createInterface({ input: process.stdin }).on('line', (line) => line.trim() && process.stdout.write(`${device.operator(line)}\n`));
}

/** The device the options describe: today's svc terminal, or a Transbank POS Integrado. */
function emulatedDevice(values: { serial?: string; state?: string; dialect?: string; 'auto-approve-ms'?: string; 'commerce-code'?: string; 'card-delay-ms'?: string; 'turnaround-ms'?: string }): {
  attach(link: Link): void;
  operator(line: string): string;
} {
  if (values.dialect === 'transbank') {
    if (values.serial!.length > 8) fail(`a Transbank terminal id is at most 8 characters; --serial ${JSON.stringify(values.serial)} has ${values.serial!.length}`);
    if (values['commerce-code'] !== undefined && !/^\d{1,12}$/.test(values['commerce-code'])) fail('--commerce-code is at most 12 digits');
    const pos = new TransbankPos({
      terminalId: values.serial!,
      log,
      ...(values['commerce-code'] ? { commerceCode: values['commerce-code'] } : {}),
      ...(values.state ? { statePath: values.state } : {}),
      cardDelayMs: integer('card-delay-ms', values['card-delay-ms'], DEFAULT_CARD_DELAY_MS)!,
      turnaroundMs: integer('turnaround-ms', values['turnaround-ms'], TURNAROUND_MS)!,
    });
    if (values.state) log(`memory in ${values.state}: ${pos.snapshot.batch.length} sale(s) in the batch, next operation ${pos.snapshot.nextOperation}`);
    return pos;
  }
  if (values.dialect !== 'svc') fail(`--dialect is svc or transbank, got ${JSON.stringify(values.dialect)}`, usage.emulate);
  const autoApprove = integer('auto-approve-ms', values['auto-approve-ms']);
  const device = new EmulatedTerminal({ serial: values.serial!, autoApproveMs: autoApprove ?? null, log, ...(values.state ? { statePath: values.state } : {}) });
  if (values.state) log(`journal in ${values.state}: ${device.snapshot.records.length} unconfirmed record(s), next batch B${String(device.snapshot.nextBatch).padStart(4, '0')}`);
  return device;
}

async function bridge(argv: string[]): Promise<void> {
  const { values } = parseOptions({
    args: argv,
    options: {
      path: { type: 'string' }, 'base-url': { type: 'string' }, serial: { type: 'string' }, secret: { type: 'string' }, 'secret-file': { type: 'string' },
      'state-dir': { type: 'string' }, 'poll-ms': { type: 'string' }, 'answer-timeout-ms': { type: 'string' }, 'close-at': { type: 'string' },
      dialect: { type: 'string', default: 'svc' }, 'sale-timeout-ms': { type: 'string' },
      baud: { type: 'string' }, debug: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
    },
  }, usage.bridge);
  if (values.help) return void process.stdout.write(usage.bridge);
  const missing = (['path', 'base-url', 'serial'] as const).filter((name) => !values[name]);
  if (missing.length > 0) fail(`bridge needs ${missing.map((m) => `--${m}`).join(', ')}`, usage.bridge);
  if (values.dialect !== 'svc' && values.dialect !== 'transbank') fail(`--dialect is svc or transbank, got ${JSON.stringify(values.dialect)}`, usage.bridge);
  const secret = terminalSecret(values);
  if (!URL.canParse(values['base-url']!)) fail(`--base-url must be an absolute URL, got ${JSON.stringify(values['base-url'])}`);
  const closeAt = values['close-at'] === undefined ? null : dailyTime(values['close-at']);
  const baud = integer('baud', values.baud, 115200)!;
  const stateDir = values['state-dir'] ?? DEFAULT_STATE_DIR;
  const state = await BridgeState.open(stateDir, values.serial!);
  const client = new PosClient({ baseUrl: values['base-url']!, serialNumber: values.serial!, secret });
  const common = {
    open: () => openSerial(values.path!, baud),
    client,
    state,
    serverUrl: values['base-url']!,
    pollMs: integer('poll-ms', values['poll-ms'], DEFAULTS.pollMs)!,
    log,
    error: logError,
    ...(values.debug ? { debug: log } : {}),
  };
  const running =
    values.dialect === 'transbank'
      ? new TransbankBridge({
          ...common,
          journal: await SaleJournal.open(state.dir),
          answerTimeoutMs: integer('answer-timeout-ms', values['answer-timeout-ms'], TRANSBANK_DEFAULTS.answerTimeoutMs)!,
          saleTimeoutMs: integer('sale-timeout-ms', values['sale-timeout-ms'], TRANSBANK_DEFAULTS.saleTimeoutMs)!,
        })
      : new Bridge({ ...common, answerTimeoutMs: integer('answer-timeout-ms', values['answer-timeout-ms'], DEFAULTS.answerTimeoutMs)! });
  log(`${values.dialect} bridge for ${values.serial} on ${values.path} (${baud} 8N1) → ${values['base-url']}; state in ${state.dir}`);
  const held = (await state.listHeld()).length + (await state.listHeldAsks()).length;
  if (held > 0) logError(`${held} held from before, waiting for a decision: ${state.heldCommand()}`);
  const close = (why: string) =>
    running.requestClose().then(
      () => log(`${why}: batch close journaled, sent to the device at the next cycle`),
      (error: Error) => logError(`${why}: the batch close could not be journaled (${error.message}); not sent`),
    );
  if (closeAt) {
    const last = await state.lastCloseAsked();
    if (missedClose(closeAt, last?.requestedAt, Date.now())) void close(`the ${values['close-at']} close was missed (the last was asked ${last!.requestedAt})`);
    scheduleDaily(closeAt, () => void close(`${values['close-at']}`));
  }
  createInterface({ input: process.stdin }).on('line', (line) => {
    if (line.trim() === 'close') void close('close typed');
    else if (line.trim()) process.stdout.write('commands: close (the batch, from the host)\n');
  });
  process.on('SIGINT', () => void running.stop().then(() => process.exit(0)));
  process.on('SIGTERM', () => void running.stop().then(() => process.exit(0)));
  await running.run();
}

/** The terminal's secret from --secret-file, SVC_TERMINAL_SECRET or (with a warning) --secret. */
function terminalSecret(values: { secret?: string | undefined; 'secret-file'?: string | undefined }): string {
  let secret: string | undefined;
  // More than one source given: say which one is used, so a stale one is never used silently.
  const given = [values['secret-file'] ? '--secret-file' : null, process.env.SVC_TERMINAL_SECRET ? 'SVC_TERMINAL_SECRET' : null, values.secret ? '--secret' : null].filter((name) => name !== null);
  if (given.length > 1) process.stderr.write(`svc-terminal: warning: the secret is given by ${given.join(' and ')}; ${given[0]} is used\n`);
  if (values['secret-file']) {
    try {
      secret = readFileSync(values['secret-file'], 'utf8').trim();
    } catch (error) {
      fail(`cannot read --secret-file: ${(error as Error).message}`);
    }
  } else if (process.env.SVC_TERMINAL_SECRET) {
    secret = process.env.SVC_TERMINAL_SECRET.trim();
  } else if (values.secret) {
    process.stderr.write('svc-terminal: warning: --secret is visible to every local user in ps; prefer --secret-file or SVC_TERMINAL_SECRET\n');
    secret = values.secret;
  }
  if (!secret) fail('give the terminal\'s secret with --secret-file FILE or SVC_TERMINAL_SECRET', usage.bridge);
  if (!/^[0-9a-f]{64}$/.test(secret!)) fail('the terminal\'s secret is 64 lowercase hex characters, as shown at provisioning');
  return secret!;
}

function dailyTime(text: string): { hours: number; minutes: number } {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text);
  if (!match) fail(`--close-at takes a local time as HH:MM, got ${JSON.stringify(text)}`);
  return { hours: Number(match![1]), minutes: Number(match![2]) };
}

/** Runs `work` every day at the local time given. */
function scheduleDaily(at: DailyTime, work: () => void): void {
  setTimeout(() => {
    work();
    scheduleDaily(at, work);
  }, nextOccurrence(at, Date.now()) - Date.now()).unref();
}

async function heldCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: { serial: { type: 'string' }, 'state-dir': { type: 'string' }, reason: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  }, usage.held);
  if (values.help) return void process.stdout.write(usage.held);
  if (!values.serial) fail('held needs --serial', usage.held);
  const state = await BridgeState.open(values['state-dir'] ?? DEFAULT_STATE_DIR, values.serial!);
  const [action, key, ...extra] = positionals as [string | undefined, string | undefined, ...string[]];
  if (extra.length > 0) fail(`unexpected arguments: ${extra.join(' ')}`, usage.held);
  if (action === undefined) {
    const held = await state.listHeld();
    const asks = await state.listHeldAsks();
    if (held.length === 0 && asks.length === 0) return void process.stdout.write(`no records held for ${values.serial} (${state.dir})\n`);
    for (const ask of asks) {
      process.stdout.write(`${ask.key}  held ${ask.heldAt}\n  the ${ask.kind} of order ${ask.orderId}\n  why: ${ask.reason}\n`);
      process.stdout.write(ask.decision ? `  decided: ${ask.decision.action}${ask.decision.reason ? ` (${ask.decision.reason})` : ''}, waiting for the bridge's next cycle\n` : `  decide: resend ${ask.key} (ask the device again) | discard ${ask.key} --reason "…" (do not)\n`);
    }
    for (const record of held) {
      process.stdout.write(`${record.key}  held ${record.heldAt}\n  ${record.message}\n  why: ${record.reason}\n  server: ${record.server.status} ${record.server.code ?? ''} ${record.server.message ?? ''}\n`);
      process.stdout.write(record.decision ? `  decided: ${record.decision.action}${record.decision.reason ? ` (${record.decision.reason})` : ''}, waiting for the bridge's next cycle\n` : `  decide: resend ${record.key} | discard ${record.key} --reason "…"\n`);
    }
    return;
  }
  if ((action !== 'resend' && action !== 'discard') || !key) fail('say resend KEY or discard KEY', usage.held);
  if (action === 'discard' && !values.reason?.trim()) fail('discard needs --reason: it is kept with the decision', usage.held);
  try {
    await state.decideAny(key!, { action: action as 'resend' | 'discard', ...(values.reason ? { reason: values.reason } : {}), decidedAt: new Date().toISOString() });
  } catch (error) {
    process.stderr.write(`svc-terminal: ${(error as Error).message} (svc-terminal held --serial ${values.serial} lists them)\n`);
    process.exit(1);
  }
  process.stdout.write(`${action} ${key}: the bridge carries it out at its next cycle\n`);
}

async function retryCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseOptions({
    args: argv,
    allowPositionals: true,
    options: { serial: { type: 'string' }, 'state-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  }, usage.retry);
  if (values.help) return void process.stdout.write(usage.retry);
  if (!values.serial || positionals.length !== 1) fail('retry needs one ORDER and --serial', usage.retry);
  const state = await BridgeState.open(values['state-dir'] ?? DEFAULT_STATE_DIR, values.serial!);
  const [orderId] = positionals as [string];
  const journal = await SaleJournal.open(state.dir);
  if (!journal.declined(`sale:${orderId}`)) fail(`order ${orderId} has no sale declined by the POS of ${values.serial} (${state.dir}); a PENDING order that was not declined is sold anyway`);
  await state.requestRetry(orderId, new Date().toISOString());
  process.stdout.write(`retry ${orderId}: the bridge sends it to the POS again at its next cycle\n`);
}

async function ports(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) return void process.stdout.write(usage.ports);
  try {
    const list = await SerialPort.list();
    if (list.length === 0) process.stdout.write('no serial ports found\n');
    for (const port of list) process.stdout.write(`${port.path}\t${port.manufacturer ?? ''}\t${port.serialNumber ?? ''}\n`);
  } catch (error) {
    const reason = (error as Error).message;
    process.stderr.write(`svc-terminal: this system cannot list its serial ports (${reason})${/udevadm/.test(reason) ? '; on Linux listing needs udevadm (Debian package udev). Give the path directly, e.g. --path /dev/ttyUSB0' : ''}\n`);
    process.exit(1);
  }
}

// Output piped into a reader that stops early (svc-terminal held | head) ends the command quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}

const [command, ...rest] = process.argv.slice(2);
switch (command) {
  case 'emulate':
    await emulate(rest);
    break;
  case 'bridge':
    await bridge(rest);
    break;
  case 'held':
    await heldCommand(rest);
    break;
  case 'retry':
    await retryCommand(rest);
    break;
  case 'ports':
    await ports(rest);
    break;
  case undefined:
  case '--help':
  case '-h':
    process.stdout.write(usage.main);
    break;
  default:
    fail(`unknown command ${JSON.stringify(command)}`, usage.main);
}
