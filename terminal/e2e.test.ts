import { join } from 'node:path';
import t, { type Test } from 'tap';
import { merchantWithTerminal, startTestServer } from '../server/testing/test-server.js';
import { Bridge } from './bridge/bridge.js';
import { svcDialect } from './bridge/svc/svc-dialect.js';
import { BridgeState } from './bridge/bridge-state.js';
import { EmulatedTerminal } from './device/svc/emulated-terminal.js';
import { Link } from './protocol/link.js';
import { openPort, PtyPair, socatSkip } from './pty-pair.js';
import { waitFor } from '../server/testing/wait-for.js';

async function setup(t: Test, autoApproveMs: number | null) {
  const server = await startTestServer(t);
  const merchant = await merchantWithTerminal(server);
  const dir = t.testdir();
  const line = new PtyPair(dir);
  await line.start();
  const device = new EmulatedTerminal({ serial: merchant.serialNumber, autoApproveMs });
  let devicePort = await openPort(line.device);
  device.attach(new Link(devicePort));
  const attachDevice = async () => {
    devicePort = await openPort(line.device);
    device.attach(new Link(devicePort));
  };
  const log: string[] = [];
  const state = await BridgeState.open(join(dir, 'bridge-state'), merchant.serialNumber);
  const bridge = new Bridge({
    dialect: svcDialect,
    open: () => openPort(line.host),
    client: merchant.pos,
    state,
    answerTimeoutMs: 2000,
    pollMs: 30,
    minBackoffMs: 20,
    maxBackoffMs: 100,
    log: (l) => log.push(l),
  });
  t.teardown(async () => {
    await bridge.stop();
    if (devicePort.isOpen) await new Promise((resolve) => devicePort.close(resolve));
    await line.stop();
  });
  const order = async (orderId: string) =>
    (await server.api.get(`${merchant.merchantPath}/transactions/${orderId}`, { token: merchant.account.key.token }))
      .body.data;
  /** Runs bridge cycles until the server shows what is expected (the device answers on its own time). */
  const cycleUntil = (condition: () => Promise<boolean>, what: string) =>
    waitFor(
      async () => {
        await bridge.cycle();
        return condition();
      },
      10_000,
      what,
    );
  const detachDevice = () => new Promise((resolve) => devicePort.close(resolve));
  return { server, merchant, line, device, attachDevice, detachDevice, bridge, order, cycleUntil, log };
}

t.test(
  'over a real pseudo-terminal: an order becomes PAID, a void VOIDED, a batch close a settlement',
  { skip: socatSkip() },
  async (t) => {
    const { merchant, server, device, order, cycleUntil } = await setup(t, 0);
    const created = await merchant.createOrder({ orderId: 'e2e-1', amount: 2500 });
    // The device is asked to charge it, approves, and the sale goes to the server.
    await cycleUntil(async () => (await order(created.orderId)).status === 'PAID', 'the order to be PAID');
    t.match(await order(created.orderId), {
      status: 'PAID',
      amount: 2500,
      history: [{ from: 'PENDING', to: 'PAID', actor: 'pos' }],
    });

    await server.api.post(`${merchant.merchantPath}/transactions/${created.orderId}/invalidation`, {
      token: merchant.account.key.token,
    });
    await cycleUntil(async () => (await order(created.orderId)).status === 'VOIDED', 'the order to be VOIDED');
    t.same(
      (await order(created.orderId)).history.map((h: { to: string }) => h.to),
      ['PAID', 'VOID_PENDING', 'VOIDED'],
    );

    t.match(device.operator('close'), /batch closed/);
    await cycleUntil(async () => device.snapshot.records.length === 0, 'the batch close to be delivered');
    const settlements = await server.api.get(
      `${merchant.merchantPath}/pos-terminals/${merchant.serialNumber}/settlements?sort=-closedAt&size=1`,
      { token: merchant.account.key.token },
    );
    t.match(settlements.body.data, [
      { batchNumber: 'B0001', transactionCount: 1, currencyReference: 'USD', terminal: merchant.serialNumber },
    ]);
    t.same(device.snapshot.records, [], 'every record confirmed');
  },
);

t.test(
  'socat killed mid-flow and started again: the bridge reconnects and every record reaches the server exactly once',
  { skip: socatSkip() },
  async (t) => {
    const { merchant, line, device, attachDevice, detachDevice, bridge, order, log } = await setup(t, null);
    const ids = ['k-1', 'k-2', 'k-3'];
    for (const id of ids) await merchant.createOrder({ orderId: id });
    const running = bridge.run();
    await waitFor(() => device.snapshot.charges.length === 3, 5000, 'the device to be asked to charge all three').catch(
      (error) => {
        throw new Error(`${(error as Error).message}; bridge log:\n${log.join('\n')}`);
      },
    );
    for (const id of ids) device.operator(`approve ${id}`);
    device.operator('close');
    await line.stop(); // the cable is pulled with records still on the device
    await detachDevice(); // the device side lets go of the dead line too
    await waitFor(() => log.some((l) => l.startsWith('line down')), 5000, 'the bridge to notice');
    await line.start();
    await attachDevice();
    await waitFor(
      async () => device.snapshot.records.length === 0,
      10_000,
      'every record to be confirmed after the reconnection',
    ).catch((error) => {
      throw new Error(
        `${(error as Error).message}; ${device.snapshot.records.length} records on the device; bridge log:\n${log.join('\n')}`,
      );
    });
    for (const id of ids) {
      const current = await order(id);
      t.equal(current.status, 'PAID', id);
      t.equal(current.history.length, 1, `${id}: paid exactly once`);
    }
    const settlements = await merchant.pos.listOrders(); // the terminal still works
    t.equal(settlements.status, 200);
    await bridge.stop();
    await running;
    t.ok(log.filter((l) => l === 'line open').length >= 2, 'the line was opened again');
  },
);
