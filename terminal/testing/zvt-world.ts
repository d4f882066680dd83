import { createServer, connect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { Duplex } from 'node:stream';
import type { Test } from 'tap';
import type { SerialPort } from 'serialport';
import { merchantWithTerminal, startTestServer } from '../../server/testing/test-server.js';
import { Bridge } from '../bridge/bridge.js';
import type { SerialLine } from '../bridge/bridge-options.js';
import { BridgeState } from '../bridge/bridge-state.js';
import { zvtDialect } from '../bridge/zvt/zvt-dialect.js';
import { ZvtJournal } from '../bridge/zvt/zvt-journal.js';
import { ZvtTerminal, type ZvtTerminalOptions } from '../device/zvt/zvt-terminal.js';
import { SerialZvtLine, TcpZvtLine } from '../protocol/zvt/line.js';
import { openSerial } from '../serial-port.js';
import { PtyPair } from '../pty-pair.js';
import { merchantReads } from './merchant-reads.js';

// A server with a merchant and a terminal, an emulated ZVT terminal on TCP
// (port 0) or on a real pseudo-terminal pair, and ZVT bridges started as
// `svc-terminal bridge --dialect zvt` starts one. `tap` lets a test see or
// cut what crosses the bridge's end of the line.

export type Tap = (stream: Duplex) => Duplex;

export async function zvtWorld(
  t: Test,
  transport: 'tcp' | 'serial',
  terminalOptions: Partial<ZvtTerminalOptions> = {},
) {
  const server = await startTestServer(t);
  const merchant = await merchantWithTerminal(server);
  const dir = t.testdir();
  const logs: string[] = [];
  const errors: string[] = [];
  const terminalLog: string[] = [];
  const terminal = new ZvtTerminal({
    terminalId: '29001006',
    cardDelayMs: 0,
    statePath: join(dir, 'terminal.json'),
    log: (line) => terminalLog.push(line),
    ...terminalOptions,
  });
  const closers: Array<() => Promise<void>> = [];
  let openLine: () => Promise<Duplex>;
  if (transport === 'tcp') {
    const sockets = new Set<Socket>();
    const listener: Server = createServer((socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      terminal.attach(new TcpZvtLine(socket));
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as { port: number }).port;
    closers.push(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    });
    openLine = () =>
      new Promise((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => resolve(socket));
        socket.once('error', reject);
      });
  } else {
    const pair = new PtyPair(dir);
    await pair.start();
    const ports: SerialPort[] = [];
    const devicePort = await openSerial(pair.device, 9600, 2);
    ports.push(devicePort);
    terminal.attach(new SerialZvtLine(devicePort));
    closers.push(async () => {
      for (const port of ports) if (port.isOpen) await new Promise((resolve) => port.close(resolve));
      await pair.stop();
    });
    openLine = async () => {
      const port = await openSerial(pair.host, 9600, 2);
      ports.push(port);
      return port;
    };
  }
  const stateDir = join(dir, 'bridge-state');
  const bridges: Bridge[] = [];
  const startBridge = async (tap?: Tap) => {
    const state = await BridgeState.open(stateDir, merchant.serialNumber);
    const journal = await ZvtJournal.open(state.dir);
    const bridge = new Bridge({
      dialect: zvtDialect({ journal, transport }),
      open: async () => {
        const stream = await openLine();
        return (tap ? tap(stream) : stream) as SerialLine;
      },
      client: merchant.pos,
      state,
      serverUrl: server.baseUrl,
      pollMs: 20,
      minBackoffMs: 20,
      maxBackoffMs: 200,
      log: (entry) => logs.push(entry),
      error: (entry) => errors.push(entry),
    });
    bridges.push(bridge);
    return { bridge, state, journal };
  };
  t.teardown(async () => {
    for (const bridge of bridges) await bridge.stop();
    for (const close of closers) await close();
  });
  const { order, settlements, voidOrder } = merchantReads(server, merchant);
  return { server, merchant, terminal, terminalLog, startBridge, logs, errors, order, settlements, voidOrder };
}

/**
 * Passes a line through and cuts it (both ways, as a pulled cable or a
 * dropped connection) the first time `cutWhen` says so of the bytes going
 * one way: 'in' from the terminal (never delivered), 'out' from the bridge
 * (delivered first unless `deliverLast` is false).
 */
export function cutter(
  cutWhen: (bytes: Buffer, direction: 'in' | 'out') => boolean,
  { deliverLast = true }: { deliverLast?: boolean } = {},
): Tap {
  return (inner) => {
    let cut = false;
    const outer: Duplex = new Duplex({
      read() {},
      write(chunk: Buffer, _encoding, done) {
        if (cut) return done();
        if (cutWhen(chunk, 'out')) {
          cut = true;
          if (deliverLast) inner.write(chunk, () => inner.destroy());
          else inner.destroy();
          outer.destroy();
          return done();
        }
        inner.write(chunk, done);
      },
      destroy(error, done) {
        inner.destroy();
        done(error);
      },
    });
    inner.on('data', (chunk: Buffer) => {
      if (cut) return;
      if (cutWhen(chunk, 'in')) {
        cut = true;
        inner.destroy();
        outer.destroy();
        return;
      }
      outer.push(chunk);
    });
    inner.on('close', () => outer.destroy());
    inner.on('error', () => outer.destroy());
    return outer;
  };
}
