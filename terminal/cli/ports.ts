import { SerialPort } from 'serialport';
import { CommandError, type CliIo } from './io.js';
import { usage } from './usage.js';

/** svc-terminal ports: the serial ports of this machine. */
export async function ports(argv: string[], io: CliIo): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) return void io.out(usage.ports);
  try {
    const list = await SerialPort.list();
    if (list.length === 0) io.out('no serial ports found\n');
    for (const port of list) io.out(`${port.path}\t${port.manufacturer ?? ''}\t${port.serialNumber ?? ''}\n`);
  } catch (error) {
    const reason = (error as Error).message;
    throw new CommandError(
      `this system cannot list its serial ports (${reason})${/udevadm/.test(reason) ? '; on Linux listing needs udevadm (Debian package udev). Give the path directly, e.g. --path /dev/ttyUSB0' : ''}`,
    );
  }
}
