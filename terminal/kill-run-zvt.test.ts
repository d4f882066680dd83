import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { BridgeState } from './bridge/bridge-state.js';
import type { ZvtJournalData } from './bridge/zvt/zvt-journal.js';
import { writeJournalSync } from './device/journal-file.js';
import { newState, reserve, takeNumbers, type ZvtState } from './device/zvt/zvt-state.js';
import {
  bridgeWatch,
  killer,
  killWorld,
  merchantWork,
  moneyCount,
  processes,
  strikeAt,
  typeClose as closeOnStdin,
} from './testing/kill-harness.js';
import { socatSkip } from './pty-pair.js';
import { waitFor } from '../server/testing/wait-for.js';
import { soakLength } from '../server/testing/soak.js';

// The ZVT dialect's kill run: an emulated ZVT terminal and the bridge as its
// cash register, each as `svc-terminal` runs it, on a serial line (a pty
// pair, DLE STX frames), killed with SIGKILL at random moments, and the
// line itself cut, during sales with reversals and ends of day. Counted
// from the terminal's own log of what it stored and its memory: every
// payment it stored is on the server or held, no order is paid twice, and
// every transaction an end of day counted is in exactly one settlement.

const SALES = soakLength(200, 80);
const STRIKES = soakLength(12, 6);
const TERMINAL_ID = '29001006';

/** A terminal's memory after one acknowledged pre-authorisation (06 22) per amount. */
function openReservations(state: ZvtState, amounts: number[]): ZvtState {
  return amounts.reduce((memory, amount) => {
    const taken = takeNumbers(memory);
    return reserve(taken.state, {
      trace: taken.trace,
      receipt: taken.receipt,
      amount,
      at: '2026-11-28T08:00:00.000Z',
      card: { maskedPan: 'EEEEEEEEEEEE4242', type: 10, name: 'VISA', expiry: '2911' },
      aid: '424242',
    });
  }, state);
}

t.setTimeout(300_000);

t.test(
  `ZVT terminal and bridge SIGKILLed, and the line cut, during ${SALES} sales, reversals and ends of day: 0 lost, 0 doubled`,
  { skip: socatSkip(), timeout: 290_000 },
  async (t) => {
    const serial = 'KILL-ZVT-1';
    const world = await killWorld(t, serial);
    const { line } = world;
    const terminalState = join(world.dir, 'zvt-terminal.json');
    const stateDir = join(world.dir, 'bridge-state');
    // Reservations in the mix: the terminal starts with three open pre-authorisations (a charger's, on the same
    // terminal), in its own memory as three acknowledged 06 22 leave it. Killed with it, they must stay open and
    // never count in an end of day.
    writeJournalSync(terminalState, openReservations(newState(TERMINAL_ID), [5000, 3000, 7000]));
    const pair = processes(
      t,
      {
        emulator: [
          'emulate',
          '--dialect',
          'zvt',
          '--path',
          line.device,
          '--serial',
          TERMINAL_ID,
          '--state',
          terminalState,
          '--card-delay',
          '0ms',
        ],
        bridge: [
          'bridge',
          '--dialect',
          'zvt',
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
          '1500ms',
          '--t4',
          '3000ms',
        ],
      },
      world.secret,
    );
    pair.start('emulator');
    pair.start('bridge');

    const workDone = () => pair.output.bridge.match(/; done$|on the terminal$/gm)?.length ?? 0;
    const strikes = killer(['emulator', 'bridge', 'line'] as const, workDone, strikeAt(pair, line), { pauseMs: 3000 });

    const typeClose = () => closeOnStdin(pair);

    // Sales of 10.00 EUR + i cents (the terminal's log names the order by its amount), a void of every fifth paid one, an end of day every 40.
    const voided = await merchantWork(world, serial, {
      sales: SALES,
      order: (i) => ({ orderId: `z-${i}`, amount: 1000 + i, currency: 'EUR' }),
      charged: (status) => status === 'PAID',
      close: typeClose,
      // The terminal answers at once (no card delay): the full round paces the merchant so the strikes fall among sales.
      pauseMs: soakLength(150, 20),
    });
    await waitFor(() => strikes.total() >= STRIKES, 60_000, `${STRIKES} strikes`);
    await strikes.stop();
    pair.startStopped();

    const state = await BridgeState.open(stateDir, serial);
    const { untilSettled, untilClosed } = bridgeWatch<ZvtJournalData>(world, state, 'zvt.json', pair.output);
    await untilSettled();
    const terminal = async () => JSON.parse(await readFile(terminalState, 'utf8')) as ZvtState;
    const endsBefore = (await terminal()).endOfDays;
    await typeClose();
    await untilClosed(async () => (await terminal()).endOfDays > endsBefore, 'the last end of day settled');

    await pair.kill('bridge');
    await pair.kill('emulator');

    // What the terminal stored, from its log (every life of it): payments by trace number.
    const stored = new Map<string, { orderId: string; authorization: string }>();
    for (const match of pair.output.emulator.matchAll(
      /payment stored: receipt \d+, trace (\d+), (\d+) minor units, authorisation (\d+)/g,
    ))
      stored.set(match[1]!, { orderId: `z-${Number(match[2]) - 1000}`, authorization: match[3]! });
    const memory = await terminal();
    const autoReversals = memory.journal.filter((entry) => entry.event.startsWith('auto-reversal')).length;

    const made = [...stored.values()].map((payment) => ({
      orderId: payment.orderId,
      authorization: payment.authorization,
    }));
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
      `strikes: emulator ${strikes.kills.emulator}, bridge ${strikes.kills.bridge}, line ${strikes.kills.line}; payments stored (logged) ${stored.size}, auto-reversals ${autoReversals}; charged on the server ${charged} of ${SALES}; voids ${voided.length}; settlements ${settlements.length} (${settled} transactions), ends of day ${memory.endOfDays}; held: ${holding.records.length} record(s), ${holding.asks.size} ask(s)`,
    );
    for (const ask of heldAsks) t.comment(`held ${ask.kind} of ${ask.orderId}: ${ask.reason}`);
    t.ok(strikes.total() >= STRIKES, `${strikes.total()} strikes`);
    t.same(lost, [], '0 lost: every payment the terminal stored is on the server or held');
    t.same(doubled, [], '0 doubled: no order paid twice on the terminal or on the server');
    t.same(wrongAuthorization, [], "each order committed with its own payment's authorisation attribute");
    t.equal(settled, memory.settledCount, 'every transaction an end of day counted is in exactly one settlement');
    t.equal(memory.turnover.length, 0, 'nothing left in the turnover after the last end of day');
    t.equal(new Set(settlements.map((s) => s.batchNumber)).size, settlements.length, 'no batch recorded twice');
    t.same(notVoided, [], 'every void is VOIDED on the server, or held for the operator with its reason');
    t.equal(charged, SALES - heldCharges, 'every order paid, but for held ones');
    t.same(
      memory.reservations.map((open) => [open.receipt, open.amount]),
      [
        [1, 5000],
        [2, 3000],
        [3, 7000],
      ],
      'the reservations outlived every kill, still open, never settled',
    );
  },
);
