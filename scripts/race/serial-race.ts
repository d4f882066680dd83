import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bridge } from '../../terminal/bridge/bridge.js';
import { svcDialect } from '../../terminal/bridge/svc/svc-dialect.js';
import { BridgeState } from '../../terminal/bridge/bridge-state.js';
import { EmulatedTerminal } from '../../terminal/device/svc/emulated-terminal.js';
import { Link } from '../../terminal/protocol/link.js';
import { openPort, PtyPair } from '../../terminal/pty-pair.js';
import type { OrderRun, RaceTarget } from './race.js';

/**
 * The race through a real terminal path: an emulated device on one end of a
 * socat pseudo-terminal pair approves every charge, the bridge on the other
 * end carries the sales to the server, and the merchant's invalidations
 * arrive meanwhile after seeded delays.
 */
export async function runSerialRace(
  target: RaceTarget,
  count: number,
  random: () => number,
  prefix: string,
): Promise<OrderRun[]> {
  const dir = await mkdtemp(join(tmpdir(), 'race-serial-'));
  const line = new PtyPair(dir);
  await line.start();
  const device = new EmulatedTerminal({ serial: target.terminal, autoApproveMs: 0 });
  const devicePort = await openPort(line.device);
  device.attach(new Link(devicePort));
  const state = await BridgeState.open(join(dir, 'bridge-state'), target.terminal);
  const bridge = new Bridge({
    dialect: svcDialect,
    open: () => openPort(line.host),
    client: target.pos,
    state,
    pollMs: 5,
    answerTimeoutMs: 2000,
  });
  const runs: OrderRun[] = [];
  try {
    for (let i = 0; i < count; i += 1) {
      const orderId = `${prefix}-serial-${i}`;
      const amount = 100 + Math.floor(random() * 99_900);
      const response = await fetch(new URL(`/api/v1/merchants/${target.merchantId}/transactions`, target.baseUrl), {
        method: 'POST',
        headers: { authorization: `Bearer ${target.merchantToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ orderId, terminal: target.terminal, amount, currency: 'USD' }),
      });
      if (response.status !== 201) throw new Error(`creating ${orderId}: ${response.status}`);
      runs.push({
        orderId,
        amount,
        interleaving: 'simultaneous',
        merchant: { statuses: [] },
        pos: { statuses: [] },
        collected: false,
        final: null,
      });
    }
    const running = bridge.run();
    await Promise.all(
      runs.map(async (run) => {
        await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 40)));
        const answer = await fetch(
          new URL(`/api/v1/merchants/${target.merchantId}/transactions/${run.orderId}/invalidation`, target.baseUrl),
          { method: 'POST', headers: { authorization: `Bearer ${target.merchantToken}` } },
        );
        run.merchant.statuses.push(answer.status);
      }),
    );
    // Every charge asked and every record carried: nothing left on the device, nothing PENDING.
    for (let waited = 0; waited < 10_000; waited += 50) {
      const pending = await target.pos.listOrders({ status: 'PENDING' });
      if (
        device.snapshot.records.length === 0 &&
        device.snapshot.charges.length === 0 &&
        (pending.body.data as unknown[]).every(
          (o) => !(o as { orderId: string }).orderId.startsWith(`${prefix}-serial`),
        )
      )
        break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await bridge.stop();
    await running;
  } finally {
    if (devicePort.isOpen) await new Promise((resolve) => devicePort.close(resolve));
    await line.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return runs;
}
