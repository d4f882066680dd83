import t from 'tap';
import { readStatus } from '../../bridge/zvt/status-reading.js';
import { apdu } from '../../protocol/zvt/apdu.js';
import { bcdNumber, packBcd } from '../../protocol/zvt/bcd.js';
import { encodeFields } from '../../protocol/zvt/bitmaps.js';
import { command, POSITIVE, refused } from '../../protocol/zvt/messages.js';
import { constructed, encodeTlv, tlv } from '../../protocol/zvt/tlv.js';
import { accept, terminalAndRegister } from './zvt-ecr-testkit.js';

// The emulated terminal's rules, with a cash register of the bridge's own
// (EcrSession) over TCP (zvt-ecr-testkit.ts). Time runs 100 times fast: T3,
// the 2 s of 84 9C.

t.test(
  'registration: the completion carries the status byte and the terminal id; the config byte decides the receipts',
  async (t) => {
    const { register, terminal, pay } = await terminalAndRegister(t);
    const done = await register(0x8a); // print lines, payment receipts by the ECR, intermediate status
    t.equal(done.outcome, 'completed');
    t.ok(done.outcome === 'completed' && done.data.includes(Buffer.from('2912345678', 'hex')), 'bitmap 29, BCD');
    t.equal(terminal.snapshot.registration.configByte, 0x8a);
    const paid = await pay(2500);
    t.equal(paid.outcome, 'completed');
    t.ok(paid.outcome === 'completed' && paid.printed.length > 5, 'the receipt came as print lines');
    t.ok(paid.outcome === 'completed' && paid.printed.includes('APPROVED'));
  },
);

t.test('a registration listing 06 D3 in its permitted commands (tag 26) gets text blocks', async (t) => {
  const { register, pay } = await terminalAndRegister(t);
  const permitted = encodeTlv([constructed('26', [tlv('0A', Buffer.of(0x06, 0xd3))])]);
  const done = await register(0x82, encodeFields([{ bmp: 0x06, value: permitted }]));
  t.ok(done.outcome === 'completed' && done.data.includes(Buffer.of(0x26)), 'TLV back only because the ECR sent some');
  const paid = await pay(100);
  t.ok(paid.outcome === 'completed' && paid.printed.includes('APPROVED'), 'read from tag 25 / 07');
});

t.test(
  'declined payments: status information with the result code, then 06 1E with it; 0x10 goes through',
  async (t) => {
    const { register, pay } = await terminalAndRegister(t);
    await register(0x00);
    for (const cents of [5, 16, 99]) {
      const done = await pay(cents);
      t.match(done, { outcome: 'aborted', resultCode: cents });
      t.equal(done.outcome === 'aborted' && readStatus(done.statuses[0]!).resultCode, cents);
    }
  },
);

t.test('a wrong password is answered 84 37; an unknown command and an unknown bitmap 84 83', async (t) => {
  const { ecr } = await terminalAndRegister(t);
  t.match(await ecr.transact(command('endOfDay', packBcd('123456')), true, accept), {
    outcome: 'refused',
    error: 0x37,
  });
  t.match(await ecr.transact(apdu(0x06, 0x99), true), { outcome: 'refused', error: 0x83 });
  t.match(await ecr.transact(command('authorisation', Buffer.from('040000000001005f01', 'hex')), true, accept), {
    outcome: 'refused',
    error: 0x83,
  });
  t.match(
    await ecr.transact(command('authorisation', Buffer.from('4909 78', 'hex')), true, accept),
    { outcome: 'refused', error: 0x9a },
    'no amount',
  );
});

t.test('a currency the terminal does not take: 06 1E 6F with its own currency', async (t) => {
  const { ecr } = await terminalAndRegister(t);
  const done = await ecr.transact(
    command(
      'authorisation',
      encodeFields([
        { bmp: 0x04, value: bcdNumber(100, 6) },
        { bmp: 0x49, value: bcdNumber(756, 2) },
      ]),
    ),
    true,
  );
  t.match(done, { outcome: 'aborted', resultCode: 0x6f });
  t.same(done.outcome === 'aborted' && [...done.data], [0x6f, 0x09, 0x78]);
});

t.test(
  '84 9C asks for the status information again after 2 s; past max. status-infos the terminal reverses',
  async (t) => {
    const { register, pay, terminal, ecr } = await terminalAndRegister(t);
    await register(0x00);
    let asked = 0;
    const repeated = await pay(700, { onStatus: async () => (++asked < 3 ? refused(0x9c) : POSITIVE) });
    t.equal(repeated.outcome, 'completed');
    t.equal(asked, 3);
    t.equal(terminal.snapshot.turnover.length, 1);
    let times = 0;
    const tooOften = await ecr.transact(
      command(
        'authorisation',
        encodeFields([
          { bmp: 0x04, value: bcdNumber(800, 6) },
          { bmp: 0x02, value: Buffer.of(1) },
        ]),
      ),
      true,
      { onStatus: async () => (++times, refused(0x9c)) },
    );
    t.match(tooOften, { outcome: 'aborted', resultCode: 0x6c });
    t.equal(times, 3, 'twice 84 9C, then the status information of the reversal (27 6C)');
    t.equal(terminal.snapshot.turnover.length, 1, 'not stored');
    t.match(terminal.snapshot.journal, [{ event: /auto-reversal of payment .*800 minor units: 84 9C more often/ }]);
  },
);

