import { mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, connect, type Socket } from 'node:net';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { BridgeState } from './bridge/bridge-state.js';
import type { NexoJournalData } from './bridge/nexo/nexo-journal.js';
import type { NexoTerminalState } from './device/nexo/nexo-state.js';
import {
  bridgeWatch,
  killer,
  killWorld,
  merchantWork,
  moneyCount,
  processes,
  typeClose as closeOnStdin,
} from './testing/kill-harness.js';
import { waitFor } from '../server/testing/wait-for.js';
import { soakLength } from '../server/testing/soak.js';

// The nexo dialect's kill run: an emulated Adyen terminal and the bridge as
// its cash register, each as `svc-terminal` runs it, killed with SIGKILL at
// random moments, and the connection between them cut (a relay in the
// middle drops every connection, as a switch losing power does), during
// sales with reversals and reconciliations. Counted from the terminal's own
// log of what it approved and its memory: every payment it approved is on
// the server or held, no order is paid twice, and every transaction a
// reconciliation counted is in exactly one settlement.

const SALES = soakLength(200, 60);
const STRIKES = soakLength(12, 6);
const POIID = 'V400m-346403161';
const TERMINAL = '127.0.0.51';
const RELAY = '127.0.0.52';

t.setTimeout(300_000);

/** A TCP relay from RELAY:8443 to the terminal: `cut` drops every connection through it. */
async function relay(t: Test) {
  const open = new Set<Socket>();
  const server = createServer((inbound) => {
    const outbound = connect(8443, TERMINAL);
    for (const socket of [inbound, outbound]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => undefined);
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(8443, RELAY, resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  t.teardown(() => open.forEach((socket) => socket.destroy()));
  return {
    cut: () => {
      for (const socket of open) socket.destroy();
    },
  };
}

t.test(
  `nexo terminal and bridge SIGKILLed, and the connection cut, during ${SALES} sales, reversals and reconciliations: 0 lost, 0 doubled`,
  { timeout: 290_000 },
  async (t) => {
    const serial = 'KILL-NEXO-1';
    const world = await killWorld(t, serial);
    const terminalState = join(world.dir, 'nexo-terminal.json');
    const stateDir = join(world.dir, 'bridge-state');
    const passphrase = join(world.dir, 'passphrase');
    mkdirSync(world.dir, { recursive: true });
    writeFileSync(passphrase, 'kill run passphrase\n', { mode: 0o600 });
    const key = [
      '--poiid',
      POIID,
      '--key-identifier',
      'KillKey',
      '--key-version',
      '1',
      '--passphrase-file',
      passphrase,
    ];
    const line = await relay(t);
    const pair = processes(
      t,
      {
        emulator: [
          'emulate',
          '--dialect',
          'nexo',
          '--listen',
          TERMINAL,
          ...key,
          '--tls-dir',
          join(world.dir, 'tls'),
          '--state',
          terminalState,
          '--card-delay',
          '30ms',
        ],
        bridge: [
          'bridge',
          '--dialect',
          'nexo',
          '--host',
          RELAY,
          ...key,
          '--ca',
          join(world.dir, 'tls', 'ca.pem'),
          '--base-url',
          world.server.baseUrl,
          '--serial',
          serial,
          '--state',
          stateDir,
          '--poll',
          '50ms',
          '--answer-timeout',
          '1500ms',
        ],
      },
      world.secret,
    );
    pair.start('emulator');
    await waitFor(() => pair.output.emulator.includes('listening'), 30_000, 'the terminal listening');
    pair.start('bridge');

    const workDone = () => pair.output.bridge.match(/; done$|on the terminal \(ServiceID/gm)?.length ?? 0;
    const strike = async (target: 'emulator' | 'bridge' | 'line') => {
      if (target === 'line') return line.cut();
      await pair.kill(target);
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 300));
      pair.start(target);
    };
    const strikes = killer(['emulator', 'bridge', 'line'] as const, workDone, strike, { pauseMs: 2000 });
    const typeClose = () => closeOnStdin(pair);

    // Sales of 20.00 EUR + 10 cents a sale: never an amount a test terminal refuses (…124 to …128, …134).
    const voided = await merchantWork(world, serial, {
      sales: SALES,
      order: (i) => ({ orderId: `n-${i}`, amount: 2000 + i * 10, currency: 'EUR' }),
      charged: (status) => status === 'PAID',
      close: typeClose,
      pauseMs: soakLength(150, 30),
    });
    await waitFor(() => strikes.total() >= STRIKES, 60_000, `${STRIKES} strikes`);
    await strikes.stop();
    pair.startStopped();

    const state = await BridgeState.open(stateDir, serial);
    const { untilSettled, untilClosed } = bridgeWatch<NexoJournalData>(world, state, 'nexo.json', pair.output);
    await untilSettled();
    const terminal = async () => JSON.parse(await readFile(terminalState, 'utf8')) as NexoTerminalState;
    const periodBefore = (await terminal()).reconciliationId;
    await typeClose();
    await untilClosed(
      async () => (await terminal()).reconciliationId > periodBefore,
      'the last reconciliation settled',
    );
    await pair.kill('bridge');
    await pair.kill('emulator');

    // What the terminal approved, from its log (every life of it).
    const approved = new Map<string, { orderId: string; psp: string }>();
    for (const match of pair.output.emulator.matchAll(
      /payment \S+: approved, (\S+)\.(\d+), \d+ minor units, sale (\S+)/g,
    ))
      approved.set(match[2]!, { orderId: match[3]!, psp: match[2]! });
    const memory = await terminal();
    const made = [...approved.values()].map((payment) => ({ orderId: payment.orderId, authorization: payment.psp }));
    const {
      lost,
      doubled,
      wrongAuthorization,
      settlements,
      settled,
      notVoided,
      charged,
      heldAsks,
      heldCharges,
      records,
    } = await moneyCount(world, serial, state, made, voided);
    const holding = { records, asks: new Set(heldAsks.map((ask) => ask.key)) };

    t.comment(
      `strikes: emulator ${strikes.kills.emulator}, bridge ${strikes.kills.bridge}, connection ${strikes.kills.line}; payments approved (logged) ${approved.size}; charged on the server ${charged} of ${SALES}; voids ${voided.length}; settlements ${settlements.length} (${settled} transactions), reconciliations ${memory.reconciliationId - 1000}; held: ${holding.records.length} record(s), ${holding.asks.size} ask(s)`,
    );
    for (const ask of heldAsks) t.comment(`held ${ask.kind} of ${ask.orderId}: ${ask.reason}`);
    t.ok(strikes.total() >= STRIKES, `${strikes.total()} strikes`);
    t.same(lost, [], '0 lost: every payment the terminal approved is on the server or held');
    t.same(doubled, [], '0 doubled: no order paid twice on the terminal or on the server');
    t.same(wrongAuthorization, [], "each order committed with its own payment's PSP reference");
    t.equal(settled, memory.reconciledCount, "the terminal's reconciled totals equal the settlements");
    t.equal(new Set(settlements.map((s) => s.batchNumber)).size, settlements.length, 'no batch recorded twice');
    t.same(notVoided, [], 'every void is VOIDED on the server, or held for the operator with its reason');
    t.equal(charged, SALES - heldCharges, 'every order paid, but for held ones');
  },
);
