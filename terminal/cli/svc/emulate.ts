import type { EmulateCommand } from '../dialect-commands.js';
import { emulateOnSerial, SERIAL_OPTIONS, type SerialValues } from '../emulate-serial.js';

/** svc-terminal emulate (--dialect svc, the default): this project's own device on a serial line. */
export const svcEmulateCommand: EmulateCommand = {
  options: SERIAL_OPTIONS,
  usage: '',
  run: (values, io) => emulateOnSerial({ ...(values as SerialValues), dialect: 'svc' }, io),
};
