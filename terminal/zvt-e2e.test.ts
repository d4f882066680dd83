import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { waitFor } from '../server/testing/wait-for.js';
import { socatSkip } from './pty-pair.js';
import { cutter, zvtWorld } from './testing/zvt-world.js';

// The bridge as the cash register of an emulated ZVT terminal, over TCP and
// over a real pseudo-terminal pair: EUR orders to PAID, a void to VOIDED by
// a reversal (by refund once an end of day closed the payment), a close to
// one settlement; and the windows of PA00P015 §2.2.8 cut on purpose.

async function sellVoidClose(t: Test, transport: 'tcp' | 'serial') {
  const world = await zvtWorld(t, transport);
  const { merchant, order, startBridge, voidOrder, settlements, terminal } = world;
  const { bridge } = await startBridge();
  const running = bridge.run();
  t.teardown(() => running);
  const first = await merchant.createOrder({ orderId: `${transport}-1`, amount: 2500, currency: 'EUR' });
  const second = await merchant.createOrder({ orderId: `${transport}-2`, amount: 1990, currency: 'EUR' });
  await waitFor(
    async () => (await order(first.orderId)).status === 'PAID' && (await order(second.orderId)).status === 'PAID',
    20_000,
    'both orders PAID',
  );
  const paid = await order(first.orderId);
  t.match(paid, { status: 'PAID', amount: 2500, history: [{ from: 'PENDING', to: 'PAID', actor: 'pos' }] });
  t.match(paid.authorizationCode, /^\d{6}$/, 'the authorization code is bitmap 3B');
  t.equal(terminal.snapshot.turnover.length, 2, 'the terminal stored both');

  t.equal((await voidOrder(first.orderId)).status, 200);
  await waitFor(async () => (await order(first.orderId)).status === 'VOIDED', 20_000, 'the void VOIDED');
  t.match(
    terminal.snapshot.turnover.find((stored) => stored.kind === 'payment' && stored.amount === 2500),
    { reversed: true },
    'reversed on the terminal by its receipt number',
  );

  await bridge.requestClose();
  await waitFor(async () => (await settlements()).length === 1, 20_000, 'one settlement');
  t.match(await settlements(), [{ batchNumber: 'B0001', transactionCount: 1, currencyReference: 'EUR' }]);
  t.equal(terminal.snapshot.turnover.length, 0, 'the end of day closed the turnover');

  // Voided after the end of day: the terminal no longer reverses it (B5); the bridge refunds it.
  t.equal((await voidOrder(second.orderId)).status, 200);
  await waitFor(async () => (await order(second.orderId)).status === 'VOIDED', 20_000, 'the late void VOIDED');
  t.match(terminal.snapshot.turnover, [{ kind: 'refund', amount: 1990 }]);
  t.same(world.errors, [], 'nothing held or refused');
  await bridge.stop();
}

t.test('over TCP: payments, a reversal, an end of day, a refund after it', (t) => sellVoidClose(t, 'tcp'));
t.test('over a serial line (a pty pair, 9600 8N2): the same', { skip: socatSkip() }, (t) => sellVoidClose(t, 'serial'));

const isStatusInformation = (bytes: Buffer) => bytes.includes(Buffer.of(0x04, 0x0f));

async function cutBeforeTheAnswer(t: Test, cut: 'before-the-bridge-hears-it' | 'before-the-terminal-hears-the-answer') {
  const world = await zvtWorld(t, 'tcp');
  const { merchant, order, startBridge, terminal } = world;
  let sawStatus = false;
  const { bridge } = await startBridge(
    cut === 'before-the-bridge-hears-it'
      ? cutter((bytes, direction) => direction === 'in' && isStatusInformation(bytes))
      : cutter(
          (bytes, direction) => {
            if (direction === 'in' && isStatusInformation(bytes)) sawStatus = true;
            return direction === 'out' && sawStatus && bytes.equals(Buffer.of(0x80, 0x00, 0x00));
          },
          { deliverLast: false },
        ),
  );
  {
    await merchant.createOrder({ orderId: 'cut-before', amount: 1200, currency: 'EUR' });
    await t.rejects(bridge.cycle(), 'the cycle fails with the line');
    await waitFor(async () => terminal.snapshot.journal.length === 1, 5000, 'the auto-reversal');
    t.match(terminal.snapshot.journal[0]!.event, /auto-reversal of payment/);
    t.equal((await order('cut-before')).status, 'PENDING');
    await bridge.stop();
    const again = await startBridge();
    const running = again.bridge.run();
    t.teardown(() => running);
    await waitFor(async () => (await order('cut-before')).status === 'PAID', 20_000, 'sold again and PAID');
    t.equal(terminal.snapshot.turnover.length, 1, 'stored once on the terminal');
    t.ok(
      world.logs.some((line) =>
        cut === 'before-the-bridge-hears-it'
          ? /had no status information: the terminal stored nothing/.test(line)
          : /reversed it by itself, so it was not made/.test(line),
      ),
      'the bridge settled it as the terminal did',
    );
    await again.bridge.stop();
  }
}

