import { Duplex } from 'node:stream';
import t from 'tap';
import { PosClient } from '../../contracts/clients/pos-client.js';
import { ManualTimers } from '../protocol/timers.js';
import { waitFor } from '../../server/testing/wait-for.js';
import { BridgeError, LineError } from '../errors.js';
import { Bridge, type SerialLine } from './bridge.js';
import type { DialectDefinition, DialectDevice } from './dialect.js';
import { svcDialect } from './svc/svc-dialect.js';
import { BridgeState } from './bridge-state.js';
import { comparePaid, verdictFor } from './server-verdict.js';

const idle = async () => {
  for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setImmediate(resolve));
};

/**
 * The manual clock may move only while the bridge waits it out: a cycle
 * reads its state files, which finish on libuv's thread pool rather than in
 * a turn of the event loop, so moving the clock mid-cycle (as a loaded CI
 * run did) makes a 3 s answer time out that never passed.
 */
const untilAsleep = (bridge: Bridge) => waitFor(() => bridge.isAsleep, 10_000, 'the bridge to finish its cycle');

t.test('a silent device: the line is reopened 0.5 s, 1, 2, 4, 8, then every 10 s, as documented', async (t) => {
  const timers = new ManualTimers();
  const opened: number[] = [];
  const logs: string[] = [];
  const state = await BridgeState.open(t.testdir(), 'SILENT-1');
  const bridge = new Bridge({
    dialect: svcDialect,
    // A line that opens and swallows every byte: a device that never answers.
    open: async () => {
      opened.push(timers.now());
      return new Duplex({
        read() {},
        write(_chunk, _encoding, done) {
          done();
        },
      }) as SerialLine;
    },
    client: new PosClient({ baseUrl: 'http://127.0.0.1:9', serialNumber: 'SILENT-1', secret: '0'.repeat(64) }),
    state,
    timers,
    log: (line) => logs.push(line),
  });
  const running = bridge.run();
  // Each attempt: 3 tries of the frame at 2 s each (no ACK), then the backoff. Time moves only while the bridge
  // waits on a timer, and straight to that timer: a loaded machine, whose file reads finish late, cannot have the
  // clock move under a cycle still reading its state (it once timed out here, or counted steps of 250 ms twice).
  while (opened.length < 8) {
    await waitFor(() => timers.armed > 0, 10_000, 'the bridge to wait on a timer');
    await idle();
    timers.advance(timers.nextDueInMs!);
  }
  await bridge.stop();
  timers.advance(20_000);
  await idle();
  await running;
  const gaps = opened.slice(1).map((at, i) => at - opened[i]!);
  const linkGiveUp = 6000; // no ACK after 3 tries of 2 s
  const backoffs = gaps.map((gap) => gap - linkGiveUp);
  t.same(backoffs.slice(0, 7), [500, 1000, 2000, 4000, 8000, 10_000, 10_000], `reopened after ${gaps.join(', ')} ms`);
  t.equal(logs.filter((line) => line.startsWith('line down')).length, 1, 'one line when the outage begins');
  t.match(
    logs.filter((line) => line.startsWith('line still down')),
    Array.from({ length: 6 }, () => /^line still down \(try \d+\): .+; reopening in \d+ ms$/),
    'and each try after it says down again, with its cause: never only "line open"',
  );
});

