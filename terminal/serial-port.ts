import { SerialPort } from 'serialport';

/**
 * Opens a serial line at the given speed, 8 data bits, no parity, no flow
 * control; one stop bit unless told (ZVT takes two: PA00P016 §2.1).
 */
export function openSerial(path: string, baudRate = 115200, stopBits: 1 | 2 = 1): Promise<SerialPort> {
  return new Promise((resolve, reject) => {
    const port = new SerialPort({ path, baudRate, dataBits: 8, parity: 'none', stopBits }, (error) =>
      error ? reject(error) : resolve(port),
    );
  });
}