t.test(
  'a refusal of the status information or of a print line (84 CC) is an auto-reversal (PA00P015 §2.2.8)',
  async (t) => {
    const { register, pay, terminal } = await terminalAndRegister(t);
    await register(0x00);
    t.match(await pay(900, { onStatus: async () => refused(0x66) }), { outcome: 'aborted', resultCode: 0x6c });
    await register(0x82); // the ECR prints payment receipts, as print lines
    let lines = 0;
    const printerOut = await pay(1000, { ...accept, onPrint: async () => (++lines === 3 ? refused(0xcc) : POSITIVE) });
    t.match(printerOut, { outcome: 'aborted', resultCode: 0x6c }, 'out of paper on the third line');
    t.equal(terminal.snapshot.turnover.length, 0, 'neither stored');
    t.match(terminal.snapshot.journal, [
      { event: /auto-reversal of payment .* 900 minor units: status information answered 84 66 00/ },
      { event: /auto-reversal of payment .* 1000 minor units: answered 84 cc 00/ },
    ]);
    t.equal((await pay(1100)).outcome, 'completed', 'every line answered: stored');
    t.equal(terminal.snapshot.turnover.length, 1);
  },
);

t.test('reversal: by receipt number; B4 once reversed, B7 for another amount, B5 after an end of day', async (t) => {
  const { register, pay, terminal, ecr, password } = await terminalAndRegister(t);
  await register(0x00);
  await pay(1500);
  const receipt = terminal.snapshot.turnover[0]!.receipt;
  const reversal = (amount?: number) =>
    ecr.transact(
      command(
        'reversal',
        Buffer.concat([
          password,
          encodeFields([
            { bmp: 0x87, value: bcdNumber(receipt, 2) },
            ...(amount ? [{ bmp: 0x04, value: bcdNumber(amount, 6) }] : []),
          ]),
        ]),
      ),
      true,
      accept,
    );
  t.match(await reversal(1400), { outcome: 'aborted', resultCode: 0xb7 });
  const reversed = await reversal(1500);
  t.equal(reversed.outcome, 'completed');
  t.equal(
    reversed.outcome === 'completed' && readStatus(reversed.statuses[0]!).originalTrace,
    terminal.snapshot.turnover[0]!.trace,
  );
  t.match(await reversal(), { outcome: 'aborted', resultCode: 0xb4 });
  await pay(300);
  const endOfDay = await ecr.transact(command('endOfDay', password), true, accept);
  t.equal(
    endOfDay.outcome === 'completed' && readStatus(endOfDay.statuses[0]!).endOfDay?.count,
    1,
    'a reversed payment counts for nothing',
  );
  t.equal(endOfDay.outcome === 'completed' && readStatus(endOfDay.statuses[0]!).amount, 300);
  t.match(await reversal(), { outcome: 'aborted', resultCode: 0xb5 });
});

t.test(
  'status enquiry: the software version unless service byte bit 1, and the terminal status (51 when set)',
  async (t) => {
    const { ecr, password, terminal } = await terminalAndRegister(t);
    const plain = await ecr.transact(command('statusEnquiry'), true);
    t.ok(plain.outcome === 'completed' && plain.data.toString('latin1').includes('svc-pos-sim ZVT'));
    t.equal(plain.outcome === 'completed' && plain.data[plain.data.length - 1], 0x00);
    t.equal(terminal.operator('set-status 51'), 'terminal status 51');
    const short = await ecr.transact(command('statusEnquiry', Buffer.concat([password, Buffer.of(0x03, 0x02)])), true);
    t.same(short.outcome === 'completed' && [...short.data], [0x51], 'no version, status 51');
  },
);

t.test('repeat receipt: the last stored transaction with its status information; none before any', async (t) => {
  const { ecr, password, pay, register } = await terminalAndRegister(t);
  const repeat = () =>
    ecr.transact(command('repeatReceipt', Buffer.concat([password, Buffer.of(0x03, 0x03)])), true, accept);
  t.match(await repeat(), { outcome: 'aborted', resultCode: 0x83 });
  await register(0x00);
  await pay(4200);
  const again = await repeat();
  t.equal(again.outcome === 'completed' && readStatus(again.statuses[0]!).amount, 4200);
});

t.test(
  'log off resets the config byte to 86; the ECR aborting while the card is awaited ends the payment',
  async (t) => {
    const { ecr, register, terminal } = await terminalAndRegister(t, { cardDelayMs: 60_000 });
    await register(0x08);
    const paying = ecr.transact(
      command('authorisation', encodeFields([{ bmp: 0x04, value: bcdNumber(100, 6) }])),
      true,
    );
    await new Promise((resolve) => setTimeout(resolve, 30));
    await ecr.cancel();
    t.match(await paying, { outcome: 'aborted', resultCode: 0x6c });
    t.equal(terminal.snapshot.turnover.length, 0);
    t.match(await ecr.transact(command('logOff'), false), { outcome: 'completed' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    t.equal(terminal.snapshot.registration.configByte, 0x86);
  },
);