t.test(
  'the verdict on a server answer: confirm only what the server holds the same, hold what differs, retry faults',
  async (t) => {
    const sale = {
      kind: 'payment',
      seq: 1,
      orderId: 'o1',
      amount: 5,
      currency: 'USD',
      authorizationCode: 'A1',
      paidAt: '2026-11-21T10:00:00.000Z',
    } as const;
    const voided = { kind: 'void', seq: 2, orderId: 'o1', voidedAt: '2026-11-21T10:00:00.000Z' } as const;
    const batch = {
      kind: 'settlement',
      seq: 3,
      batchNumber: 'B1',
      transactionCount: 1,
      closedAt: '2026-11-21T18:00:00.000Z',
      currencyReference: 'USD',
      terminal: 'T',
      debitBatch: 'D1',
    } as const;
    t.equal(verdictFor(sale, { status: 200, body: {} }).kind, 'confirm');
    t.equal(verdictFor(batch, { status: 200, body: { detail: 'settlement B1 already registered' } }).kind, 'confirm');
    t.equal(
      verdictFor(sale, { status: 409, body: { code: 'ORDER_STATE_CONFLICT', currentStatus: 'PAID' } }).kind,
      'compare-paid',
    );
    t.equal(comparePaid(sale, { authorizationCode: 'A1' }).kind, 'confirm');
    t.match(comparePaid(sale, { authorizationCode: 'Z9' }), { kind: 'hold', reason: /double charge/ });
    t.match(comparePaid(sale, undefined), { kind: 'hold' });
    // Recorded, its confirmation to the device lost, then voided by the merchant: the same sale if the code is the same.
    t.same(verdictFor(sale, { status: 409, body: { code: 'ORDER_STATE_CONFLICT', currentStatus: 'VOID_PENDING' } }), {
      kind: 'compare-paid',
      status: 'VOID_PENDING',
    });
    t.same(verdictFor(sale, { status: 409, body: { code: 'ORDER_STATE_CONFLICT', currentStatus: 'VOIDED' } }), {
      kind: 'compare-paid',
      status: 'VOIDED',
    });
    t.match(comparePaid(sale, { authorizationCode: 'A1' }, 'VOID_PENDING'), {
      kind: 'confirm',
      note: /already PAID with this authorization code \(and VOID_PENDING since\)/,
    });
    t.match(comparePaid(sale, { authorizationCode: 'Z9' }, 'VOIDED'), {
      kind: 'hold',
      reason: /double charge: order o1 was already PAID with authorization Z9 \(and VOIDED since\)/,
    });
    t.equal(
      verdictFor(voided, { status: 409, body: { code: 'ORDER_STATE_CONFLICT', currentStatus: 'VOIDED' } }).kind,
      'confirm',
    );
    t.match(verdictFor(voided, { status: 409, body: { code: 'ORDER_STATE_CONFLICT', currentStatus: 'PENDING' } }), {
      kind: 'hold',
    });
    t.match(verdictFor(batch, { status: 409, body: { code: 'SETTLEMENT_CONFLICT' } }), {
      kind: 'hold',
      reason: /batch B1 with other fields/,
    });
    for (const status of [401, 408, 429, 500, 503])
      t.equal(verdictFor(sale, { status, body: {} }).kind, 'fault', `${status}`);
    for (const status of [400, 404, 422]) t.equal(verdictFor(sale, { status, body: {} }).kind, 'hold', `${status}`);
  },
);

t.test(
  'the verdict at the edges of the status classes: only a 2xx confirms (never a 3xx or 1xx), 425 is retried like 408 and 429',
  async (t) => {
    const sale = {
      kind: 'payment',
      seq: 1,
      orderId: 'o1',
      amount: 5,
      currency: 'USD',
      authorizationCode: 'A1',
      paidAt: '2026-11-21T10:00:00.000Z',
    } as const;
    for (const status of [200, 201, 204, 299])
      t.equal(verdictFor(sale, { status, body: {} }).kind, 'confirm', `${status} confirms`);
    // A redirect or an informational answer is not the server holding the record: the device must keep it.
    for (const status of [100, 199, 300, 301, 302, 304, 399])
      t.equal(verdictFor(sale, { status, body: {} }).kind, 'hold', `${status} does not confirm`);
    for (const status of [408, 425, 429, 500, 502, 599])
      t.equal(verdictFor(sale, { status, body: {} }).kind, 'fault', `${status} is retried`);
    for (const status of [400, 403, 404, 410, 413, 422, 426, 428, 499])
      t.equal(verdictFor(sale, { status, body: {} }).kind, 'hold', `${status} is held`);
  },
);