t.test(
  'the line drops as the status information comes, before the bridge hears it: the terminal reverses it, the order is sold again, paid once',
  (t) => cutBeforeTheAnswer(t, 'before-the-bridge-hears-it'),
);

t.test(
  'the bridge journaled the status information but its answer never reached the terminal: reversed there, the repeat receipt says so, sold again, paid once',
  (t) => cutBeforeTheAnswer(t, 'before-the-terminal-hears-the-answer'),
);

t.test(
  'the line drops right after the bridge acknowledged the status information: the terminal stored it, and the repeat receipt proves it',
  async (t) => {
    const world = await zvtWorld(t, 'tcp');
    const { merchant, order, startBridge, terminal } = world;
    let sawStatus = false;
    const { bridge } = await startBridge(
      cutter((bytes, direction) => {
        if (direction === 'in' && isStatusInformation(bytes)) sawStatus = true;
        return direction === 'out' && sawStatus && bytes.equals(Buffer.of(0x80, 0x00, 0x00));
      }),
    );
    await merchant.createOrder({ orderId: 'cut-after', amount: 1300, currency: 'EUR' });
    await t.rejects(bridge.cycle());
    await waitFor(async () => terminal.snapshot.turnover.length === 1, 5000, 'the terminal to store it');
    t.equal((await order('cut-after')).status, 'PENDING', 'not committed before the terminal says so');
    await bridge.stop();
    const again = await startBridge();
    const running = again.bridge.run();
    t.teardown(() => running);
    await waitFor(async () => (await order('cut-after')).status === 'PAID', 20_000, 'PAID from the repeat receipt');
    t.equal(terminal.snapshot.turnover.length, 1, 'paid once');
    t.ok(world.logs.some((line) => /the terminal's last receipt \(\d+\) is it: it was stored/.test(line)));
    await again.bridge.stop();
  },
);

t.test('a declined payment leaves the order PENDING, not sent again by itself', async (t) => {
  const world = await zvtWorld(t, 'tcp');
  const { merchant, order, startBridge } = world;
  const { bridge } = await startBridge();
  await merchant.createOrder({ orderId: 'declined-5', amount: 5, currency: 'EUR' });
  await bridge.cycle();
  await bridge.cycle();
  t.equal((await order('declined-5')).status, 'PENDING');
  t.match(
    world.errors.join('\n'),
    /payment declined-5 not made on the terminal \(result 05\)[\s\S]*svc-terminal retry declined-5/,
  );
  t.equal(world.errors.length, 1, 'said once');
  await bridge.stop();
});

t.test('an order in a currency the terminal does not take is held, never converted', async (t) => {
  const world = await zvtWorld(t, 'tcp');
  const { merchant, startBridge } = world;
  const { bridge } = await startBridge();
  await merchant.createOrder({ orderId: 'usd-1', amount: 1500, currency: 'USD' });
  await bridge.cycle();
  t.match(world.errors.join('\n'), /HELD payment of usd-1: the terminal does not take USD \(06 1E 6F\)/);
  await bridge.stop();
});

t.test('a terminal in status 51 or C2 is initialised or diagnosed by the bridge, journaled, then sells', async (t) => {
  const world = await zvtWorld(t, 'tcp');
  const { merchant, order, startBridge, terminal } = world;
  const { bridge, state } = await startBridge();
  terminal.operator('set-status 51');
  await merchant.createOrder({ orderId: 'after-51', amount: 700, currency: 'EUR' });
  await bridge.cycle();
  t.equal(terminal.snapshot.terminalStatus, 0x00, 'initialised');
  t.equal((await order('after-51')).status, 'PAID', 'and sold in the same cycle');
  terminal.operator('set-status C2');
  await bridge.cycle();
  t.equal(terminal.snapshot.terminalStatus, 0x00, 'diagnosed');
  t.ok(
    world.logs.some((line) => /status 51 \(initialisation required\): running its initialisation \(06 93\)/.test(line)),
  );
  t.ok(world.logs.some((line) => /status C2 \(diagnosis required\): running its diagnosis \(06 70\)/.test(line)));
  const journal = readFileSync(join(state.dir, 'sales.jsonl'), 'utf8');
  t.match(journal, /"event":"initialisation","terminalStatus":"51","outcome":"done"/);
  t.match(journal, /"event":"diagnosis","terminalStatus":"C2","outcome":"done"/);
  t.same(world.errors, []);
  await bridge.stop();
});
