import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { readStatus } from '../../bridge/zvt/status-reading.js';
import { bcdNumber } from '../../protocol/zvt/bcd.js';
import { encodeFields } from '../../protocol/zvt/bitmaps.js';
import { command, refused } from '../../protocol/zvt/messages.js';
import { accept, terminalAndRegister, type Handlers } from './zvt-ecr-testkit.js';

// Pre-authorisation (PA00P015 §2.8-§2.14), as an EV charger or a hotel uses
// it: 06 22 reserves, 06 24 books what was used, 06 23 releases what was
// not, 06 25 releases it all; 06 23 87 FF FF asks which one is open.

const money = (amount: number) => ({ bmp: 0x04, value: bcdNumber(amount, 6) });
const receiptOf = (receipt: number) => ({ bmp: 0x87, value: bcdNumber(receipt, 2) });

async function charger(t: Parameters<typeof terminalAndRegister>[0], statePath?: string) {
  const kit = await terminalAndRegister(t, statePath ? { statePath } : {});
  const { ecr } = kit;
  const reserve = (amount: number, handlers: Handlers = accept) =>
    ecr.transact(
      command('reservation', encodeFields([money(amount), { bmp: 0x49, value: bcdNumber(978, 2) }])),
      true,
      handlers,
    );
  const bookTotal = (receipt: number, used?: number, handlers: Handlers = accept) =>
    ecr.transact(
      command('bookTotal', encodeFields([receiptOf(receipt), ...(used !== undefined ? [money(used)] : [])])),
      true,
      handlers,
    );
  const partialReversal = (receipt: number, unused: number, handlers: Handlers = accept) =>
    ecr.transact(command('partialReversal', encodeFields([receiptOf(receipt), money(unused)])), true, handlers);
  const release = (receipt: number) =>
    ecr.transact(command('reservationReversal', encodeFields([receiptOf(receipt)])), true, accept);
  const openOne = async () => {
    const done = await ecr.transact(command('partialReversal', Buffer.from('87ffff', 'hex')), true);
    return done.outcome === 'aborted' ? done.data.toString('hex') : `not aborted: ${done.outcome}`;
  };
  const endOfDay = async () => {
    const done = await ecr.transact(command('endOfDay', kit.password), true, accept);
    return done.outcome === 'completed' ? readStatus(done.statuses[0]!) : undefined;
  };
  const receiptOfReservation = (done: Awaited<ReturnType<typeof reserve>>) =>
    done.outcome === 'completed' ? readStatus(done.statuses[0]!).receipt! : -1;
  return { ...kit, reserve, bookTotal, partialReversal, release, openOne, endOfDay, receiptOfReservation };
}

t.test('reserve 50.00, book 23.45: no receipt for the reservation, the booking in the end of day', async (t) => {
  const { register, reserve, bookTotal, endOfDay, terminal, receiptOfReservation } = await charger(t);
  await register(0x82); // payment receipts printed by the cash register, as print lines
  const reserved = await reserve(5000);
  t.equal(reserved.outcome, 'completed');
  t.same(
    reserved.outcome === 'completed' && reserved.printed,
    [],
    'no receipt for a reservation that succeeds (§2.2.7)',
  );
  const status = reserved.outcome === 'completed' ? readStatus(reserved.statuses[0]!) : undefined;
  t.match(status, { resultCode: 0, amount: 5000 }, 'status information with the amount');
  t.ok(status?.trace && status.receipt && status.aid, 'trace, receipt and AID');
  t.equal(terminal.snapshot.reservations.length, 1);
  t.equal(terminal.snapshot.turnover.length, 0, 'a reservation is not in the turnover');
  const booked = await bookTotal(receiptOfReservation(reserved), 2345);
  t.equal(booked.outcome, 'completed');
  t.match(booked.outcome === 'completed' && readStatus(booked.statuses[0]!), {
    amount: 2345,
    originalTrace: status!.trace,
  });
  t.ok(booked.outcome === 'completed' && booked.printed.includes('PRE-AUTH. BOOKED'), 'the receipt now');
  t.equal(terminal.snapshot.reservations.length, 0);
  t.match(await endOfDay(), { amount: 2345, endOfDay: { count: 1 } }, 'the totals are what was booked');
});

