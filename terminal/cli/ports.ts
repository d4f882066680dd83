import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SerialPort } from 'serialport';
import { commandFailed, type CliIo } from './io.js';
import { usage } from './usage.js';

/** A serial port as listed: its path, and what its USB descriptor says when it has one. */
interface Listed {
  path: string;
  manufacturer?: string | undefined;
  serialNumber?: string | undefined;
}

/** svc-terminal ports: the serial ports of this machine. */
export async function ports(argv: string[], io: CliIo): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) return void io.out(usage.ports);
  let list: Listed[];
  try {
    list = await SerialPort.list();
  } catch (error) {
    // serialport lists through udevadm on Linux, which containers often lack; the kernel's sysfs says the same.
    const fromSysfs = process.platform === 'linux' ? sysfsPorts() : null;
    if (!fromSysfs)
      throw commandFailed(
        `this system cannot list its serial ports (${(error as Error).message}); give the path directly, e.g. --path /dev/ttyUSB0`,
      );
    list = fromSysfs;
  }
  io.out(portTable(list));
}

/** The serial devices under /sys/class/tty (those backed by a device: not virtual consoles or pseudo-terminals), or null without sysfs. */
export function sysfsPorts(root = '/sys/class/tty'): Listed[] | null {
  if (!existsSync(root)) return null;
  const listed: Listed[] = [];
  for (const name of readdirSync(root).sort()) {
    const device = join(root, name, 'device');
    if (!existsSync(device)) continue;
    const usb = usbDescriptor(realpathSync(device));
    listed.push({ path: `/dev/${name}`, ...usb });
  }
  return listed;
}

/** The manufacturer and serial number of the USB device a tty hangs from, found a few folders up. */
function usbDescriptor(dir: string): { manufacturer?: string; serialNumber?: string } {
  for (let up = 0; up < 4; up += 1, dir = dirname(dir)) {
    if (!existsSync(join(dir, 'manufacturer'))) continue;
    const read = (file: string) =>
      existsSync(join(dir, file)) ? readFileSync(join(dir, file), 'utf8').trim() : undefined;
    const manufacturer = read('manufacturer');
    const serialNumber = read('serial');
    return { ...(manufacturer ? { manufacturer } : {}), ...(serialNumber ? { serialNumber } : {}) };
  }
  return {};
}

/** The ports as a table with a header, in aligned columns; one line when there are none. */
export function portTable(
  list: Array<{ path: string; manufacturer?: string | undefined; serialNumber?: string | undefined }>,
): string {
  if (list.length === 0) return 'no serial ports found\n';
  const rows = [
    ['PATH', 'MANUFACTURER', 'SERIAL NUMBER'],
    ...list.map((port) => [port.path, port.manufacturer ?? '', port.serialNumber ?? '']),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map(
      (row) =>
        `${row
          .map((cell, column) => cell.padEnd(widths[column]!))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('');
}
