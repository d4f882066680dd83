import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { realTimers } from '../../protocol/timers.js';
import type { Apdu } from '../../protocol/zvt/apdu.js';
import { bcdNumber } from '../../protocol/zvt/bcd.js';
import { decodeFields, encodeFields, type Field } from '../../protocol/zvt/bitmaps.js';
import { controlOf, COMMANDS, POSITIVE } from '../../protocol/zvt/messages.js';
import { BridgeState } from '../bridge-state.js';
import type { AskKind } from '../dialect.js';
import type { EcrSession, TransactionEnd, TransactionHandlers } from './ecr-session.js';
import { reversalOf, storedPayment } from './zvt-bridge-testkit.js';
import { ZvtJournal, type ZvtInFlight } from './zvt-journal.js';
import { ZvtTransactions } from './zvt-transactions.js';

// The ZVT bridge's money decisions, fast: the terminal's side is scripted
// (what each command ends with, which status information it sends), the
// journal is the real one in a temp dir. Whether a payment stands is
// decided here: on the terminal's status information and Completion, or
// after a cut, on its repeat receipt; never on a guess.

/** Status information as a terminal sends it. */
function status(fields: { result?: number; amount?: number; trace?: number; receipt?: number; totals?: boolean }) {
  return decodeFields(
    encodeFields([
      { bmp: 0x27, value: Buffer.of(fields.result ?? 0) },
      ...(fields.amount !== undefined ? [{ bmp: 0x04, value: bcdNumber(fields.amount, 6) }] : []),
      ...(fields.trace !== undefined ? [{ bmp: 0x0b, value: bcdNumber(fields.trace, 3) }] : []),
      ...(fields.receipt !== undefined ? [{ bmp: 0x87, value: bcdNumber(fields.receipt, 2) }] : []),
      ...(fields.totals
        ? [{ bmp: 0x60, value: Buffer.concat([Buffer.from('00010002', 'hex'), Buffer.of(2), bcdNumber(3000, 6)]) }]
        : []),
    ]),
  );
}

/** What the scripted terminal does with one command: the status information it sends, and how it ends. */
type Script = {
  statuses?: Field[][];
  intermediate?: number;
  end: 'completed' | { aborted: number } | { refused: number };
};

