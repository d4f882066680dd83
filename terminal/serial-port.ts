import { SerialPort } from 'serialport';

/** Opens a serial line at the given speed, 8N1 (terminal/README.md, wiring and line settings). */
export function openSerial(path: string, baudRate = 115200): Promise<SerialPort> {
  return new Promise((resolve, reject) => {
    const port = new SerialPort({ path, baudRate, dataBits: 8, parity: 'none', stopBits: 1 }, (error) =>
      error ? reject(error) : resolve(port),
    );
  });
}