t.test('book total without an amount books the whole reservation; B7 past it; B8 once booked', async (t) => {
  const { register, reserve, bookTotal, endOfDay, receiptOfReservation } = await charger(t);
  await register(0x00);
  const receipt = receiptOfReservation(await reserve(3000));
  t.match(await bookTotal(receipt, 3001), { outcome: 'aborted', resultCode: 0xb7 }, 'more than reserved');
  t.equal((await bookTotal(receipt)).outcome, 'completed');
  t.match(await bookTotal(receipt), { outcome: 'aborted', resultCode: 0xb8 }, 'booked already');
  t.match(await bookTotal(4321), { outcome: 'aborted', resultCode: 0xb8 }, 'unknown');
  t.match(await endOfDay(), { amount: 3000 });
});

t.test('partial reversal releases the unused amount; 06 25 releases it all; neither counts twice', async (t) => {
  const { register, reserve, partialReversal, release, endOfDay, receiptOfReservation, terminal } = await charger(t);
  await register(0x00);
  const first = receiptOfReservation(await reserve(5000));
  const second = receiptOfReservation(await reserve(2000));
  const partly = await partialReversal(first, 1800);
  t.match(partly.outcome === 'completed' && readStatus(partly.statuses[0]!), { amount: 3200 }, 'booked: 5000 - 1800');
  t.match(await partialReversal(first, 100), { outcome: 'aborted', resultCode: 0xb8 });
  t.match(await partialReversal(second, 2001), { outcome: 'aborted', resultCode: 0xb7 });
  const released = await release(second);
  t.equal(released.outcome, 'completed');
  t.match(await release(second), { outcome: 'aborted', resultCode: 0xb8 }, 'released already');
  t.equal(terminal.snapshot.reservations.length, 0);
  t.match(await endOfDay(), { amount: 3200, endOfDay: { count: 1 } });
});

t.test('06 23 87 FF FF: 06 1E B8 87 with the first open receipt, FF FF when none', async (t) => {
  const { register, reserve, release, openOne, receiptOfReservation } = await charger(t);
  await register(0x00);
  t.equal(await openOne(), 'b887ffff', 'none open');
  const first = receiptOfReservation(await reserve(1000));
  const second = receiptOfReservation(await reserve(1000));
  t.equal(await openOne(), `b887${bcdNumber(first, 2).toString('hex')}`);
  await release(first);
  t.equal(await openOne(), `b887${bcdNumber(second, 2).toString('hex')}`);
});

t.test(
  'a reservation never acknowledged is released by the terminal; a booking not taken leaves it open',
  async (t) => {
    const { register, reserve, bookTotal, terminal, receiptOfReservation } = await charger(t);
    await register(0x00);
    t.match(await reserve(4000, { onStatus: async () => refused(0x66) }), { outcome: 'aborted', resultCode: 0x6c });
    t.equal(terminal.snapshot.reservations.length, 0, 'nothing reserved');
    t.match(terminal.snapshot.journal, [{ event: /auto-reversal of pre-authorisation .* 4000 minor units/ }]);
    const receipt = receiptOfReservation(await reserve(4000));
    t.match(await bookTotal(receipt, 1000, { onStatus: async () => refused(0x66) }), {
      outcome: 'aborted',
      resultCode: 0x6c,
    });
    t.equal(terminal.snapshot.reservations.length, 1, 'still open');
    t.equal(terminal.snapshot.turnover.length, 0, 'nothing booked');
    t.equal((await bookTotal(receipt, 1000)).outcome, 'completed', 'booked on the second try');
  },
);

t.test('open reservations outlive an end of day and a restart with --state', async (t) => {
  const statePath = join(mkdtempSync(join(tmpdir(), 'zvt-preauth-')), 'terminal.json');
  const first = await charger(t, statePath);
  await first.register(0x00);
  const receipt = first.receiptOfReservation(await first.reserve(6000));
  t.match(await first.endOfDay(), { amount: 0 }, 'a reservation is not settled by an end of day');
  first.line.close();
  const second = await charger(t, statePath);
  await second.register(0x00);
  t.equal(await second.openOne(), `b887${bcdNumber(receipt, 2).toString('hex')}`, 'still open after the restart');
  t.equal((await second.bookTotal(receipt, 5555)).outcome, 'completed');
  t.match(await second.endOfDay(), { amount: 5555 });
});

t.test('a reservation extension (a trace number in 06 22) is refused 84 83, not taken as a new one', async (t) => {
  const { ecr, register } = await charger(t);
  await register(0x00);
  const extension = await ecr.transact(
    command('reservation', encodeFields([money(1000), { bmp: 0x0b, value: bcdNumber(7, 3) }])),
    true,
    accept,
  );
  t.match(extension, { outcome: 'refused', error: 0x83 });
});
