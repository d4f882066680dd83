import { join } from 'node:path';
import type { Test } from 'tap';
import type { SerialPort } from 'serialport';
import { merchantWithTerminal, startTestServer } from '../../server/testing/test-server.js';
import { Bridge } from '../bridge/bridge.js';
import { BridgeState } from '../bridge/bridge-state.js';
import { SaleJournal } from '../bridge/transbank/sale-journal.js';
import { svcDialect } from '../bridge/svc/svc-dialect.js';
import { transbankDialect } from '../bridge/transbank/transbank-dialect.js';
import { openPort, PtyPair } from '../pty-pair.js';
import { merchantReads } from './merchant-reads.js';

/**
 * A server with a merchant and a terminal, a real pseudo-terminal pair,
 * and bridges started as `svc-terminal bridge` starts one (state read from
 * --state), all stopped and closed at the end of the test. Ports opened
 * through `open` are closed too.
 */
export async function bridgeWorld(t: Test, options: { answerTimeoutMs?: number } = {}) {
  const server = await startTestServer(t);
  const merchant = await merchantWithTerminal(server);
  const dir = t.testdir();
  const line = new PtyPair(dir);
  await line.start();
  const ports: SerialPort[] = [];
  const open = async (path: string) => {
    const port = await openPort(path);
    ports.push(port);
    return port;
  };
  const logs: string[] = [];
  const errors: string[] = [];
  const stateDir = join(dir, 'bridge-state');
  const bridges: Bridge[] = [];
  const startBridge = async () => {
    const state = await BridgeState.open(stateDir, merchant.serialNumber);
    const bridge = new Bridge({
      dialect: svcDialect,
      open: () => open(line.host),
      client: merchant.pos,
      state,
      serverUrl: server.baseUrl,
      answerTimeoutMs: options.answerTimeoutMs ?? 2000,
      pollMs: 20,
      log: (entry) => logs.push(entry),
      error: (entry) => errors.push(entry),
    });
    bridges.push(bridge);
    return { bridge, state };
  };
  /** The cash register of a Transbank POS, as `svc-terminal bridge --dialect transbank` starts one. */
  const startTransbankBridge = async (extra: { saleTimeoutMs?: number } = {}) => {
    const state = await BridgeState.open(stateDir, merchant.serialNumber);
    const journal = await SaleJournal.open(state.dir);
    const { saleTimeoutMs, ...rest } = extra;
    const bridge: Bridge = new Bridge({
      dialect: transbankDialect({ journal, ...(saleTimeoutMs !== undefined ? { saleTimeoutMs } : {}) }),
      open: () => open(line.host),
      client: merchant.pos,
      state,
      serverUrl: server.baseUrl,
      answerTimeoutMs: options.answerTimeoutMs ?? 2000,
      pollMs: 20,
      log: (entry) => logs.push(entry),
      error: (entry) => errors.push(entry),
      ...rest,
    });
    bridges.push(bridge);
    return { bridge, state, journal };
  };
  t.teardown(async () => {
    for (const bridge of bridges) await bridge.stop();
    for (const port of ports) if (port.isOpen) await new Promise((resolve) => port.close(resolve));
    await line.stop();
  });
  const { order, settlements } = merchantReads(server, merchant);
  /** One end of the device side of the line, as an emulator opens it. */
  const devicePort = () => open(line.device);
  return {
    server,
    merchant,
    line,
    open,
    devicePort,
    startBridge,
    startTransbankBridge,
    stateDir,
    logs,
    errors,
    order,
    settlements,
  };
}
