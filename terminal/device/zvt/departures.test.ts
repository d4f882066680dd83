import { once } from 'node:events';
import { createServer, connect, type Socket } from 'node:net';
import t, { type Test } from 'tap';
import { EcrSession } from '../../bridge/zvt/ecr-session.js';
import { readStatus } from '../../bridge/zvt/status-reading.js';
import { apdu, type Apdu } from '../../protocol/zvt/apdu.js';
import { bcdNumber } from '../../protocol/zvt/bcd.js';
import { decodeFields, encodeFields } from '../../protocol/zvt/bitmaps.js';
import { TcpZvtLine } from '../../protocol/zvt/line.js';
import { command, POSITIVE, refused } from '../../protocol/zvt/messages.js';
import { constructed, encodeTlv, findTlv, tlv } from '../../protocol/zvt/tlv.js';
import { accept, after, fast, terminalAndRegister } from './zvt-ecr-testkit.js';

// Six places where the emulator, and the bridge, departed from PA00P015
// (issue 58). Each test failed on the code before the fix.

/** A cash register that hears every APDU itself: for answers EcrSession would not give. */
function rawEcr(socket: Socket) {
  const line = new TcpZvtLine(socket, { timers: fast });
  const inbox: Apdu[] = [];
  const waiting: Array<(message: Apdu) => void> = [];
  line.on('apdu', (message: Apdu) => (waiting.shift() ?? ((queued: Apdu) => inbox.push(queued)))(message));
  return {
    line,
    send: (message: Apdu) => line.send(message),
    next: () => new Promise<Apdu>((resolve) => (inbox.length ? resolve(inbox.shift()!) : waiting.push(resolve))),
  };
}

const hex = (message: Apdu) => Buffer.concat([Buffer.of(message.cls, message.ins), message.data]).toString('hex');

t.test(
  '1. 84 9D 07 04 <amount>: the goods went out in part; that price is booked, the rest reversed, then 06 0F',
  async (t) => {
    const { register, pay, terminal, ecr, password } = await terminalAndRegister(t);
    await register(0x00);
    const partial = apdu(0x84, 0x9d, encodeFields([{ bmp: 0x04, value: bcdNumber(2000, 6) }]));
    const done = await pay(5000, { onStatus: async () => partial });
    t.equal(done.outcome, 'completed', 'Completion, not an auto-reversal');
    t.equal(terminal.snapshot.turnover[0]?.amount, 2000, 'stored at the price of what was issued');
    t.match(terminal.snapshot.journal, [{ event: /partial issue of goods: 2000 of 5000/ }]);
    const endOfDay = await ecr.transact(command('endOfDay', password), true, accept);
    t.equal(endOfDay.outcome === 'completed' && readStatus(endOfDay.statuses[0]!).amount, 2000);
    const beyond = apdu(0x84, 0x9d, encodeFields([{ bmp: 0x04, value: bcdNumber(6000, 6) }]));
    t.match(
      await pay(5000, { onStatus: async () => beyond }),
      { outcome: 'aborted', resultCode: 0x6c },
      'more than paid: reversed',
    );
  },
);

t.test('2. bitmap 01 is how long the terminal waits for the issue of goods; 30 s without it', async (t) => {
  const { register, ecr, pay, terminal } = await terminalAndRegister(t);
  await register(0x00);
  const slowly = { onStatus: async () => (await after(10_000), POSITIVE) };
  const withTimeout = (seconds: number) =>
    command(
      'authorisation',
      encodeFields([
        { bmp: 0x04, value: bcdNumber(700, 6) },
        { bmp: 0x01, value: Buffer.of(seconds) },
      ]),
    );
  t.equal((await ecr.transact(withTimeout(20), true, slowly)).outcome, 'completed', 'answered after 10 s of 20');
  t.equal((await pay(800, slowly)).outcome, 'completed', 'answered after 10 s of the default 30');
  t.equal((await ecr.transact(withTimeout(0), true, slowly)).outcome, 'completed', '01 00 is the default too');
  t.equal(terminal.snapshot.turnover.length, 3);
  const tooSlow = await ecr.transact(withTimeout(2), true, slowly).catch((error: Error) => error.message);
  t.match(tooSlow, /closed|T4|line/, 'after 2 s the terminal gave up the line');
  t.equal(terminal.snapshot.turnover.length, 3, 'and reversed the payment');
});

