import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import type { DeviceState } from './device/svc/device-state.js';
import { BridgeState } from './bridge/bridge-state.js';
import { killer, killWorld, merchantWork, processes, strikeAt } from './testing/kill-harness.js';
import { socatSkip } from './pty-pair.js';
import { waitFor } from '../server/testing/wait-for.js';
import { soakLength } from '../server/testing/soak.js';

// The emulator and the bridge, each as `svc-terminal` runs it, killed with
// SIGKILL at random moments during a run of 200 sales, voids and batch
// closes: every record the device approved reaches the server exactly once
// or sits in the hold. Lost and duplicated are counted, and must be 0.

// 200 sales in the full round (npm run test:soak), 80 in npm test's; in both, every fifth sale voided and a close every 40.
const SALES = soakLength(200, 80);
/** Strikes to wait for: 12 in the full round, 6 in the short. */
const STRIKES = soakLength(12, 6);

// The runner's limit for this file (package.json, 120 s) is raised for this file alone: it takes
// 36 s on an idle two-vCPU host, and every kill restarts a process, which costs seconds more under
// a full parallel CI run. (Two CI runs that went past the limit were not slow but stuck: a sale held
// at the head of the device's queue, fixed in the bridge's verdict; see money-records.test.ts.)
t.setTimeout(240_000);

