import { connect as connectTcp } from 'node:net';
import type { SerialLine } from '../bridge/bridge-options.js';
import { openSerial } from '../serial-port.js';
import type { BridgeLine } from './dialect-commands.js';
import { integer, usageError } from './io.js';

// The lines a bridge reaches its device over, as the dialects' commands make them.

/** A serial port at `baud` 8N`stopBits`. */
export function serialLine(path: string, baud: number, stopBits: 1 | 2): BridgeLine {
  return { describe: `${path} (${baud} 8N${stopBits})`, open: () => openSerial(path, baud, stopBits) };
}

/** A TCP connection to HOST:PORT, opened again after each fault. */
export function tcpLine(address: { host: string; port: number }): BridgeLine {
  return { describe: `${address.host}:${address.port} (TCP)`, open: () => openTcp(address) };
}

/** --path PATH [--baud N] as a serial line, or a usage error naming what is missing. */
export function serialLineOf(values: Record<string, unknown>, defaultBaud: number, stopBits: 1 | 2): BridgeLine {
  if (typeof values.path !== 'string') throw usageError('bridge needs --path');
  return serialLine(values.path, integer('baud', values.baud as string | undefined, defaultBaud)!, stopBits);
}

/** HOST:PORT of a terminal on the LAN; `defaultPort` when only HOST is given (undefined: the port is required). */
export function hostAndPort(text: string, hint: string, defaultPort?: number): { host: string; port: number } {
  const match = /^(.+?)(?::(\d{1,5}))?$/.exec(text);
  const port = match?.[2] !== undefined ? Number(match[2]) : defaultPort;
  if (!match || port === undefined || port > 65535)
    throw usageError(`--host takes HOST:PORT (${hint}), got ${JSON.stringify(text)}`);
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
}

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
