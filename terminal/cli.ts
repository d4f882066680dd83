// svc-terminal: drive real or emulated POS devices over a serial line.
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { SerialPort } from 'serialport';
import { Bridge } from './bridge/bridge.js';
import { EmulatedTerminal } from './device/emulated-terminal.js';
import { FaultyPort, type Faults } from './device/faulty-port.js';
import { PosClient } from './pos-client.js';
import { openSerial } from './serial-port.js';
import { Link } from './protocol/link.js';

const usage = {
  main: `usage: svc-terminal <command> [options]

commands:
  emulate   an emulated POS device on a serial line (operator commands on stdin)
  bridge    drive one device for one terminal: orders to the device, records to the server
  ports     list the serial ports of this machine

svc-terminal <command> --help says more. Line settings: 115200 8N1 unless --baud.
`,
  emulate: `usage: svc-terminal emulate --path PATH --serial SN [--auto-approve-ms N] [--baud N] [fault options] [--debug]

An emulated POS device on the serial line PATH (a real port or one end of a
pseudo-terminal pair). It answers the host (addendum §9) and keeps every
record until the host confirms it. Charges and voids are approved after
--auto-approve-ms, or by you on stdin: approve [orderId], decline [orderId],
void [orderId], close (the batch), status.

fault options (for tests and demos):
  --corrupt-frame N   corrupt the LRC of the Nth frame sent
  --drop-ack N        do not send the Nth ACK
  --split-gap-ms N    send every frame in two halves N ms apart
  --delay-ms N        hold every write N ms
  --silent-after N    stop sending after the Nth frame
`,
  bridge: `usage: svc-terminal bridge --path PATH --base-url URL --serial SN --secret HEX [--poll-ms N] [--baud N] [--debug]

Drives the device on PATH for terminal SN: asks it to charge the server's
PENDING orders and to void its VOID_PENDING ones, sends every record it
holds to the server (signed with the terminal's secret), and confirms a
record to the device only once the server has it. Heartbeat every cycle;
reconnects with backoff after an unplug.
`,
  ports: `usage: svc-terminal ports

Lists the serial ports this machine has (path, manufacturer, serial number).
`,
};

const log = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);
const fail = (message: string, help?: string): never => {
  process.stderr.write(`svc-terminal: ${message}\n${help ? `\n${help}` : ''}`);
  process.exit(2);
};

function integer(name: string, value: string | undefined, fallback?: number): number | undefined {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) fail(`--${name} must be a whole number, got ${JSON.stringify(value)}`);
  return Number(value);
}

async function emulate(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      path: { type: 'string' }, serial: { type: 'string' }, 'auto-approve-ms': { type: 'string' }, baud: { type: 'string' }, debug: { type: 'boolean' },
      'corrupt-frame': { type: 'string' }, 'drop-ack': { type: 'string' }, 'split-gap-ms': { type: 'string' }, 'delay-ms': { type: 'string' }, 'silent-after': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
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
  const autoApprove = integer('auto-approve-ms', values['auto-approve-ms']);
  const device = new EmulatedTerminal({ serial: values.serial!, autoApproveMs: autoApprove ?? null, log });
  const baud = integer('baud', values.baud, 115200)!;
  let backoff = 500;
  const connect = async (): Promise<void> => {
    try {
      const port = await openSerial(values.path!, baud);
      const line = Object.keys(faults).length > 0 ? new FaultyPort(port, faults) : port;
      const link = new Link(line, values.debug ? { debug: log } : {});
      device.attach(link);
      backoff = 500;
      log(`device ${values.serial} on ${values.path} (${baud} 8N1)${Object.keys(faults).length ? `, faults ${JSON.stringify(faults)}` : ''}; type "status" or "help"`);
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

async function bridge(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { path: { type: 'string' }, 'base-url': { type: 'string' }, serial: { type: 'string' }, secret: { type: 'string' }, 'poll-ms': { type: 'string' }, baud: { type: 'string' }, debug: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) return void process.stdout.write(usage.bridge);
  const missing = (['path', 'base-url', 'serial', 'secret'] as const).filter((name) => !values[name]);
  if (missing.length > 0) fail(`bridge needs ${missing.map((m) => `--${m}`).join(', ')}`, usage.bridge);
  if (!/^[0-9a-f]{64}$/.test(values.secret!)) fail('--secret is the terminal\'s 64 lowercase hex characters, as shown at provisioning');
  try {
    new URL(values['base-url']!);
  } catch {
    fail(`--base-url must be an absolute URL, got ${JSON.stringify(values['base-url'])}`);
  }
  const baud = integer('baud', values.baud, 115200)!;
  const client = new PosClient({ baseUrl: values['base-url']!, serialNumber: values.serial!, secret: values.secret! });
  const running = new Bridge({ open: () => openSerial(values.path!, baud), client, pollMs: integer('poll-ms', values['poll-ms'], 1000)!, log, ...(values.debug ? { debug: log } : {}) });
  log(`bridge for ${values.serial} on ${values.path} (${baud} 8N1) → ${values['base-url']}`);
  process.on('SIGINT', () => void running.stop());
  process.on('SIGTERM', () => void running.stop());
  await running.run();
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

const [command, ...rest] = process.argv.slice(2);
switch (command) {
  case 'emulate':
    await emulate(rest);
    break;
  case 'bridge':
    await bridge(rest);
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