t.test(
  `emulator and bridge SIGKILLed at random moments during ${SALES} sales, voids and closes: 0 lost, 0 duplicated`,
  { skip: socatSkip(), timeout: 230_000 },
  async (t) => {
    const serial = 'KILL-1';
    const world = await killWorld(t, serial);
    const { line, api, token, merchantPath } = world;
    const deviceJournal = join(world.dir, 'device.json');
    const stateDir = join(world.dir, 'bridge-state');
    const pair = processes(
      t,
      {
        emulator: [
          'emulate',
          '--path',
          line.device,
          '--serial',
          serial,
          '--state',
          deviceJournal,
          '--auto-approve',
          '30ms',
        ],
        bridge: [
          'bridge',
          '--path',
          line.host,
          '--base-url',
          world.server.baseUrl,
          '--serial',
          serial,
          '--state',
          stateDir,
          '--poll',
          '50ms',
          '--answer-timeout',
          '1000ms',
        ],
      },
      world.secret,
    );
    const output = pair.output;
    pair.start('emulator');
    pair.start('bridge');

    // Work the pair has done: records delivered and asks sent, as the bridge logs them.
    const workDone = () => output.bridge.match(/confirmed to the device|sent to the device/g)?.length ?? 0;
    const strikes = killer(['emulator', 'bridge'] as const, workDone, strikeAt(pair, line));

    // The merchant's side: sales, a void of every fifth paid one, a batch close every 40 sales.
    const askedNeverCharged: string[] = [];
    const notChargedInTime: string[] = [];
    /** Marked asked by the bridge (durably, before the line), but not in the device's journal: the ask was cut off by a kill. */
    const askCutOff = async (orderId: string) => {
      const asked = JSON.parse(
        await readFile(join(stateDir, serial, 'asked.json'), 'utf8').catch(() => '{}'),
      ) as Record<string, string>;
      const journal = await readFile(deviceJournal, 'utf8').catch(() => null);
      // No journal yet: the device was never asked anything, so the pair never worked; say so with what they printed.
      if (journal === null)
        throw new Error(
          `the device has no journal: nothing reached it\nbridge:\n${output.bridge.slice(-3000)}\nemulator:\n${output.emulator.slice(-2000)}`,
        );
      const device = JSON.parse(journal) as DeviceState;
      return (
        `PENDING:${orderId}` in asked &&
        !device.approved.includes(orderId) &&
        !device.charges.some((charge) => charge.orderId === orderId)
      );
    };
    // The merchant's side: sales, a void of every fifth charged one, a batch close every 40 sales.
    const voided = await merchantWork(world, serial, {
      sales: SALES,
      order: (i) => ({ orderId: `k-${i}`, amount: 100 + i, currency: 'USD' }),
      charged: (status) => status !== 'PENDING',
      // A kill cut the ask off before the device kept it: never asked twice, so it stays PENDING; else not voided, and
      // whatever the device approved is checked at the end.
      notCharged: async (orderId) =>
        void ((await askCutOff(orderId)) ? askedNeverCharged : notChargedInTime).push(orderId),
      close: () => void pair.running.emulator?.stdin!.write('close\n'),
      pauseMs: 40,
    });
    // Kills go on, through the settling too, until there have been at least 12.
    await waitFor(() => strikes.total() >= STRIKES, 60_000, `${STRIKES} kills`);
    await strikes.stop();
    pair.startStopped();
    const state = await BridgeState.open(stateDir, serial);
    const device = async () => JSON.parse(await readFile(deviceJournal, 'utf8')) as DeviceState;
    // The last close, and only once the device has it: a settling check before it would count a batch closed after it.
    const batchesBefore = (await device()).nextBatch;
    pair.running.emulator!.stdin!.write('close\n');
    await waitFor(async () => (await device()).nextBatch > batchesBefore, 30_000, 'the last batch close on the device');

    // Settled: nothing left on the device but held records, and every order past PENDING (or never charged).
    let settled: DeviceState | undefined;
    await waitFor(
      async () => {
        const held = (await state.listHeld()).map((h) => h.key);
        const current = await device();
        if (current.charges.length === 0 && current.voids.length === 0 && current.records.length === held.length)
          settled = current;
        return settled !== undefined;
      },
      90_000,
      'the device to have delivered everything',
    ).catch((error: Error) => {
      throw new Error(
        `${error.message}\nbridge:\n${output.bridge.slice(-3000)}\nemulator:\n${output.emulator.slice(-2000)}`,
      );
    });
    if (!settled) throw new Error('unreachable: settled without a state');
    const final: DeviceState = settled;
    const held = await state.listHeld();
    const heldSales = new Set(
      held.filter((h) => h.record.kind === 'payment').map((h) => (h.record as { orderId: string }).orderId),
    );
    const orders = await world.allOrders();
    const lost: string[] = [];
    const duplicated: string[] = [];
    for (const orderId of final.approved) {
      const order = orders.get(orderId);
      const reached = order && ['PAID', 'VOID_PENDING', 'VOIDED'].includes(order.status);
      if (!reached && !heldSales.has(orderId)) lost.push(orderId);
      const payments = (order?.history ?? []).filter((h: { to: string }) => h.to === 'PAID').length;
      if (payments > 1) duplicated.push(orderId);
    }
    for (const h of held) if (/double charge/.test(h.reason)) duplicated.push(`held ${h.key}`);
    const charged = [...orders.values()].filter((order) => order.status !== 'PENDING').length;
    const settlements = (await api('GET', `${merchantPath}/pos-terminals/${serial}/settlements?size=100`, token)).body
      .data as Array<{ batchNumber: string }>;
    const batchesClosed = final.nextBatch - 1;
    const heldBatches = held.filter((h) => h.record.kind === 'settlement').length;
    // A void whose ask a kill cut off before the device kept it stays VOID_PENDING, never asked twice (as a charge does).
    const askedOnce = JSON.parse(
      await readFile(join(stateDir, serial, 'asked.json'), 'utf8').catch(() => '{}'),
    ) as Record<string, string>;
    const voidCutOff = (orderId: string) =>
      orders.get(orderId)?.status === 'VOID_PENDING' &&
      `VOID_PENDING:${orderId}` in askedOnce &&
      !final.voids.includes(orderId) &&
      !final.records.some((r) => r.code === '0230' && r.orderId === orderId);
    const voidsCutOff = voided.filter(voidCutOff);
    const notVoided = voided.filter((orderId) => orders.get(orderId)?.status !== 'VOIDED' && !voidCutOff(orderId));

    // From the device's approval (the sale's paidAt) to the server's PAID (its history), over the pty, with the kills.
    const delays = [...orders.values()]
      .flatMap((order) => {
        const paid = (order.history as Array<{ to: string; at: string }>).find((h) => h.to === 'PAID');
        return paid && order.paidAt ? [Date.parse(paid.at) - Date.parse(order.paidAt)] : [];
      })
      .sort((a, b) => a - b);
    const percentile = (p: number) => delays[Math.min(delays.length - 1, Math.ceil((p / 100) * delays.length) - 1)];
    t.comment(
      `device record to PAID on the server (poll 50 ms, kills included): p50 ${percentile(50)} ms, p99 ${percentile(99)} ms over ${delays.length} sales`,
    );
    t.comment(
      `orders not charged within 40 s while the kills went on (left unvoided): ${notChargedInTime.join(', ') || 'none'}`,
    );
    t.comment(
      `asked but cut off by a kill before the device kept it, never asked twice: ${askedNeverCharged.length} charge(s) left PENDING, ${voidsCutOff.length} void(s) left VOID_PENDING`,
    );
    t.comment(
      `kills: emulator ${strikes.kills.emulator}, bridge ${strikes.kills.bridge}; approved ${final.approved.length}, charged on the server ${charged} of ${SALES}; voids ${voided.length}; batches ${batchesClosed}, settlements ${settlements.length}, held ${held.length}`,
    );
    t.ok(strikes.total() >= STRIKES, `${strikes.total()} kills`);
    t.same(lost, [], '0 lost: every sale the device approved is on the server or held');
    t.same(duplicated, [], '0 duplicated: no order paid twice');
    t.equal(settlements.length + heldBatches, batchesClosed, 'every batch the device closed is a settlement, or held');
    t.equal(new Set(settlements.map((s) => s.batchNumber)).size, settlements.length, 'no batch recorded twice');
    t.same(notVoided, [], 'every void reached the server, but for one whose ask a kill cut off');
    t.ok(
      final.approved.length >= SALES * 0.95,
      `${final.approved.length} of ${SALES} sales approved (an order whose ask was cut by a kill before it reached the device stays PENDING, never asked twice)`,
    );
  },
);
