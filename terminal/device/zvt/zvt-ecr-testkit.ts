import { createServer, connect } from 'node:net';
import type { Test } from 'tap';
import { EcrSession } from '../../bridge/zvt/ecr-session.js';
import type { Timers } from '../../protocol/timers.js';
import { bcdNumber, packBcd } from '../../protocol/zvt/bcd.js';
import { encodeFields } from '../../protocol/zvt/bitmaps.js';
import { TcpZvtLine } from '../../protocol/zvt/line.js';
import { command, POSITIVE } from '../../protocol/zvt/messages.js';
import { ZvtTerminal, type ZvtTerminalOptions } from './zvt-terminal.js';

// An emulated ZVT terminal on a TCP port of its own, and a cash register of
// the bridge's (EcrSession) connected to it, for the terminal's tests. Time
// runs 100 times fast on both sides: T3, the 2 s of 84 9C, the issue of goods.

/** A cash register that takes the status information its commands ask for. */
export const accept = { onStatus: async () => POSITIVE };

export const fast: Timers = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms / 100),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Resolves after `ms` of the fast clock. */
export const after = (ms: number) => new Promise<void>((resolve) => fast.setTimeout(resolve, ms));

export type Handlers = Parameters<EcrSession['transact']>[2];

export async function terminalAndRegister(t: Test, options: Partial<ZvtTerminalOptions> = {}) {
  const log: string[] = [];
  const terminal = new ZvtTerminal({
    terminalId: '12345678',
    cardDelayMs: 0,
    timers: fast,
    log: (line) => log.push(line),
    ...options,
  });
  const server = createServer((socket) => terminal.attach(new TcpZvtLine(socket, { timers: fast })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const socket = connect((server.address() as { port: number }).port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const line = new TcpZvtLine(socket);
  const ecr = new EcrSession(() => undefined, fast);
  ecr.attach(line);
  t.teardown(async () => {
    line.close();
    await new Promise((resolve) => server.close(resolve));
  });
  const password = packBcd('000000');
  const register = (configByte: number, extra: Buffer = Buffer.alloc(0)) =>
    ecr.transact(
      command('registration', Buffer.concat([password, Buffer.of(configByte), bcdNumber(978, 2), extra])),
      true,
    );
  const pay = (amount: number, handlers: Handlers = accept) =>
    ecr.transact(
      command(
        'authorisation',
        encodeFields([
          { bmp: 0x04, value: bcdNumber(amount, 6) },
          { bmp: 0x49, value: bcdNumber(978, 2) },
        ]),
      ),
      true,
      handlers,
    );
  return { terminal, ecr, log, password, register, pay, line, socket };
}
