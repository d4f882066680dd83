import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { startServerProcess, stopServerProcess, stopped } from '../../server/testing/server-process.js';
import { PtyPair } from '../pty-pair.js';
import { waitFor } from '../../server/testing/wait-for.js';
import type { JsonAnswer } from '../../contracts/json-answer.js';
import { askKey, type BridgeState } from '../bridge/bridge-state.js';

// What the kill runs share: a server process with a merchant and a terminal,
// a real pseudo-terminal pair, `svc-terminal` processes started and killed
// with SIGKILL (their output kept across lives), and a killer that strikes
// at random moments of work, never of start-up.

const cli = fileURLToPath(new URL('../cli.ts', import.meta.url));

export async function killWorld(t: Test, serial: string) {
  const dir = t.testdir();
  const server = await startServerProcess({ DATA_DIR: join(dir, 'data') });
  t.teardown(() => stopServerProcess(server));
  const api = async (method: string, path: string, token: string, body?: unknown) => {
    const response = await fetch(new URL(path, server.baseUrl), {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as JsonAnswer };
  };
  const registered = (await (
    await fetch(new URL('/console/register', server.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `kill-${serial}@example.com`, password: '12345678' }),
    })
  ).json()) as JsonAnswer;
  const token = registered.key.token as string;
  const merchantPath = `/api/v1/merchants/${registered.merchant_id}`;
  const terminal = (await api('POST', `${merchantPath}/pos-terminals`, token, { serialNumber: serial })).body;
  const line = new PtyPair(dir);
  await line.start();
  t.teardown(() => line.stop());
  /** Every order of the merchant, by id. */
  const allOrders = async () => {
    const orders = new Map<string, JsonAnswer>();
    for (let page = 1; ; page += 1) {
      const listed = (await api('GET', `${merchantPath}/transactions?size=100&page=${page}`, token)).body
        .data as JsonAnswer[];
      for (const order of listed) orders.set(order.orderId, order);
      if (listed.length < 100) return orders;
    }
  };
  return { dir, server, api, token, merchantPath, secret: terminal.secret as string, line, allOrders };
}

/** `svc-terminal` processes by name, each restartable with the same arguments; nothing starts again once the test ended. */
export function processes<Name extends string>(t: Test, argsOf: Record<Name, string[]>, secret: string) {
  const running = {} as Record<Name, ChildProcess | null>;
  const output = Object.fromEntries(Object.keys(argsOf).map((name) => [name, ''])) as Record<Name, string>;
  let ended = false;
  const start = (which: Name) => {
    if (ended) return;
    const child = spawn(process.execPath, ['--import', 'tsx', cli, ...argsOf[which]], {
      env: { ...process.env, SVC_TERMINAL_SECRET: secret },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output[which] += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output[which] += chunk));
    running[which] = child;
  };
  const kill = async (which: Name) => {
    const child = running[which];
    if (!child) return;
    child.kill('SIGKILL');
    await stopped(child);
    running[which] = null;
  };
  // Once the test has ended (a failure included), nothing starts again: a killer would otherwise go on
  // restarting processes, and their handles would hold the file open until the runner's time limit.
  t.teardown(async () => {
    ended = true;
    for (const which of Object.keys(argsOf) as Name[]) await kill(which);
  });
  /** Starts whichever the last strike left stopped, so the pair can finish its work. */
  const startStopped = () => {
    for (const which of Object.keys(argsOf) as Name[]) if (!running[which]) start(which);
  };
  return { running, output, start, kill, startStopped };
}

/**
 * One strike of a kill run: a process is SIGKILLed and started again up to
 * 300 ms later; the line is cut as a pulled cable is (both ends drop, and
 * each process reopens its end) and comes back 100 ms later.
 */
export function strikeAt(pair: ReturnType<typeof processes<'emulator' | 'bridge'>>, line: PtyPair) {
  return async (target: 'emulator' | 'bridge' | 'line') => {
    if (target === 'line') {
      await line.stop();
      await new Promise((resolve) => setTimeout(resolve, 100));
      await line.start();
      return;
    }
    await pair.kill(target);
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 300));
    pair.start(target);
  };
}

