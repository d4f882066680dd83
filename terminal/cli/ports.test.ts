import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { portTable, sysfsPorts } from './ports.js';

// Without udevadm (a container), svc-terminal ports reads the kernel's
// /sys/class/tty: the ttys backed by a device, with their USB descriptor.

t.test('the serial devices of a sysfs tree: USB ones with manufacturer and serial, consoles left out', async (t) => {
  const root = t.testdir();
  const usbDevice = join(root, 'devices', 'usb1', '1-1');
  const iface = join(usbDevice, '1-1:1.0', 'ttyUSB0');
  mkdirSync(iface, { recursive: true });
  writeFileSync(join(usbDevice, 'manufacturer'), 'FTDI\n');
  writeFileSync(join(usbDevice, 'serial'), 'A10K3XYZ\n');
  const uart = join(root, 'devices', 'platform', 'serial8250', 'tty', 'ttyS0');
  mkdirSync(uart, { recursive: true });
  const tty = join(root, 'class', 'tty');
  for (const name of ['ttyUSB0', 'ttyS0', 'tty0']) mkdirSync(join(tty, name), { recursive: true });
  symlinkSync(iface, join(tty, 'ttyUSB0', 'device'));
  symlinkSync(uart, join(tty, 'ttyS0', 'device'));
  t.same(sysfsPorts(tty), [
    { path: '/dev/ttyS0' },
    { path: '/dev/ttyUSB0', manufacturer: 'FTDI', serialNumber: 'A10K3XYZ' },
  ]);
  t.equal(sysfsPorts(join(root, 'nowhere')), null);
});

t.test('svc-terminal ports prints a table with a header', async (t) => {
  t.equal(
    portTable([{ path: '/dev/ttyS0' }, { path: '/dev/ttyUSB0', manufacturer: 'FTDI', serialNumber: 'A10K3XYZ' }]),
    'PATH          MANUFACTURER  SERIAL NUMBER\n/dev/ttyS0\n/dev/ttyUSB0  FTDI          A10K3XYZ\n',
  );
  t.equal(portTable([]), 'no serial ports found\n');
});