async function rawRegistered(t: Test, configByte: number) {
  const kit = await terminalAndRegister(t);
  const port = kit.socket.remotePort!;
  kit.line.close(); // the kit's cash register steps aside: this one answers by hand
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const ecr = rawEcr(socket);
  t.teardown(() => ecr.line.close());
  await ecr.send(command('registration', Buffer.concat([kit.password, Buffer.of(configByte)])));
  t.equal(hex(await ecr.next()), '8000');
  t.equal(hex(await ecr.next()).slice(0, 4), '060f');
  await ecr.send(POSITIVE);
  return { ...kit, raw: ecr };
}

t.test('3. a refused 04 FF ends the payment with 06 1E; an unanswered one closes the connection', async (t) => {
  const { raw, terminal } = await rawRegistered(t, 0x08);
  await raw.send(command('authorisation', encodeFields([{ bmp: 0x04, value: bcdNumber(900, 6) }])));
  t.equal(hex(await raw.next()), '8000');
  t.equal(hex(await raw.next()).slice(0, 4), '04ff', 'intermediate status');
  await raw.send(refused(0x9a));
  t.equal(hex(await raw.next()), '061e6c', 'Abort: the cash register is master again');
  await raw.send(POSITIVE);
  await raw.send(command('authorisation', encodeFields([{ bmp: 0x04, value: bcdNumber(900, 6) }])));
  t.equal(hex(await raw.next()), '8000');
  t.equal(hex(await raw.next()).slice(0, 4), '04ff');
  await once(raw.line, 'close'); // not answered within T3
  t.pass('the terminal closed the connection (PA00P016 §5.2.5 a)');
  t.equal(terminal.snapshot.turnover.length, 0);
});

t.test('4. the status enquiry sends its TLV container when service byte bit 2 is set', async (t) => {
  const { ecr, password } = await terminalAndRegister(t);
  const done = await ecr.transact(command('statusEnquiry', Buffer.concat([password, Buffer.of(0x03, 0x07)])), true);
  t.equal(done.outcome === 'completed' && done.data[0], 0x00, 'no version (bit 1): the status first');
  const container = done.outcome === 'completed' ? decodeFields(done.data, 1)[0]?.tlv : undefined;
  const device = findTlv(container, 'E4')?.children;
  t.equal(findTlv(device, '1F40')?.value.toString('latin1'), 'svc-pos-sim ZVT', 'device name');
  t.equal(findTlv(device, '1F42')?.value.toString('hex'), '12345678', 'serial number, BCD');
  t.equal(findTlv(container, '1F44')?.value.toString('hex'), '12345678', 'terminal id');
  const plain = await ecr.transact(command('statusEnquiry', Buffer.concat([password, Buffer.of(0x03, 0x02)])), true);
  t.same(plain.outcome === 'completed' && [...plain.data], [0x00], 'without bit 2: none');
});

t.test(
  '5. asked the ECR printer width (tag 12), the registration completion says its receipts are 24 columns',
  async (t) => {
    const { register } = await terminalAndRegister(t);
    const completionTag12 = async (objects: Parameters<typeof encodeTlv>[0]) => {
      const done = await register(0x82, encodeFields([{ bmp: 0x06, value: encodeTlv(objects) }]));
      const fields = done.outcome === 'completed' ? decodeFields(done.data) : [];
      return findTlv(fields.find((field) => field.bmp === 0x06)?.tlv, '12')?.value.toString('hex');
    };
    const permitted = constructed('26', [tlv('0A', Buffer.of(0x06, 0xd1))]);
    t.equal(await completionTag12([tlv('12', Buffer.of(0x40)), permitted]), '24', 'the width used');
    // Not asked, not told: cash registers that know no tag 12 (bezahl-online/zvt) refuse a completion with one.
    t.equal(await completionTag12([permitted]), undefined);
  },
);

t.test('6. the bridge reads 84 1E xx as the result code xx (a CCV IM30 answers 84 1E 01 7D)', async (t) => {
  const server = createServer((socket) => {
    const terminal = new TcpZvtLine(socket);
    terminal.on('apdu', () => void terminal.send(apdu(0x84, 0x1e, Buffer.of(0x7d))));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  const socket = connect((server.address() as { port: number }).port, '127.0.0.1');
  await once(socket, 'connect');
  const line = new TcpZvtLine(socket);
  t.teardown(() => line.close());
  const session = new EcrSession(() => undefined);
  session.attach(line);
  const done = await session.transact(
    command('authorisation', encodeFields([{ bmp: 0x04, value: bcdNumber(1, 6) }])),
    true,
  );
  t.match(done, { outcome: 'refused', error: 0x7d }, 'communication error, not 1E');
});