t.test('the reasons a technician reads name the answer, the order or batch, and what to check', async (t) => {
  const sale = {
    kind: 'payment',
    seq: 1,
    orderId: 'o1',
    amount: 5,
    currency: 'USD',
    authorizationCode: 'A1',
    paidAt: '2026-11-21T10:00:00.000Z',
  } as const;
  const voided = { kind: 'void', seq: 2, orderId: 'o1', voidedAt: '2026-11-21T10:00:00.000Z' } as const;
  const batch = {
    kind: 'settlement',
    seq: 3,
    batchNumber: 'B1',
    transactionCount: 1,
    closedAt: '2026-11-21T18:00:00.000Z',
    currencyReference: 'USD',
    terminal: 'T',
    debitBatch: 'D1',
  } as const;
  t.same(verdictFor(sale, { status: 201, body: { detail: 'settlement registered' } }), {
    kind: 'confirm',
    note: 'server 201 (settlement registered)',
  });
  t.same(verdictFor(sale, { status: 200, body: {} }), { kind: 'confirm', note: 'server 200' });
  t.same(verdictFor(sale, { status: 401, body: { code: 'SIGNATURE_INVALID', message: 'bad signature' } }), {
    kind: 'fault',
    cause:
      "the server refuses this terminal's signature (401 SIGNATURE_INVALID: bad signature): check the terminal's secret and the clock",
  });
  t.same(verdictFor(sale, { status: 503, body: { code: 'STORE_UNAVAILABLE' } }), {
    kind: 'fault',
    cause: 'the server answered 503 STORE_UNAVAILABLE',
  });
  t.same(
    verdictFor(sale, { status: 502, body: {} }),
    { kind: 'fault', cause: 'the server answered 502' },
    'no dangling space when the answer has no code',
  );
  t.same(verdictFor(sale, { status: 400, body: { code: 'VALIDATION_FAILED', message: 'amount' } }), {
    kind: 'hold',
    reason: 'the server refused the record (400 VALIDATION_FAILED: amount)',
  });
  t.same(verdictFor(voided, { status: 409, body: { code: 'ORDER_STATE_CONFLICT', currentStatus: 'PENDING' } }), {
    kind: 'hold',
    reason: 'order o1 is PENDING on the server (409 ORDER_STATE_CONFLICT)',
  });
  t.same(verdictFor(voided, { status: 409, body: { code: 'ORDER_STATE_CONFLICT' } }), {
    kind: 'hold',
    reason: 'order o1 is in another state on the server (409 ORDER_STATE_CONFLICT)',
  });
  t.same(verdictFor(voided, { status: 409, body: { currentStatus: 'VOIDED' } }), {
    kind: 'confirm',
    note: 'server 409: the order is already VOIDED',
  });
  // A batch answered 409 is held whatever the body says: only a void is confirmed by an already VOIDED order.
  t.match(verdictFor(batch, { status: 409, body: { code: 'SETTLEMENT_CONFLICT', currentStatus: 'VOIDED' } }), {
    kind: 'hold',
    reason: 'the server holds batch B1 with other fields (409 SETTLEMENT_CONFLICT)',
  });
  t.same(comparePaid(sale, undefined), {
    kind: 'hold',
    reason: 'order o1 is PAID on the server, but could not be read to compare',
  });
  t.same(
    comparePaid(sale, { authorizationCode: 'A1' }),
    { kind: 'confirm', note: 'server 409: the order was already PAID with this authorization code' },
    'no "since" when it is still PAID',
  );
  t.match(comparePaid(sale, {}), {
    kind: 'hold',
    reason: /already PAID with authorization \(none\); this sale has authorization A1/,
  });
});

/**
 * Stops a bridge running on a manual clock: it may be between a file write
 * and its next sleep, so time is moved and real I/O let through until the
 * run loop has seen the stop.
 */
