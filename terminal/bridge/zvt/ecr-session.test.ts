import { once } from 'node:events';
import { createServer, connect } from 'node:net';
import t, { type Test } from 'tap';
import { ManualTimers } from '../../protocol/timers.js';
import { apdu, type Apdu } from '../../protocol/zvt/apdu.js';
import { encodeFields } from '../../protocol/zvt/bitmaps.js';
import { constructed, encodeTlv, tlv } from '../../protocol/zvt/tlv.js';
import { TcpZvtLine } from '../../protocol/zvt/line.js';
import { command, POSITIVE } from '../../protocol/zvt/messages.js';
import { EcrSession, T4_MS } from './ecr-session.js';

// The cash register's side of a transaction against a terminal scripted
// by hand, on a clock moved by hand: T3 for the first answer, T4 while the
// terminal is master (and what an intermediate status's time-out byte does
// to it), status information nobody asked for, and the line closing.

async function scripted(t: Test) {
  const terminalSide: Apdu[] = [];
  let terminal!: TcpZvtLine;
  const server = createServer((socket) => {
    terminal = new TcpZvtLine(socket);
    terminal.on('apdu', (message: Apdu) => terminalSide.push(message));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const socket = connect((server.address() as { port: number }).port, '127.0.0.1');
  await once(socket, 'connect');
  const timers = new ManualTimers();
  const line = new TcpZvtLine(socket);
  const logs: string[] = [];
  const session = new EcrSession((entry) => logs.push(entry), timers, 5000, T4_MS);
  session.attach(line);
  t.teardown(() => {
    line.close();
    server.close();
  });
  while (!terminal) await new Promise((resolve) => setImmediate(resolve));
  /** Waits until the terminal side has heard `count` APDUs. */
  const heard = async (count: number) => {
    while (terminalSide.length < count) await new Promise((resolve) => setTimeout(resolve, 1));
  };
  const port = (server.address() as { port: number }).port;
  return { session, timers, terminal: () => terminal, terminalSide, heard, line, port, logs };
}

const authorisation = command('authorisation', encodeFields([{ bmp: 0x04, value: Buffer.of(0, 0, 0, 0, 0x10, 0) }]));

t.test('no answer to the command within T3: an error, not a transaction', async (t) => {
  const { session, timers, heard } = await scripted(t);
  const done = session.transact(authorisation, true);
  await heard(1);
  timers.advance(4999);
  timers.advance(1);
  await t.rejects(done, /no answer to authorisation within T3/);
});

t.test('the terminal silent past T4 while master: an error; 04 FF with a time-out byte sets T4', async (t) => {
  const { session, timers, heard, terminal } = await scripted(t);
  const done = session.transact(authorisation, true);
  await heard(1);
  await terminal().send(POSITIVE);
  // 04 FF with 02 minutes: T4 becomes 120 s.
  await terminal().send(command('intermediateStatus', Buffer.of(0x0a, 0x02)));
  await heard(2);
  await new Promise((resolve) => setTimeout(resolve, 10)); // the 04 FF read, its answer sent
  timers.advance(119_999);
  await terminal().send(command('completion'));
  t.match(await done, { outcome: 'completed' }, 'within 120 s after it');
  const silent = session.transact(authorisation, true);
  await heard(4);
  await terminal().send(POSITIVE);
  await new Promise((resolve) => setTimeout(resolve, 10));
  timers.advance(T4_MS);
  await t.rejects(silent, /silent for 180 s \(T4\)/);
  const shortened = session.transact(authorisation, true);
  await heard(5);
  await terminal().send(POSITIVE);
  await terminal().send(command('intermediateStatus', Buffer.of(0x0a, 0x01)));
  await heard(6);
  await new Promise((resolve) => setTimeout(resolve, 10));
  timers.advance(60_000);
  await t.rejects(shortened, /silent for 60 s \(T4\)/, 'a time-out byte of 01: one minute, shorter than T4');
});

t.test('status information without a handler is refused 84 83; the terminal reverses it', async (t) => {
  const { session, heard, terminal, terminalSide, logs } = await scripted(t);
  const done = session.transact(command('endOfDay', Buffer.from('000000', 'hex')), true);
  await heard(1);
  await terminal().send(POSITIVE);
  await terminal().send(command('statusInformation', encodeFields([{ bmp: 0x27, value: Buffer.of(0) }])));
  await heard(2);
  t.same([terminalSide[1]!.cls, terminalSide[1]!.ins], [0x84, 0x83]);
  await terminal().send(command('abort', Buffer.of(0x6c)));
  t.match(await done, { outcome: 'aborted', resultCode: 0x6c, statuses: [[{ bmp: 0x27 }]] });
  t.same(logs, ['status information during endOfDay, which asks for none: refused, so the terminal reverses it']);
});

t.test('the line closing ends the transaction with an error; a later command finds no line', async (t) => {
  const { session, heard, terminal } = await scripted(t);
  const done = session.transact(authorisation, true);
  await heard(1);
  terminal().close();
  await t.rejects(done, /closed|ended|line/);
  await t.rejects(session.transact(authorisation, true), /no line to the terminal/);
});

t.test('an answer other than 80 00 or 84 xx to the command is an error; 84 00 counts as taken', async (t) => {
  const { session, heard, terminal } = await scripted(t);
  const done = session.transact(command('logOff'), false);
  await heard(1);
  await terminal().send(command('completion'));
  await t.rejects(done, /answered with 06 0f/);
  const taken = session.transact(command('logOff'), false);
  await heard(2);
  await terminal().send(apdu(0x84, 0x00));
  t.match(await taken, { outcome: 'completed' });
});

t.test("the terminal's messages while master: print lines, text blocks, the date, one it does not take", async (t) => {
  const { session, heard, terminal, terminalSide, logs } = await scripted(t);
  const dates: string[] = [];
  const done = session.transact(command('diagnosis'), true, { onDateTime: (data) => dates.push(data.toString('hex')) });
  await heard(1);
  await terminal().send(POSITIVE);
  await terminal().send(command('intermediateStatus', Buffer.of(0x17)));
  await terminal().send(command('printLine', Buffer.from('\u0000DIAGNOSE \u00e9', 'latin1')));
  const block = encodeFields([
    {
      bmp: 0x06,
      value: encodeTlv([constructed('25', [tlv('07', 'first'), tlv('09', Buffer.of(0x81)), tlv('07', 'second')])]),
    },
  ]);
  await terminal().send(command('printTextBlock', block));
  await terminal().send(command('printTextBlock', encodeFields([{ bmp: 0x06, value: encodeTlv([tlv('1F00', 'x')]) }])));
  await terminal().send(command('setEcrDateTime', Buffer.from('aa2611280c090807', 'hex')));
  await terminal().send(apdu(0x06, 0x99));
  await terminal().send(apdu(0x80, 0x00)); // an answer to nothing (a cancel's): no reply
  await terminal().send(command('completion'));
  const end = await done;
  t.match(end, { outcome: 'completed', printed: ['DIAGNOSE \u00e9', 'first', 'second'] });
  t.same(dates, ['aa2611280c090807']);
  await heard(8);
  t.same(
    terminalSide.slice(1).map((message) => `${message.cls.toString(16)} ${message.ins.toString(16)}`),
    ['80 0', '80 0', '80 0', '80 0', '80 0', '84 83', '80 0'],
    'each answered: the unknown one 84 83, the stray answer not at all',
  );
  t.same(logs, ['the terminal sent command 0699, which this cash register does not take: 84 83']);
});

t.test(
  'refusals: 84 xx is xx, 84 1E with no data is 1E; an answer that came early waits for the command',
  async (t) => {
    const { session, heard, terminal } = await scripted(t);
    const refused = session.transact(command('endOfDay', Buffer.from('000000', 'hex')), true);
    await heard(1);
    await terminal().send(apdu(0x84, 0x37));
    t.match(await refused, { outcome: 'refused', error: 0x37 });
    const bare = session.transact(command('endOfDay', Buffer.from('000000', 'hex')), true);
    await heard(2);
    await terminal().send(apdu(0x84, 0x1e));
    t.match(await bare, { outcome: 'refused', error: 0x1e });
    await terminal().send(POSITIVE);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const later = session.transact(command('logOff'), false);
    await heard(3);
    await terminal().send(POSITIVE);
    t.match(
      await later,
      { outcome: 'completed', data: Buffer.alloc(0), statuses: [], printed: [] },
      'the stale 80 00 was dropped, not taken as this answer',
    );
  },
);

t.test(
  'read card: the status information ends it; a cancel is 06 B0; a new line leaves the old one unheard',
  async (t) => {
    const { session, heard, terminal, terminalSide, port } = await scripted(t);
    const read = session.transact(command('readCard', Buffer.of(5)), true, {
      endsWithStatus: true,
      onStatus: async () => POSITIVE,
    });
    await heard(1);
    await terminal().send(POSITIVE);
    await terminal().send(command('statusInformation', encodeFields([{ bmp: 0x27, value: Buffer.of(0) }])));
    t.match(await read, { outcome: 'completed', data: Buffer.alloc(0), statuses: [[{ bmp: 0x27 }]], printed: [] });
    await session.cancel();
    await heard(3);
    t.same([terminalSide[2]!.cls, terminalSide[2]!.ins], [0x06, 0xb0]);
    const other = new TcpZvtLine(connect(port, '127.0.0.1'));
    other.close();
    session.attach(other);
    await t.rejects(session.transact(command('logOff'), false), /no line to the terminal/);
  },
);

t.test(
  'the fine print of answers: 84 xx with data, 80 xx, a bare 04 FF, a handled status, no date handler',
  async (t) => {
    const { session, heard, terminal, timers, logs } = await scripted(t);
    const refused = session.transact(command('endOfDay', Buffer.from('000000', 'hex')), true);
    await heard(1);
    await terminal().send(apdu(0x84, 0x37, Buffer.of(0x01)));
    t.match(await refused, { outcome: 'refused', error: 0x37 }, 'only 84 1E carries its code in the data');
    const odd = session.transact(command('logOff'), false);
    await heard(2);
    await terminal().send(apdu(0x80, 0x01));
    t.same(await odd, { outcome: 'completed', data: Buffer.alloc(0), statuses: [], printed: [] }, '80 xx is taken');
    const statuses: number[] = [];
    const done = session.transact(authorisation, true, {
      onIntermediate: (status) => statuses.push(status),
      onStatus: async () => POSITIVE,
    });
    await heard(3);
    await terminal().send(POSITIVE);
    await terminal().send(command('intermediateStatus', Buffer.of(0x17)));
    await heard(4);
    await new Promise((resolve) => setTimeout(resolve, 10));
    timers.advance(60_000);
    await terminal().send(command('statusInformation', encodeFields([{ bmp: 0x27, value: Buffer.of(0) }])));
    await terminal().send(command('setEcrDateTime', Buffer.from('aa2611280c090807', 'hex')));
    await terminal().send(command('completion'));
    t.match(await done, { outcome: 'completed' }, 'a 04 FF without a time-out byte leaves T4 as it was');
    t.same(statuses, [0x17]);
    t.same(logs, [], 'a status information with its handler is not refused, and not logged');
  },
);

t.test('the line closing between the answer and the master phase', async (t) => {
  const { session, heard, terminal } = await scripted(t);
  const done = session.transact(authorisation, true);
  await heard(1);
  await terminal().send(POSITIVE);
  terminal().close();
  await t.rejects(done, { name: 'LineError', code: 'DISCONNECTED' });
});