/**
 * Kills one of `targets` at a time, at a random moment of work: it waits
 * until the pair has done some work since the last restart (a restart takes
 * a second alone, several on a loaded machine; without this gate, kills on a
 * busy host left the pair forever restarting), then a random while more.
 * `strike` kills and restarts; the counts are kept by target.
 */
export function killer<Target extends string>(
  targets: Target[],
  workDone: () => number,
  strike: (target: Target) => Promise<void>,
  { seed = 7, pauseMs = 1500 } = {},
) {
  let state = seed;
  const random = () => (state = (state * 48271) % 2147483647) / 2147483647;
  let killing = true;
  const kills = Object.fromEntries(targets.map((target) => [target, 0])) as Record<Target, number>;
  const loop = (async () => {
    while (killing) {
      const before = workDone();
      await waitFor(() => workDone() > before, 15_000, 'work since the last restart').catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, random() * pauseMs));
      if (!killing) break;
      const target = targets[Math.floor(random() * targets.length)]!;
      await strike(target);
      kills[target] += 1;
    }
  })();
  return {
    kills,
    total: () => Object.values<number>(kills).reduce((sum, each) => sum + each, 0),
    stop: async () => {
      killing = false;
      await loop;
    },
  };
}

/** What the merchant does during a kill run, and what it left unvoided. */
export interface MerchantSide {
  sales: number;
  /** Order i's id and amount (an amount that names the order lets a device's log be read back). */
  order(i: number): { orderId: string; amount: number; currency: string };
  /** Whether an order's status says the device charged it (so it may be voided). */
  charged(status: string): boolean;
  /** An order not charged within 40 s: the test says why (a kill cut its ask off, say). */
  notCharged?(orderId: string): Promise<void>;
  /** A batch close, every 40 sales. */
  close(): Promise<void> | void;
  /** Between two sales. */
  pauseMs: number;
}

/**
 * The merchant's side of a kill run, whatever the dialect: `sales` orders,
 * a void of every fifth once the device has charged it, a close every 40.
 * Answers the orders voided.
 */
export async function merchantWork(
  world: Awaited<ReturnType<typeof killWorld>>,
  serial: string,
  side: MerchantSide,
): Promise<string[]> {
  const { api, merchantPath, token } = world;
  const voided: string[] = [];
  for (let i = 0; i < side.sales; i += 1) {
    await api('POST', `${merchantPath}/transactions`, token, { ...side.order(i), terminal: serial });
    if (i % 5 === 4) {
      const target = side.order(i - 4).orderId;
      const charged = await waitFor(
        async () => side.charged((await api('GET', `${merchantPath}/transactions/${target}`, token)).body.data.status),
        40_000,
        `${target} to be charged`,
      ).then(
        () => true,
        () => false,
      );
      if (!charged) await side.notCharged?.(target);
      else if ((await api('POST', `${merchantPath}/transactions/${target}/invalidation`, token)).status === 200)
        voided.push(target);
    }
    if (i % 40 === 39) await side.close();
    await new Promise((resolve) => setTimeout(resolve, side.pauseMs));
  }
  return voided;
}

/** Types close on the bridge's stdin until the bridge says it journaled one (a kill may take the line typed). */
export async function typeClose(pair: {
  running: Record<string, ChildProcess | null>;
  output: Record<string, string>;
}): Promise<void> {
  const journaled = () => pair.output.bridge!.match(/batch close journaled/g)?.length ?? 0;
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const before = journaled();
    pair.running.bridge?.stdin!.write('close\n');
    const done = await waitFor(() => journaled() > before, 5_000, 'the close journaled').then(
      () => true,
      () => false,
    );
    if (done) return;
  }
  throw new Error(`no close journaled\n${pair.output.bridge!.slice(-3000)}`);
}

/**
 * A dialect bridge's journal (`journalFile` in its state folder, with what is
 * in flight and its outbox for the server) and what it holds, read back; and
 * a wait until it has settled: nothing in flight, nothing for the server but
 * held records, no order left PENDING or VOID_PENDING but held ones.
 */