async function stopOnManualClock(bridge: Bridge, running: Promise<void>, timers: ManualTimers): Promise<void> {
  let ended = false;
  void running.then(() => (ended = true));
  await bridge.stop();
  for (let i = 0; i < 1000 && !ended; i += 1) {
    timers.advance(1000);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await running;
}

/** Two connected ends of an in-memory serial line. */
function linePair(): [SerialLine, SerialLine] {
  // Each end writes into the other, which exists only once both are made.
  const ends: Duplex[] = [];
  const end = (other: () => Duplex) =>
    new Duplex({
      read() {},
      write(chunk, _encoding, done) {
        other().push(chunk);
        done();
      },
    });
  ends.push(
    end(() => ends[1]!),
    end(() => ends[0]!),
  );
  return [ends[0] as SerialLine, ends[1] as SerialLine];
}

t.test(
  'only delivering fails (listing works): one line down, the backoff doubles to 30 s, and no flip to available every cycle',
  async (t) => {
    const { EmulatedTerminal } = await import('../device/svc/emulated-terminal.js');
    const { Link } = await import('../protocol/link.js');
    const timers = new ManualTimers();
    const [hostEnd, deviceEnd] = linePair();
    const device = new EmulatedTerminal({ serial: 'FLIP-1', timers });
    device.attach(new Link(deviceEnd, { timers }));
    device.queueSettlement({
      batchNumber: 'B1',
      transactionCount: 0,
      closedAt: '2026-11-21T10:00:00.000Z',
      currencyReference: 'USD',
      terminal: 'FLIP-1',
      debitBatch: 'D1',
    });
    const deliveries: number[] = [];
    const client = new PosClient({ baseUrl: 'http://127.0.0.1:9', serialNumber: 'FLIP-1', secret: '0'.repeat(64) });
    client.listOrders = async () => ({ status: 200, body: { data: [] } }) as never;
    client.notifySettlement = async () => {
      deliveries.push(timers.now());
      return { status: 503, body: { code: 'STORE_UNAVAILABLE', message: 'the database is away' } } as never;
    };
    const logs: string[] = [];
    const bridge = new Bridge({
      dialect: svcDialect,
      open: async () => hostEnd,
      client,
      state: await BridgeState.open(t.testdir(), 'FLIP-1'),
      timers,
      pollMs: 100,
      log: (line) => logs.push(line),
    });
    const running = bridge.run();
    for (let i = 0; i < 2000 && deliveries.length < 8; i += 1) {
      await untilAsleep(bridge);
      timers.advance(100);
    }
    await stopOnManualClock(bridge, running, timers);
    const gaps = deliveries.slice(1).map((at, i) => at - deliveries[i]!);
    t.ok(gaps.length >= 6, `${deliveries.length} deliveries`);
    for (const [i, gap] of gaps.entries())
      t.ok(gap >= Math.min(30_000, 1000 * 2 ** i), `retry ${i + 1} after ${gap} ms`);
    // Time moves in 100 ms steps, only while the bridge sleeps, so a gap is its backoff to the step; capped, the last gaps stay far from the 60 s an uncapped doubling would reach.
    t.ok(
      gaps.slice(-2).every((gap) => gap >= 30_000 && gap < 45_000),
      `capped at 30 s: ${gaps.join(', ')} ms`,
    );
    const serverLines = logs.filter((line) => line.startsWith('server '));
    t.equal(serverLines.length, 1, `one line for the whole outage: ${JSON.stringify(serverLines)}`);
    t.match(serverLines[0], /unavailable for delivering records: the server answered 503 STORE_UNAVAILABLE/);
    t.match(serverLines[0], /the database is away \[SERVER_UNAVAILABLE\]; /, 'named by its code');
  },
);

t.test(
  'a record the server keeps answering 5xx is held with the answer after the bound; an unreachable server holds nothing',
  async (t) => {
    const { EmulatedTerminal } = await import('../device/svc/emulated-terminal.js');
    const { Link } = await import('../protocol/link.js');
    const run = async (answer: () => Promise<never>) => {
      const timers = new ManualTimers();
      const [hostEnd, deviceEnd] = linePair();
      const device = new EmulatedTerminal({ serial: 'HOLD-5XX', timers });
      device.attach(new Link(deviceEnd, { timers }));
      device.queueSettlement({
        batchNumber: 'B7',
        transactionCount: 0,
        closedAt: '2026-11-21T10:00:00.000Z',
        currencyReference: 'USD',
        terminal: 'HOLD-5XX',
        debitBatch: 'D7',
      });
      const client = new PosClient({ baseUrl: 'http://127.0.0.1:9', serialNumber: 'HOLD-5XX', secret: '0'.repeat(64) });
      client.listOrders = async () => ({ status: 200, body: { data: [] } }) as never;
      client.notifySettlement = answer;
      const state = await BridgeState.open(t.testdir(), 'HOLD-5XX');
      const errors: string[] = [];
      const bridge = new Bridge({
        dialect: svcDialect,
        open: async () => hostEnd,
        client,
        state,
        timers,
        pollMs: 100,
        recordFaultHoldMs: 5000,
        log: () => undefined,
        error: (line) => errors.push(line),
      });
      const running = bridge.run();
      for (let i = 0; i < 300; i += 1) {
        await untilAsleep(bridge);
        timers.advance(100);
      }
      await stopOnManualClock(bridge, running, timers);
      return { held: await state.listHeld(), errors, device };
    };
    const answering = await run(async () => ({ status: 500, body: { code: 'INTERNAL', message: 'boom' } }) as never);
    t.match(answering.held, [
      {
        record: { kind: 'settlement', batchNumber: 'B7' },
        reason: /the server has answered this record with errors for \d+ s \(the server answered 500 INTERNAL: boom\)/,
      },
    ]);
    t.equal(answering.device.snapshot.records.length, 1, 'still on the device, unconfirmed');
    t.ok(
      answering.errors.some((line) => line.startsWith('HELD record')),
      'and said',
    );
    const unreachable = await run(async () => {
      throw new TypeError('fetch failed');
    });
    t.same(unreachable.held, [], 'an outage holds nothing: the records wait for the server');
  },
);

t.test(
  'a cycle that fails is logged by its code; a journal failure stops the bridge instead of reopening',
  async (t) => {
    const timers = new ManualTimers();
    const logs: string[] = [];
    const errors: string[] = [];
    const failures: Error[] = [
      new LineError('LINK_TIMEOUT', 'no ACK for 0100'),
      new TypeError('a defect'),
      new BridgeError('JOURNAL_FAILED', 'the journal file x failed: EISDIR'),
    ];
    let closed = 0;
    const dialect: DialectDefinition = {
      ...svcDialect,
      create: () =>
        ({
          connect: () => ({
            isClosed: false,
            close: () => void (closed += 1),
          }),
          establish: async () => {
            throw failures.shift()!;
          },
        }) as unknown as DialectDevice,
    };
    const state = await BridgeState.open(t.testdir(), 'CODES-1');
    const bridge = new Bridge({
      dialect,
      open: async () => new Duplex({ read() {}, write: (_c, _e, done) => done() }) as SerialLine,
      client: new PosClient({ baseUrl: 'http://127.0.0.1:9', serialNumber: 'CODES-1', secret: '0'.repeat(64) }),
      state,
      timers,
      log: (line) => logs.push(line),
      error: (line) => errors.push(line),
    });
    const ended = bridge.run().then(
      () => undefined,
      (error: unknown) => error,
    );
    for (let i = 0; i < 40 && failures.length > 0; i += 1) {
      await idle();
      timers.advance(1000);
    }
    t.match(await ended, { name: 'BridgeError', code: 'JOURNAL_FAILED' }, 'the run ends with the journal failure');
    t.match(
      logs.filter((line) => line !== 'line open'),
      [
        /^line down: no ACK for 0100 \[LINK_TIMEOUT\]; reopening/,
        /^line still down \(try 2\): a defect \[UNEXPECTED\]; reopening/,
      ],
    );
    t.match(errors, [/^journal failure \[JOURNAL_FAILED\]: the journal file x failed: EISDIR; the bridge stops/]);
    t.equal(closed, 3, 'each failed line is closed, the last one too');
  },
);