async function bridgeSide(t: Test, scripts: Partial<Record<keyof typeof COMMANDS, Script[]>>) {
  const state = await BridgeState.open(t.testdir(), 'ZVT-1');
  const journal = await ZvtJournal.open(state.dir);
  const sent: string[] = [];
  const messages: string[] = [];
  const answers: Apdu[] = [];
  const session = {
    transact: async (
      message: Apdu,
      _completes: boolean,
      handlers: TransactionHandlers = {},
    ): Promise<TransactionEnd> => {
      const name = (Object.keys(COMMANDS) as Array<keyof typeof COMMANDS>).find(
        (key) => COMMANDS[key] === controlOf(message),
      )!;
      sent.push(name);
      messages.push(message.data.toString('hex'));
      const script = scripts[name]?.shift();
      if (!script) throw new Error(`nothing scripted for ${name}`);
      if (script.intermediate !== undefined) handlers.onIntermediate?.(script.intermediate);
      const statuses: Field[][] = [];
      for (const fields of script.statuses ?? []) {
        statuses.push(fields);
        answers.push(handlers.onStatus ? await handlers.onStatus(fields) : POSITIVE);
      }
      if (script.end === 'completed') return { outcome: 'completed', data: Buffer.alloc(0), statuses, printed: [] };
      if ('refused' in script.end) return { outcome: 'refused', error: script.end.refused, data: Buffer.alloc(0) };
      return { outcome: 'aborted', resultCode: script.end.aborted, data: Buffer.alloc(0), statuses, printed: [] };
    },
  } as unknown as EcrSession;
  const held: Array<{ kind: AskKind; orderId: string; reason: string }> = [];
  const logs: string[] = [];
  const errors: string[] = [];
  const debug: string[] = [];
  const transactions = new ZvtTransactions(
    {
      state,
      timers: realTimers,
      answerTimeoutMs: 1000,
      log: (line) => logs.push(line),
      error: (line) => errors.push(line),
      debug: (line) => debug.push(line),
      iso: () => '2026-11-28T10:00:00.000Z',
      hold: async (kind, orderId, reason) => void held.push({ kind, orderId, reason }),
    },
    session,
    Buffer.from('000000', 'hex'),
    journal,
  );
  const technician = async () =>
    (await readFile(join(state.dir, 'sales.jsonl'), 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { journal, transactions, sent, messages, answers, held, logs, errors, debug, state, technician };
}

const payment = (amount = 1000): Extract<ZvtInFlight, { kind: 'payment' }> => ({
  kind: 'payment',
  orderId: 'o-1',
  amount,
  currency: 'EUR',
  startedAt: 'then',
});

/** A payment as the dialect runs it: begun in the journal, sent, its status information judged. */
async function pay(side: Awaited<ReturnType<typeof bridgeSide>>, amount = 1000) {
  const asked = payment(amount);
  await side.journal.begin(asked);
  const done = await side.transactions.journaled(
    { cls: 0x06, ins: 0x01, data: Buffer.alloc(0) },
    'payment o-1',
    (reading) => reading.resultCode !== 0 || reading.amount === amount,
  );
  return side.transactions.recordPaymentEnd(asked, done);
}

t.test('approved and completed: journaled before it is acknowledged, then paid with its numbers', async (t) => {
  const side = await bridgeSide(t, {
    authorisation: [{ statuses: [status({ amount: 1000, trace: 7, receipt: 3 })], end: 'completed' }],
  });
  t.equal(await pay(side), true);
  t.same(side.answers, [POSITIVE]);
  t.match(side.journal.payment('o-1'), { receipt: 3, trace: 7, amount: 1000, authorizationCode: 'T000007R0003' });
  t.match(side.journal.snapshot.outbox, [{ kind: 'payment', orderId: 'o-1' }]);
  t.equal(side.journal.inFlight, null);
  t.equal(side.journal.snapshot.lastTrace, 7);
});

t.test("a status information that is not the payment's own is refused (84 83), never journaled", async (t) => {
  const side = await bridgeSide(t, {
    authorisation: [{ statuses: [status({ amount: 999, trace: 8, receipt: 4 })], end: { aborted: 0x6c } }],
  });
  t.equal(await pay(side), false);
  t.equal(side.answers[0]!.cls, 0x84);
  t.equal(side.answers[0]!.ins, 0x83);
  t.equal(side.journal.payment('o-1'), undefined, 'not paid');
  t.match(side.errors[0], /not its own \(amount 999, receipt 4\): refused/);
  t.match(side.journal.declined('payment:o-1'), { resultCode: '6C' }, 'the terminal aborted it: declined');
});

t.test('declined: recorded as such, said once with the retry command; 6F is held, never converted', async (t) => {
  const declined = await bridgeSide(t, {
    authorisation: [{ statuses: [status({ result: 0x05, amount: 1000 })], end: { aborted: 0x05 } }],
  });
  t.equal(await pay(declined), false);
  t.match(declined.journal.declined('payment:o-1'), { resultCode: '05' });
  t.match(declined.errors, [/result 05\).*svc-terminal retry o-1/]);
  t.equal(declined.journal.inFlight, null, 'nothing left in flight: the decline is its end');
  const currency = await bridgeSide(t, { authorisation: [{ end: { aborted: 0x6f } }] });
  t.equal(await pay(currency), false);
  t.match(currency.held, [{ kind: 'charge', orderId: 'o-1', reason: /does not take EUR \(06 1E 6F\)/ }]);
  t.equal(currency.journal.inFlight, null);
  t.equal(currency.journal.declined('payment:o-1'), undefined, 'held, not declined');
});

t.test('completed without an approval: the repeat receipt decides', async (t) => {
  const side = await bridgeSide(t, {
    authorisation: [{ statuses: [status({ amount: 1000, trace: 9, receipt: 5 })], end: 'completed' }],
  });
  // A terminal whose status information carried no result is read as approved (27 absent reads 00): covered above.
  t.equal(await pay(side), true);
  const other = await bridgeSide(t, {
    authorisation: [{ end: 'completed' }],
    repeatReceipt: [{ statuses: [status({ amount: 1000, trace: 9, receipt: 5 })], end: 'completed' }],
  });
  t.equal(await pay(other), false, 'no status information of its own: not paid');
  t.same(other.sent, ['authorisation', 'repeatReceipt']);
  t.match(other.held, [{ kind: 'charge', reason: /cannot say what became of it/ }]);
});

t.test('after a cut, with no status information journaled: the terminal stored nothing; sold again', async (t) => {
  const side = await bridgeSide(t, {});
  await side.journal.begin(payment());
  await side.transactions.resolveUnanswered(payment());
  t.equal(side.journal.inFlight, null);
  t.same(side.sent, [], 'nothing asked');
  t.equal(side.journal.payment('o-1'), undefined);
});

async function cutAfterStatus(t: Test, repeat: Script) {
  const side = await bridgeSide(t, { repeatReceipt: [repeat] });
  const mine = { resultCode: 0, amount: 1000, trace: 11, receipt: 6 };
  await side.journal.begin(payment());
  await side.journal.statusCame(mine);
  await side.transactions.resolveUnanswered({ ...payment(), status: mine });
  return side;
}

t.test('after a cut, the repeat receipt is the payment: it was stored, paid once', async (t) => {
  const side = await cutAfterStatus(t, {
    statuses: [status({ amount: 1000, trace: 11, receipt: 6 })],
    end: 'completed',
  });
  t.match(side.journal.payment('o-1'), { receipt: 6, trace: 11 });
  t.match(side.logs, [/the terminal's last receipt \(6\) is it: it was stored/]);
});

t.test('after a cut, the repeat receipt is another: the terminal reversed it by itself; not paid', async (t) => {
  for (const other of [
    { amount: 1000, trace: 10, receipt: 6 },
    { amount: 1000, trace: 11, receipt: 5 },
    { amount: 999, trace: 11, receipt: 6 },
  ]) {
    const side = await cutAfterStatus(t, { statuses: [status(other)], end: 'completed' });
    t.equal(side.journal.payment('o-1'), undefined, JSON.stringify(other));
    t.equal(side.journal.inFlight, null);
    t.same(side.held, []);
  }
  const declinedLast = await cutAfterStatus(t, {
    statuses: [status({ result: 0x05, amount: 1000, trace: 11, receipt: 6 })],
    end: 'completed',
  });
  t.equal(declinedLast.journal.payment('o-1'), undefined, 'a receipt that is a decline proves nothing paid');
});

t.test('after a cut, a terminal that cannot say (repeat receipt refused): held, never guessed', async (t) => {
  const refused = await cutAfterStatus(t, { end: { refused: 0x83 } });
  t.match(refused.held, [{ kind: 'charge', orderId: 'o-1', reason: /no repeat receipt/ }]);
  t.equal(refused.journal.payment('o-1'), undefined);
  const aborted = await cutAfterStatus(t, { end: { aborted: 0x6c } });
  t.equal(aborted.held.length, 1, 'an Abort other than 83 with no receipt: held too');
  const none = await cutAfterStatus(t, { end: { aborted: 0x83 } });
  t.same(none.held, [], 'no receipt at all (06 1E 83): the terminal stored nothing since; not paid');
  t.equal(none.journal.payment('o-1'), undefined);
});

t.test('a reversal: done on its Completion; B4 proves an earlier one; B5 goes by refund; others held', async (t) => {
  const reversal = reversalOf;
  const run = async (scripts: Parameters<typeof bridgeSide>[1]) => {
    const side = await bridgeSide(t, scripts);
    await side.journal.paid(storedPayment);
    await side.journal.begin(reversal);
    return { side, ok: await side.transactions.reverse(reversal) };
  };
  const done = await run({
    reversal: [{ statuses: [status({ amount: 1000, trace: 12, receipt: 7 })], end: 'completed' }],
  });
  t.equal(done.ok, true);
  t.match(done.side.journal.payment('o-1'), { voided: true });
  const twice = await run({ reversal: [{ end: { aborted: 0xb4 } }] });
  t.equal(twice.ok, true, 'B4: already reversed, so it was');
  const closed = await run({
    reversal: [{ end: { aborted: 0xb5 } }],
    refund: [{ statuses: [status({ amount: 1000, trace: 13, receipt: 8 })], end: 'completed' }],
  });
  t.equal(closed.ok, true, 'B5: refunded instead');
  t.same(closed.side.sent, ['reversal', 'refund']);
  const refusedReversal = await run({ reversal: [{ end: { refused: 0x83 } }] });
  t.equal(refusedReversal.ok, false);
  t.match(refusedReversal.side.held, [{ kind: 'void', reason: /refused the reversal of receipt 6 \(83\)/ }]);
});

t.test('an end of day cut off: its journaled totals settle it; else a newer end of day on the terminal', async (t) => {
  const close: Extract<ZvtInFlight, { kind: 'end-of-day' }> = {
    kind: 'end-of-day',
    closeId: 'c-1',
    batchNumber: 'B0001',
    startedAt: 'then',
  };
  const withTotals = await bridgeSide(t, {});
  await withTotals.journal.begin(close);
  const totals = { resultCode: 0, amount: 3000, trace: 20, endOfDay: { count: 2, total: 3000 } };
  await withTotals.journal.statusCame(totals);
  await withTotals.transactions.resolveUnanswered({ ...close, status: totals });
  t.match(withTotals.journal.snapshot.outbox, [{ kind: 'settlement', batchNumber: 'B0001', transactionCount: 2 }]);

  const newer = await bridgeSide(t, {
    repeatReceipt: [{ statuses: [status({ amount: 3000, trace: 21, totals: true })], end: 'completed' }],
  });
  await newer.journal.begin(close);
  await newer.transactions.resolveUnanswered(close);
  t.match(newer.journal.snapshot.outbox, [{ kind: 'settlement', transactionCount: 2 }], 'it ran: settled');

  const older = await bridgeSide(t, {
    repeatReceipt: [{ statuses: [status({ amount: 1000, trace: 3, receipt: 2 })], end: 'completed' }],
  });
  await older.journal.begin(close);
  await older.transactions.resolveUnanswered(close);
  t.same(older.journal.snapshot.outbox, [], 'it did not run: nothing settled');
  t.equal(older.journal.inFlight, null, 'it goes again');
});

t.test('what goes on the line: the reversal, the refund and the repeat receipt, byte for byte', async (t) => {
  const side = await bridgeSide(t, {
    reversal: [{ end: { aborted: 0xb5 } }],
    refund: [{ statuses: [status({ amount: 1000, trace: 13, receipt: 8 })], end: 'completed' }],
  });
  await side.journal.paid({ ...storedPayment, currency: 'CHF' });
  await side.journal.begin(reversalOf);
  await side.transactions.reverse(reversalOf);
  t.same(side.messages, ['000000' + '870006' + '04000000001000', '000000' + '04000000001000' + '49' + '0756']);
  t.match(side.logs, [
    "reversal of o-1: no longer in the terminal's turnover (B5); refunding instead",
    'refund of o-1 (closed by an end of day) done; committing the void on the server',
  ]);
  t.match(await side.technician(), [
    { event: 'payment', orderId: 'o-1' },
    { event: 'refund', orderId: 'o-1', receipt: 8, trace: 13, voidedAt: '2026-11-28T10:00:00.000Z' },
  ]);
  t.match(side.journal.payment('o-1'), { closed: true, voided: true });
  const repeat = await cutAfterStatus(t, { end: { refused: 0x83 } });
  t.same(repeat.messages, ['000000' + '0303'], 'password, service byte 03: status information, nothing printed');
});

t.test('a reversal: logs, journal lines and holds, each path', async (t) => {
  const run = async (scripts: Parameters<typeof bridgeSide>[1]) => {
    const side = await bridgeSide(t, scripts);
    await side.journal.paid(storedPayment);
    await side.journal.begin(reversalOf);
    return { side, ok: await side.transactions.reverse(reversalOf) };
  };
  const done = await run({
    reversal: [{ statuses: [status({ amount: 1000, trace: 12, receipt: 7 })], end: 'completed' }],
  });
  t.same(done.side.logs, ['reversal of o-1 (receipt 6) done; committing the void on the server']);
  t.match((await done.side.technician())[1], { event: 'reversal', receipt: 7, trace: 12 });
  t.equal(done.side.journal.inFlight, null);
  const twice = await run({ reversal: [{ end: { aborted: 0xb4 } }] });
  t.same(twice.side.logs, ['reversal of o-1: the terminal says already reversed (B4), so it was; committing the void']);
  t.match((await twice.side.technician())[1], { event: 'reversal', receipt: null, trace: null });
  t.match(twice.side.journal.snapshot.outbox, [{ kind: 'payment' }, { kind: 'void', orderId: 'o-1' }]);
  const declined = await run({
    reversal: [{ statuses: [status({ result: 0x62, amount: 999 })], end: { aborted: 0x62 } }],
  });
  t.same(
    declined.side.answers,
    [POSITIVE],
    "a decline's status information is the reversal's own, whatever its amount",
  );
  t.equal(declined.ok, false);
  t.same(declined.side.held, [
    { kind: 'void', orderId: 'o-1', reason: 'the terminal refused the reversal of receipt 6 (62)' },
  ]);
  t.equal(declined.side.journal.inFlight, null);
  const foreign = await run({ reversal: [{ statuses: [status({ amount: 999, trace: 3 })], end: 'completed' }] });
  t.equal(foreign.side.answers[0]!.ins, 0x83, 'an approval for another amount is not its own');
  t.same(foreign.side.held, [
    { kind: 'void', orderId: 'o-1', reason: 'the terminal refused the reversal of receipt 6 (no result)' },
  ]);
  t.notOk(foreign.side.journal.payment('o-1')?.voided);
  const approvedButAborted = await run({
    reversal: [{ statuses: [status({ amount: 1000, trace: 12 })], end: { aborted: 0x6c } }],
  });
  t.equal(approvedButAborted.ok, false, 'approved, then aborted: not reversed');
  t.match(approvedButAborted.side.held, [{ reason: /\(6C\)$/ }]);
});

t.test('a refund after the end of day: declined or without a result, held with the reason', async (t) => {
  const run = async (scripts: Parameters<typeof bridgeSide>[1]) => {
    const side = await bridgeSide(t, scripts);
    await side.journal.paid({ ...storedPayment, closed: true });
    const outcome = await side.transactions.refundAfterEndOfDay('o-1');
    return { side, outcome };
  };
  const declined = await run({ refund: [{ statuses: [status({ result: 0x05, amount: 1 })], end: { aborted: 0x05 } }] });
  t.same(declined.outcome, { asked: false });
  t.same(declined.side.answers, [POSITIVE], "a decline's status information is the refund's own");
  t.same(declined.side.held, [{ kind: 'void', orderId: 'o-1', reason: 'the terminal did not refund it (05)' }]);
  t.equal(declined.side.journal.inFlight, null);
  const refused = await run({ refund: [{ end: { refused: 0x37 } }] });
  t.same(refused.side.held, [{ kind: 'void', orderId: 'o-1', reason: 'the terminal did not refund it (37)' }]);
  const silent = await run({ refund: [{ end: 'completed' }] });
  t.same(silent.side.held, [{ kind: 'void', orderId: 'o-1', reason: 'the terminal did not refund it (no result)' }]);
  const foreign = await run({ refund: [{ statuses: [status({ amount: 999 })], end: 'completed' }] });
  t.equal(foreign.side.answers[0]!.ins, 0x83);
  t.notOk(foreign.side.journal.payment('o-1')?.voided);
  const done = await run({ refund: [{ statuses: [status({ amount: 1000 })], end: 'completed' }] });
  t.same(done.outcome, { asked: true, recorded: true });
  t.match(done.side.journal.snapshot.outbox, [{ kind: 'payment' }, { kind: 'void', orderId: 'o-1' }]);
  t.match(done.side.journal.inFlight, null);
});

t.test('the payment paths say what they did, in words an operator can act on', async (t) => {
  const approved = await bridgeSide(t, {
    authorisation: [
      { intermediate: 0x0a, statuses: [status({ amount: 1000, trace: 7, receipt: 3 })], end: 'completed' },
    ],
  });
  await pay(approved);
  t.same(approved.debug, ['payment o-1: intermediate status 0A']);
  t.same(approved.logs, [
    'payment o-1 approved: receipt 3, trace 7, authorization T000007R0003; committing it on the server',
  ]);
  const refused = await bridgeSide(t, { authorisation: [{ end: { refused: 0x83 } }] });
  t.equal(await pay(refused), false);
  t.match(refused.journal.declined('payment:o-1'), { resultCode: '83', at: '2026-11-28T10:00:00.000Z' });
  t.same(refused.errors, [
    'payment o-1 not made on the terminal (result 83). The order stays PENDING and is not sent again by itself; to try another card: svc-terminal retry o-1 --state ' +
      refused.state.stateDir +
      ' --serial ZVT-1',
  ]);
  const unproven = await bridgeSide(t, {
    authorisation: [{ statuses: [status({ result: 0x05, amount: 1000 })], end: 'completed' }],
    repeatReceipt: [{ end: { refused: 0x83 } }],
  });
  t.equal(await pay(unproven), false, 'completed with a declined status information: not paid');
  t.same(unproven.logs, ['payment o-1: completed without an approved status information; asking the terminal']);
  t.equal(unproven.transactions.statusOfInFlight(), undefined, 'nothing in flight after it');
  const empty = await bridgeSide(t, {});
  t.equal(empty.transactions.statusOfInFlight(), undefined, 'no transaction: no status');
  t.match(unproven.held, [
    {
      kind: 'charge',
      orderId: 'o-1',
      reason:
        'the payment of o-1 was acknowledged but its end was cut off, and the terminal cannot say what became of it (no repeat receipt)',
    },
  ]);
});

t.test('after a cut: a refund is settled as a payment is; the logs say which way it went', async (t) => {
  const refund: Extract<ZvtInFlight, { kind: 'refund' }> = {
    kind: 'refund',
    orderId: 'o-1',
    amount: 1000,
    currency: 'EUR',
    startedAt: 'then',
  };
  const bare = await bridgeSide(t, {});
  await bare.journal.begin(refund);
  await bare.transactions.resolveUnanswered(refund);
  t.same(bare.logs, [
    'the refund of o-1 had no status information: the terminal stored nothing (PA00P015 §2.2.8); it goes again',
  ]);
  t.equal(bare.journal.inFlight, null);
  const mine = { resultCode: 0, amount: 1000, trace: 14, receipt: 9 };
  const proven = await bridgeSide(t, {
    repeatReceipt: [{ statuses: [status({ amount: 1000, trace: 14, receipt: 9 })], end: 'completed' }],
  });
  await proven.journal.paid({ ...storedPayment, closed: true });
  await proven.journal.begin({ ...refund, status: mine });
  await proven.transactions.resolveUnanswered({ ...refund, status: mine });
  t.match(proven.journal.payment('o-1'), { voided: true });
  t.match((await proven.technician())[1], { event: 'refund', receipt: 9, trace: 14 });
  const unproven = await bridgeSide(t, { repeatReceipt: [{ end: { refused: 0x83 } }] });
  await unproven.journal.begin({ ...refund, status: mine });
  await unproven.transactions.resolveUnanswered({ ...refund, status: mine });
  t.match(unproven.held, [{ kind: 'void', reason: /^the refund of o-1 was acknowledged/ }]);
  const bareLog = await bridgeSide(t, {});
  await bareLog.journal.begin(payment());
  await bareLog.transactions.resolveUnanswered(payment());
  t.same(bareLog.logs, [
    'the payment of o-1 had no status information: the terminal stored nothing (PA00P015 §2.2.8); the order stays PENDING and is sold again',
  ]);
  const other = await cutAfterStatus(t, {
    statuses: [status({ amount: 1000, trace: 10, receipt: 5 })],
    end: 'completed',
  });
  t.same(other.logs, [
    "the payment of o-1 had no end; the terminal's last receipt is 5, not 6: it reversed it by itself, so it was not made",
  ]);
  const noneAtAll = await cutAfterStatus(t, { end: { aborted: 0x83 } });
  t.same(noneAtAll.logs, [
    "the payment of o-1 had no end; the terminal's last receipt is none, not 6: it reversed it by itself, so it was not made",
  ]);
  const reversal = await bridgeSide(t, { reversal: [{ end: { aborted: 0xb4 } }] });
  await reversal.journal.paid(storedPayment);
  await reversal.journal.begin(reversalOf);
  await reversal.transactions.resolveUnanswered(reversalOf);
  t.same(
    reversal.logs[0],
    'the reversal of o-1 (receipt 6) had no end: sending it again (the terminal reverses a receipt once: B4)',
  );
  t.same(reversal.sent, ['reversal']);
});

t.test('an end of day: the settlement in the currency of the open payments, the close marked done', async (t) => {
  const close: Extract<ZvtInFlight, { kind: 'end-of-day' }> = {
    kind: 'end-of-day',
    closeId: 'c-7',
    batchNumber: 'B0003',
    startedAt: 'then',
  };
  const side = await bridgeSide(t, {});
  await side.journal.paid({ ...storedPayment, orderId: 'old', currency: 'USD', closed: true });
  await side.journal.paid({ ...storedPayment, orderId: 'o-2', currency: 'CHF' });
  await side.state.requestClose({ closeId: 'c-7', requestedAt: 'then' });
  await side.journal.begin(close);
  await side.transactions.finishClose(close, { resultCode: 0, endOfDay: { count: 4, total: 9000 } });
  t.match(side.journal.snapshot.outbox.at(-1), {
    kind: 'settlement',
    batchNumber: 'B0003',
    transactionCount: 4,
    currencyReference: 'CHF',
    terminal: 'ZVT-1',
    closedAt: '2026-11-28T10:00:00.000Z',
  });
  t.equal(await side.state.pendingClose(), undefined, 'the close asked for is done');
  t.same(side.logs, [
    'end of day on the terminal: batch B0003, 4 transaction(s), 9000 minor units; sending the settlement',
  ]);
  t.match(side.journal.payment('o-2'), { closed: true });
  const other = await bridgeSide(t, {});
  await other.state.requestClose({ closeId: 'c-8', requestedAt: 'then' });
  await other.journal.begin(close);
  await other.transactions.finishClose(close, { resultCode: 0 });
  t.match(
    other.journal.snapshot.outbox,
    [{ transactionCount: 0, currencyReference: 'EUR' }],
    'no totals: 0; no payments: EUR',
  );
  t.match(await other.state.pendingClose(), { closeId: 'c-8' }, 'a close the terminal did not run for stays asked');
  const sameTrace = await bridgeSide(t, {
    repeatReceipt: [{ statuses: [status({ amount: 3000, trace: 21, totals: true })], end: 'completed' }],
  });
  await sameTrace.journal.begin(close);
  await sameTrace.journal.statusCame({ resultCode: 0, trace: 21 });
  await sameTrace.transactions.resolveUnanswered(close);
  t.same(sameTrace.journal.snapshot.outbox, [], 'an end of day no newer than the last trace seen is not this one');
  t.same(sameTrace.logs, [
    'the end of day had no end, and the terminal shows no newer one: it did not run; it goes again',
  ]);
});