export function bridgeWatch<Journal extends { inFlight: unknown; outbox: unknown[] }>(
  world: Awaited<ReturnType<typeof killWorld>>,
  state: BridgeState,
  journalFile: string,
  output: Record<'bridge' | 'emulator', string>,
) {
  const journal = async () => JSON.parse(await readFile(join(state.dir, journalFile), 'utf8')) as Journal;
  const held = async () => ({
    records: await state.listHeld(),
    asks: new Set((await state.listHeldAsks()).map((ask) => ask.key)),
  });
  const untilSettled = () =>
    waitFor(
      async () => {
        const [current, holding, orders] = [await journal(), await held(), await world.allOrders()];
        const open = [...orders.values()].filter(
          (order) =>
            (order.status === 'PENDING' && !holding.asks.has(askKey('charge', order.orderId))) ||
            (order.status === 'VOID_PENDING' && !holding.asks.has(askKey('void', order.orderId))),
        );
        return current.inFlight === null && current.outbox.length === holding.records.length && open.length === 0;
      },
      120_000,
      'the bridge to settle everything',
    ).catch((error: Error) => {
      throw new Error(
        `${error.message}\nbridge:\n${output.bridge.slice(-3000)}\nemulator:\n${output.emulator.slice(-2000)}`,
      );
    });
  /** Once the device has closed the batch (`closedOnDevice`), until the bridge has settled it: nothing pending or in flight. */
  const untilClosed = (closedOnDevice: () => Promise<boolean>, what: string) =>
    waitFor(
      async () => {
        const current = await journal();
        return (
          (await closedOnDevice()) &&
          !(await state.pendingClose()) &&
          current.inFlight === null &&
          current.outbox.length === (await held()).records.length
        );
      },
      60_000,
      what,
    );
  return { journal, held, untilSettled, untilClosed };
}

/**
 * The money at the end of a kill run, counted from what the device made (its
 * own log, every life of it: each payment's order and authorisation), what
 * the server holds and what the bridge holds for an operator: payments lost
 * (made, and neither on the server nor held), orders paid twice (on the
 * device or on the server), orders committed with another payment's
 * authorisation, the transactions the settlements count, voids neither
 * VOIDED nor held, and orders charged.
 */
export async function moneyCount(
  world: Awaited<ReturnType<typeof killWorld>>,
  serial: string,
  state: BridgeState,
  made: Array<{ orderId: string; authorization: string }>,
  voided: string[],
) {
  const { api, token, merchantPath } = world;
  const orders = await world.allOrders();
  const records = await state.listHeld();
  const heldAsks = await state.listHeldAsks();
  const asks = new Set(heldAsks.map((ask) => ask.key));
  const heldPayments = new Set(
    records.filter((h) => h.record.kind === 'payment').map((h) => (h.record as { orderId: string }).orderId),
  );
  const paymentsOf = new Map<string, number>();
  for (const payment of made) paymentsOf.set(payment.orderId, (paymentsOf.get(payment.orderId) ?? 0) + 1);
  const lost = [...paymentsOf.keys()].filter(
    (orderId) =>
      !['PAID', 'VOID_PENDING', 'VOIDED'].includes(orders.get(orderId)?.status) && !heldPayments.has(orderId),
  );
  const doubled = [
    ...[...paymentsOf]
      .filter(([, count]) => count > 1)
      .map(([orderId, count]) => `${orderId} paid ${count} times on the device`),
    ...[...orders.values()]
      .filter((order) => order.history.filter((h: { to: string }) => h.to === 'PAID').length > 1)
      .map((order) => `${order.orderId} paid twice on the server`),
  ];
  const wrongAuthorization = made.filter(
    (payment) =>
      orders.get(payment.orderId)?.authorizationCode !== payment.authorization && !heldPayments.has(payment.orderId),
  );
  const settlements = (await api('GET', `${merchantPath}/pos-terminals/${serial}/settlements?size=100`, token)).body
    .data as Array<{ batchNumber: string; transactionCount: number }>;
  const heldSettlements = records
    .filter((h) => h.record.kind === 'settlement')
    .map((h) => h.record as { transactionCount: number });
  const settled = [...settlements, ...heldSettlements].reduce((sum, each) => sum + each.transactionCount, 0);
  const notVoided = voided.filter(
    (orderId) => orders.get(orderId)?.status !== 'VOIDED' && !asks.has(askKey('void', orderId)),
  );
  const charged = [...orders.values()].filter((order) => order.status !== 'PENDING').length;
  const heldCharges = heldAsks.filter((ask) => ask.kind === 'charge').length;
  return {
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
  };
}
