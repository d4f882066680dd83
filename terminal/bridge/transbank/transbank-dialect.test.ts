import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { askKey } from '../bridge-state.js';
import { SaleJournal } from './sale-journal.js';
import type { Bridge } from '../bridge.js';
import { TransbankPos } from '../../device/transbank/transbank-pos.js';
import { Link } from '../../protocol/link.js';
import { bridgeWorld } from '../../testing/bridge-world.js';
import { socatSkip } from '../../pty-pair.js';
import { waitFor } from '../../../server/testing/wait-for.js';

// The bridge as the cash register of a Transbank POS Integrado, against the
// emulated POS over a real pseudo-terminal pair and a real server: orders
// become sales, declines wait for a cashier, voids become refunds, the day
// closes into one settlement, and a request cut off by a kill is settled
// from the POS's own word before anything else is sent.

const TERMINAL_ID = 'TBK00001';

async function world(t: Test, pos: { cardDelayMs?: number; statePath?: string } = {}) {
  const shared = await bridgeWorld(t, { answerTimeoutMs: 4000 });
  const device = new TransbankPos({
    terminalId: TERMINAL_ID,
    cardDelayMs: pos.cardDelayMs ?? 0,
    ...(pos.statePath ? { statePath: pos.statePath } : {}),
  });
  device.attach(new Link(await shared.open(shared.line.device)));
  const token = shared.merchant.account.key.token;
  const invalidate = async (orderId: string) =>
    (await shared.server.api.post(`${shared.merchant.merchantPath}/transactions/${orderId}/invalidation`, { token }))
      .status;
  const clp = (amount: number) => shared.merchant.createOrder({ amount, currency: 'CLP' });
  return { ...shared, device, invalidate, clp };
}

const cycleUntil = (bridge: Bridge, condition: () => Promise<boolean> | boolean, what: string) =>
  waitFor(
    async () => {
      await bridge.cycle();
      return condition();
    },
    20_000,
    what,
  );

