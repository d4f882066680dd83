import { once } from 'node:events';
import { createServer, connect } from 'node:net';
import t, { type Test } from 'tap';
import { ManualTimers } from '../../protocol/timers.js';
import { apdu, type Apdu } from '../../protocol/zvt/apdu.js';
import { encodeFields } from '../../protocol/zvt/bitmaps.js';
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
  const session = new EcrSession(() => undefined, timers, 5000, T4_MS);
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
  return { session, timers, terminal: () => terminal, terminalSide, heard, line };
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
  const { session, heard, terminal, terminalSide } = await scripted(t);
  const done = session.transact(command('endOfDay', Buffer.from('000000', 'hex')), true);
  await heard(1);
  await terminal().send(POSITIVE);
  await terminal().send(command('statusInformation', encodeFields([{ bmp: 0x27, value: Buffer.of(0) }])));
  await heard(2);
  t.same([terminalSide[1]!.cls, terminalSide[1]!.ins], [0x84, 0x83]);
  await terminal().send(command('abort', Buffer.of(0x6c)));
  t.match(await done, { outcome: 'aborted', resultCode: 0x6c, statuses: [[{ bmp: 0x27 }]] });
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
