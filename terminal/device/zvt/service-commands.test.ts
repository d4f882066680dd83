import t from 'tap';
import { bcdNumber, packBcd } from '../../protocol/zvt/bcd.js';
import { encodeFields, fieldOf } from '../../protocol/zvt/bitmaps.js';
import { command } from '../../protocol/zvt/messages.js';
import { encodeTlv, tlv } from '../../protocol/zvt/tlv.js';
import { accept, terminalAndRegister } from './zvt-ecr-testkit.js';

// The service commands (PA00P015 §2.17, §2.18, §2.21, §2.26, §2.44-§2.46):
// diagnosis and initialisation clear the status that asks for them, read
// card hands the line back with its status information, reset, print
// system configuration, set terminal id, display text.

const pay1000 = encodeFields([{ bmp: 0x04, value: bcdNumber(1000, 6) }]);

t.test('diagnosis: 04 01 with the date and time, a receipt, 06 0F; status C2 cleared, money taken again', async (t) => {
  const { ecr, register, terminal } = await terminalAndRegister(t, { clock: () => new Date('2026-11-28T09:08:07Z') });
  await register(0x84 | 0x02); // the cash register prints every receipt, as print lines
  terminal.operator('set-status C2');
  t.match(await ecr.transact(command('authorisation', pay1000), true, accept), { outcome: 'refused', error: 0xc2 });
  const dates: string[] = [];
  const type = encodeFields([{ bmp: 0x06, value: encodeTlv([tlv('1B', Buffer.of(0x01))]) }]);
  const done = await ecr.transact(command('diagnosis', type), true, {
    onDateTime: (data) => dates.push(data.toString('hex')),
  });
  t.equal(done.outcome, 'completed');
  t.same(dates, ['aa2611280c090807'], 'AA YYMMDD 0C HHMMSS (§3.4)');
  t.ok(done.outcome === 'completed' && done.printed.some((line) => line.includes('line')), 'type 01: line diagnosis');
  t.equal(terminal.snapshot.terminalStatus, 0x00);
  t.equal((await ecr.transact(command('authorisation', pay1000), true, accept)).outcome, 'completed');
});

t.test('initialisation: with the password; status 51 cleared; 84 6B for money before it', async (t) => {
  const { ecr, register, terminal, password } = await terminalAndRegister(t);
  await register(0x00);
  terminal.operator('set-status 51');
  t.match(await ecr.transact(command('authorisation', pay1000), true, accept), { outcome: 'refused', error: 0x6b });
  t.match(await ecr.transact(command('initialisation', packBcd('999999')), true), { outcome: 'refused', error: 0x37 });
  t.equal((await ecr.transact(command('initialisation', password), true)).outcome, 'completed');
  t.equal(terminal.snapshot.terminalStatus, 0x00);
  t.equal((await ecr.transact(command('authorisation', pay1000), true, accept)).outcome, 'completed');
});

t.test(
  'set terminal id: F0 with a turnover; then the new id, status 51, and bitmap 29 after a registration',
  async (t) => {
    const { ecr, register, terminal, password } = await terminalAndRegister(t);
    await register(0x00);
    await ecr.transact(command('authorisation', pay1000), true, accept);
    const setId = (id?: string) =>
      ecr.transact(
        command(
          'setTerminalId',
          Buffer.concat([password, id ? encodeFields([{ bmp: 0x29, value: packBcd(id) }]) : Buffer.alloc(0)]),
        ),
        true,
      );
    t.match(await setId('87654321'), { outcome: 'aborted', resultCode: 0xf0 }, 'an end of day is open');
    await ecr.transact(command('endOfDay', password), true, accept);
    t.equal((await setId('87654321')).outcome, 'completed');
    t.equal(terminal.snapshot.terminalStatus, 0x51, 'initialisation required');
    await ecr.transact(command('initialisation', password), true);
    const registered = await register(0x00);
    t.ok(
      registered.outcome === 'completed' && registered.data.includes(Buffer.from('2987654321', 'hex')),
      'the new id',
    );
    t.equal((await setId()).outcome, 'completed', 'without bitmap 29: reset');
    t.equal(terminal.snapshot.terminalId, '12345678', 'its own id again');
  },
);

t.test('read card: the card data hands the line back; the time-out and 06 B0 end it with 06 1E 6C', async (t) => {
  const { ecr, register } = await terminalAndRegister(t, { cardDelayMs: 2000 });
  await register(0x00);
  const read = await ecr.transact(command('readCard', Buffer.of(5)), true, {
    endsWithStatus: true,
    onStatus: async (fields) => {
      t.match(fieldOf(fields, 0x23)?.toString('hex'), /^e{12}\d{4}d\d{4}201$/, 'track 2, masked');
      return accept.onStatus();
    },
  });
  t.match(read, { outcome: 'completed', data: Buffer.alloc(0) }, 'no Completion: the status information hands back');
  t.match(
    await ecr.transact(command('readCard', Buffer.of(1)), true),
    { outcome: 'aborted', resultCode: 0x6c },
    '1 s: no card',
  );
  const waiting = ecr.transact(command('readCard', Buffer.of(0)), true);
  await new Promise((resolve) => setTimeout(resolve, 5));
  await ecr.cancel();
  t.match(await waiting, { outcome: 'aborted', resultCode: 0x6c }, '06 B0 meanwhile');
});

t.test('reset, print system configuration, display text', async (t) => {
  const { ecr, register, terminal, log } = await terminalAndRegister(t);
  await register(0x84 | 0x02);
  t.match(await ecr.transact(command('reset'), true), { outcome: 'completed' });
  const printed = await ecr.transact(command('printConfiguration'), true);
  t.ok(printed.outcome === 'completed' && printed.printed.includes('** CONFIGURATION **'));
  t.ok(printed.outcome === 'completed' && printed.printed.some((line) => /Receipt width: +24/.test(line)));
  const text = encodeFields([
    { bmp: 0xf0, value: Buffer.of(5) },
    { bmp: 0xf1, value: Buffer.from('Charging', 'latin1') },
    { bmp: 0xf2, value: Buffer.from('12.3 kWh', 'latin1') },
  ]);
  t.match(await ecr.transact(command('displayText', text), false), { outcome: 'completed' }, '80 00 and no Completion');
  t.match(terminal.operator('status'), /display: Charging \| 12\.3 kWh/);
  t.ok(log.some((line) => line.includes('restarted')));
});