t.test(
  "an order becomes a sale: the intermediate messages are logged, the order is PAID with the POS's authorization code, and the sale's details are kept",
  { skip: socatSkip() },
  async (t) => {
    const { startTransbankBridge, clp, order, device, logs } = await world(t);
    const { bridge, journal, state } = await startTransbankBridge();
    const { orderId } = await clp(15_000);
    await cycleUntil(bridge, async () => (await order(orderId)).status === 'PAID', 'the order to be PAID');
    const sale = device.snapshot.lastSale!;
    t.equal(
      (await order(orderId)).authorizationCode,
      sale.authorizationCode,
      "committed with the POS's authorization code",
    );
    t.match(journal.sale(orderId), {
      ticket: sale.ticket,
      operationNumber: sale.operationNumber,
      cardType: 'CR',
      last4Digits: sale.last4Digits,
      amount: 15_000,
    });
    t.equal(sale.ticket.length, 6, 'a 6-character ticket');
    for (const code of ['78', '79', '80', '81', '82'])
      t.ok(
        logs.some((line) => line.startsWith(`sale ${orderId}: ${code} (`)),
        `status ${code} logged`,
      );
    t.same(journal.snapshot.outbox, [], 'nothing left for the server');
    const recorded = (await readFile(join(state.dir, 'sales.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    t.match(
      recorded,
      [
        {
          event: 'sale',
          orderId,
          ticket: sale.ticket,
          operationNumber: sale.operationNumber,
          cardType: 'CR',
          last4Digits: sale.last4Digits,
        },
      ],
      "the technician's record of the sale",
    );
    t.equal(journal.inFlight, null);
    await bridge.cycle();
    t.equal(device.snapshot.batch.length, 1, 'sold once');
  },
);

t.test(
  'a declined sale stays PENDING, is not sent again by itself, and is sent again when a cashier retries it',
  { skip: socatSkip() },
  async (t) => {
    const { startTransbankBridge, clp, order, device, errors } = await world(t);
    const { bridge, state } = await startTransbankBridge();
    device.operator('next 05');
    const { orderId } = await clp(2_000);
    await cycleUntil(bridge, () => errors.some((line) => line.includes(`sale ${orderId} declined`)), 'the decline');
    t.match(
      errors.join('\n'),
      `sale ${orderId} declined by the POS: 05 (refused; the code is a refund's`,
      "the code, said as a sale's answer",
    );
    t.notMatch(errors.join('\n'), 'declined by the POS: 05 (no such transaction', "not read as a refund's");
    t.match(errors.join('\n'), `svc-terminal retry ${orderId} --state`, 'says how to retry');
    for (let i = 0; i < 3; i += 1) await bridge.cycle();
    t.equal((await order(orderId)).status, 'PENDING', 'left PENDING');
    t.equal(device.snapshot.lastSale, null, 'no sale made');
    t.equal(errors.filter((line) => line.includes('declined')).length, 1, 'declined once, said once');

    await state.requestRetry(orderId, new Date().toISOString());
    await cycleUntil(bridge, async () => (await order(orderId)).status === 'PAID', 'the retried sale');
    t.equal(device.snapshot.batch.length, 1);
  },
);

t.test(
  'each rejection of the response table leaves the order PENDING with its meaning in the log',
  { skip: socatSkip() },
  async (t) => {
    const { startTransbankBridge, clp, order, device, errors } = await world(t);
    const { bridge } = await startTransbankBridge();
    for (const code of ['01', '02', '04', '05', '07', '08', '09', '11', '13', '74', '77', '26']) {
      device.operator(`next ${code}`);
      const { orderId } = await clp(3_000);
      await cycleUntil(
        bridge,
        () => errors.some((line) => line.includes(`sale ${orderId} declined by the POS: ${code} (`)),
        `rc ${code}`,
      );
      t.equal((await order(orderId)).status, 'PENDING', `${code}: PENDING`);
    }
    t.equal(device.snapshot.batch.length, 0);
  },
);

t.test(
  "a void becomes a refund by the sale's operation number; a debit sale, which the POS cannot refund, is held for the operator",
  { skip: socatSkip() },
  async (t) => {
    const { startTransbankBridge, clp, order, device, invalidate, errors } = await world(t);
    const { bridge, state } = await startTransbankBridge();
    const credit = await clp(4_000);
    await cycleUntil(bridge, async () => (await order(credit.orderId)).status === 'PAID', 'the credit sale');
    device.operator('next debit');
    const debit = await clp(5_000);
    await cycleUntil(bridge, async () => (await order(debit.orderId)).status === 'PAID', 'the debit sale');

    t.equal(await invalidate(credit.orderId), 200);
    t.equal(await invalidate(debit.orderId), 200);
    await cycleUntil(bridge, async () => (await order(credit.orderId)).status === 'VOIDED', 'the refund');
    t.ok(
      device.snapshot.batch.find((sale) => sale.ticket === device.snapshot.batch[0]!.ticket)?.refunded,
      'refunded on the POS',
    );
    await cycleUntil(bridge, async () => (await state.listHeldAsks()).length === 1, 'the debit refund held');
    const [held] = await state.listHeldAsks();
    t.match(held, {
      key: askKey('void', debit.orderId),
      kind: 'void',
      orderId: debit.orderId,
      reason: /cannot refund a debit sale \(08/,
    });
    t.equal((await order(debit.orderId)).status, 'VOID_PENDING', 'left for the operator');
    t.match(errors.join('\n'), `HELD refund of ${debit.orderId}`);
    for (let i = 0; i < 3; i += 1) await bridge.cycle();
    t.equal(errors.filter((line) => line.startsWith(`HELD refund of ${debit.orderId}`)).length, 1, 'held once');
  },
);

t.test(
  "closing the day: totals, close, one settlement in CLP with the device's count and the bridge's batch number",
  { skip: socatSkip() },
  async (t) => {
    const { startTransbankBridge, clp, order, device, settlements, logs } = await world(t);
    const { bridge, journal } = await startTransbankBridge();
    for (const amount of [1_000, 2_500]) {
      const { orderId } = await clp(amount);
      await cycleUntil(bridge, async () => (await order(orderId)).status === 'PAID', 'a sale');
    }
    await bridge.requestClose();
    await cycleUntil(bridge, async () => (await settlements()).length === 1, 'the settlement');
    const [settlement] = await settlements();
    t.match(settlement, { batchNumber: 'B0001', transactionCount: 2, currencyReference: 'CLP', debitBatch: 'D0001' });
    t.equal(device.snapshot.batch.length, 0, 'the POS closed its batch');
    t.equal(device.snapshot.closes, 1);
    t.ok(logs.some((line) => /day closed on the POS: batch B0001, 2 sale\(s\), 3500 CLP/.test(line)));
    t.same(journal.snapshot.sales, {}, "the batch's sales are forgotten");
    await bridge.requestClose();
    await cycleUntil(bridge, async () => (await settlements()).length === 2, 'the second day');
    t.match((await settlements())[1], { batchNumber: 'B0002', transactionCount: 0 });
  },
);

t.test('an order a POS cannot carry is held with the reason, never truncated', { skip: socatSkip() }, async (t) => {
  const { startTransbankBridge, merchant, order, device, errors } = await world(t);
  const { bridge, state } = await startTransbankBridge();
  const usd = await merchant.createOrder({ amount: 1500, currency: 'USD' });
  const huge = await merchant.createOrder({ amount: 1_000_000_000, currency: 'CLP' });
  await cycleUntil(bridge, async () => (await state.listHeldAsks()).length === 2, 'both held');
  const reasons = Object.fromEntries((await state.listHeldAsks()).map((held) => [held.orderId, held.reason]));
  t.match(reasons[usd.orderId], /currency is USD; a Transbank POS sells in Chilean pesos \(CLP\) only/);
  t.match(reasons[huge.orderId], /more than 9 digits/);
  t.equal((await order(usd.orderId)).status, 'PENDING');
  t.equal(device.snapshot.lastSale, null, 'nothing sent to the POS');
  await bridge.cycle();
  t.equal(errors.filter((line) => line.startsWith('HELD sale')).length, 2, 'each said once');
  // The operator discards one: it is not held or sold again.
  await state.decideAny(askKey('charge', usd.orderId), {
    action: 'discard',
    reason: 'charged in cash',
    decidedAt: new Date().toISOString(),
  });
  await bridge.cycle();
  await bridge.cycle();
  t.equal((await state.listHeldAsks()).length, 1);
  t.equal(device.snapshot.lastSale, null);
});

t.test(
  'a sale whose answer a kill cut off: the next bridge asks the POS for its last sale, finds the ticket, and commits it once',
  { skip: socatSkip() },
  async (t) => {
    const { startTransbankBridge, clp, order, device, logs } = await world(t, { cardDelayMs: 600 });
    const first = await startTransbankBridge();
    const { orderId } = await clp(7_000);
    const running = first.bridge.run();
    await waitFor(
      async () => (await SaleJournal.open(first.state.dir)).inFlight !== null,
      10_000,
      'the sale journaled',
    );
    await waitFor(
      () => logs.some((line) => line.startsWith(`sale ${orderId}: 78 (`)),
      10_000,
      'the POS working the sale',
    );
    await first.bridge.stop(); // as a kill: the POS goes on and makes the sale, its answer goes nowhere
    await running;

    // Restarted at once: the POS is still at work on the sale, and answers the last sale once it is done.
    const second = await startTransbankBridge();
    t.match(second.journal.inFlight, { kind: 'sale', orderId }, 'the journal kept the sale in flight');
    await cycleUntil(second.bridge, async () => (await order(orderId)).status === 'PAID', 'the sale committed');
    t.equal((await order(orderId)).authorizationCode, device.snapshot.lastSale!.authorizationCode);
    t.equal(device.snapshot.batch.length, 1, 'one sale on the POS');
    t.ok(logs.some((line) => line.includes("had no answer; the POS's last sale says what became of it")));
  },
);

t.test(
  "a sale journaled but never sent (killed in between): the POS's last sale is another ticket, so the order is sold, once",
  { skip: socatSkip() },
  async (t) => {
    const { startTransbankBridge, clp, order, device, logs } = await world(t);
    const before = await clp(1_200);
    const first = await startTransbankBridge();
    await cycleUntil(first.bridge, async () => (await order(before.orderId)).status === 'PAID', 'an earlier sale');
    await first.bridge.stop();
    const { orderId } = await clp(8_000);
    const ticket = await first.journal.ticketFor(orderId);
    await first.journal.begin({ kind: 'sale', orderId, ticket, amount: 8_000, startedAt: new Date().toISOString() });

    const second = await startTransbankBridge();
    await cycleUntil(second.bridge, async () => (await order(orderId)).status === 'PAID', 'the order sold');
    t.equal(device.snapshot.batch.length, 2, 'one sale each');
    t.ok(
      logs.some((line) =>
        line.includes(
          `the sale of ${orderId} (ticket ${ticket}) had no answer and was not made: the POS's last sale is ticket`,
        ),
      ),
    );
  },
);

t.test(
  'a close whose answer was lost: an empty batch on the POS proves it closed (one settlement); sales still there are closed again',
  { skip: socatSkip() },
  async (t) => {
    const { startTransbankBridge, clp, order, device, settlements, open, line } = await world(t);
    const first = await startTransbankBridge();
    const { orderId } = await clp(9_000);
    await cycleUntil(first.bridge, async () => (await order(orderId)).status === 'PAID', 'a sale');
    await first.bridge.stop();
    // Journaled and not sent: the POS still has its sale, so the close is made again.
    await first.bridge.requestClose();
    const pending = await first.state.pendingClose();
    await first.journal.begin({
      kind: 'close',
      closeId: pending!.closeId,
      batchNumber: first.journal.nextBatchNumber,
      transactionCount: 1,
      total: 9_000,
      startedAt: new Date().toISOString(),
    });
    const second = await startTransbankBridge();
    await cycleUntil(second.bridge, async () => (await settlements()).length === 1, 'the settlement');
    t.match((await settlements())[0], { batchNumber: 'B0001', transactionCount: 1 });
    t.equal(device.snapshot.closes, 1, 'closed once');
    await second.bridge.stop();

    // Sent and closed, the answer lost: the POS's batch is empty, so it is not closed again.
    const next = await clp(1_100);
    const third = await startTransbankBridge();
    await cycleUntil(third.bridge, async () => (await order(next.orderId)).status === 'PAID', 'a sale of the next day');
    await third.bridge.stop();
    await third.bridge.requestClose();
    const close = await third.state.pendingClose();
    await third.journal.begin({
      kind: 'close',
      closeId: close!.closeId,
      batchNumber: third.journal.nextBatchNumber,
      transactionCount: 1,
      total: 1_100,
      startedAt: new Date().toISOString(),
    });
    // The close on the line and answered, the bridge gone before it heard: a cash register of the test's own sends it.
    const hostPort = await open(line.host);
    const host = new Link(hostPort);
    const answered = new Promise<string>((resolve) => host.once('message', resolve));
    await host.send('0500||');
    t.match(await answered, /^0510\|00\|/);
    await new Promise((resolve) => hostPort.close(resolve));
    t.equal(device.snapshot.closes, 2);
    const fourth = await startTransbankBridge();
    await cycleUntil(fourth.bridge, async () => (await settlements()).length === 2, 'the second settlement');
    t.match((await settlements())[1], { batchNumber: 'B0002', transactionCount: 1 });
    await fourth.bridge.cycle();
    t.equal(device.snapshot.closes, 2, 'not closed again');
    t.equal((await settlements()).length, 2);
  },
);
