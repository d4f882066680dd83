import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import t from 'tap';
import { LineError } from '../errors.js';
import { ACK, encodeFrame, NAK } from './frame.js';
import { Link } from './link.js';
import { ManualTimers } from './timers.js';

// The link layer's rules as a device or a host sees them on the wire:
// what is refused and why, what a repeat is, what happens once the line
// goes. A fake port records every write and is fed bytes by hand.

class FakePort extends EventEmitter {
  writes: Buffer[] = [];
  write(chunk: Buffer): boolean {
    this.writes.push(Buffer.from(chunk));
    return true;
  }
}

const settle = async () => {
  for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
};

function line(options: { duplicateWindowMs?: number; debug?: boolean } = {}) {
  const port = new FakePort();
  const timers = new ManualTimers();
  const debug: string[] = [];
  const link = new Link(port as unknown as Duplex, {
    timers,
    ...(options.duplicateWindowMs ? { duplicateWindowMs: options.duplicateWindowMs } : {}),
    ...(options.debug ? { debug: (entry) => debug.push(entry) } : {}),
  });
  const received: string[] = [];
  link.on('message', (payload: string) => received.push(payload));
  const feed = async (bytes: Buffer | number[]) => {
    port.emit('data', Buffer.from(bytes));
    await settle();
  };
  return { port, timers, link, received, feed, debug };
}

t.test('the errors say what failed, with codes a program can test', async (t) => {
  const timeout = new LineError('LINK_TIMEOUT', 'x');
  t.match(timeout, { name: 'LineError', code: 'LINK_TIMEOUT', disconnected: false, retryable: true });
  t.match(new LineError('NAK_LIMIT', 'x'), { code: 'NAK_LIMIT', disconnected: false });
  t.match(new LineError('DISCONNECTED', 'x'), { code: 'DISCONNECTED', disconnected: true });

  const unanswered = line();
  const timedOut = unanswered.link.send('0210|7|a-long-payload').catch((error: Error) => error);
  for (let i = 0; i < 3; i += 1) {
    await settle();
    unanswered.timers.advance(2000);
  }
  t.match(await timedOut, { message: 'no ACK for 0210 after 3 tries of 2000 ms' });

  const refused = line();
  const naked = refused.link.send('0520|9|B1').catch((error: Error) => error);
  for (let i = 0; i < 3; i += 1) {
    await settle();
    await refused.feed([NAK]);
  }
  t.match(await naked, { message: '0520 was refused (NAK) 3 times' });
});

t.test('an ACK or NAK with nothing outstanding is ignored', async (t) => {
  const { link, port, feed, timers } = line();
  await feed([ACK]);
  await feed([NAK]);
  t.same(port.writes, [], 'nothing sent in answer');
  const sent = link.send('0100');
  await settle();
  await feed([ACK]);
  await sent;
  timers.advance(10_000);
  t.equal(port.writes.length, 1, 'the next send works, sent once');
});

t.test(
  'a repeat is the same frame again with nothing sent between, within the window (3 tries of 2 s, plus 1 s)',
  async (t) => {
    const { feed, received, timers, port } = line();
    const frame = encodeFrame('0210|1|o|1|USD|A|t');
    timers.advance(50_000); // a clock well past zero, so the window is measured from the first copy's time
    await feed(frame);
    timers.advance(7000);
    await feed(frame);
    t.same(received, ['0210|1|o|1|USD|A|t'], 'at 7 000 ms: a repeat');
    timers.advance(7001);
    await feed(frame);
    t.equal(received.length, 2, 'at 7 001 ms after the last: a new message');
    t.same(
      port.writes.map((write) => write[0]),
      [ACK, ACK, ACK],
      'each acknowledged',
    );

    const other = line();
    await other.feed(encodeFrame('0280|3'));
    await other.feed(encodeFrame('0280|4'));
    t.same(other.received, ['0280|3', '0280|4'], 'another frame is never a repeat');
  },
);

t.test('after a frame of ours, the same frame again is an answer, not a repeat', async (t) => {
  const { link, feed, received } = line();
  const frame = encodeFrame('0510|00');
  await feed(frame);
  const sent = link.send('0500|C2');
  await settle();
  await feed([ACK]);
  await sent;
  await feed(frame);
  t.same(received, ['0510|00', '0510|00']);
});

t.test(
  'the line closing, ending or failing shuts the link: pending sends fail, later ones too, nothing more is heard',
  async (t) => {
    for (const [event, argument, message] of [
      ['close', undefined, 'the serial line closed'],
      ['end', undefined, 'the serial line closed'],
      ['error', new Error('EIO'), 'the serial line failed: EIO'],
    ] as const) {
      const { link, port, feed, received } = line();
      const closed = new Promise<Error>((resolve) => link.once('close', resolve));
      const pending = link.send('0100').catch((error: Error) => error);
      await settle();
      port.emit(event, argument);
      t.match(await pending, { code: 'DISCONNECTED', message }, event);
      t.match(await closed, { message }, `${event}: the close event says why`);
      t.equal(link.isClosed, true);
      await t.rejects(link.send('0100'), { code: 'DISCONNECTED', message: 'the serial line is closed' });
      const writes = port.writes.length;
      await feed(encodeFrame('0260'));
      t.same(received, [], 'a frame after the close is not delivered');
      t.equal(port.writes.length, writes, 'nor acknowledged');
    }
    const { link } = line();
    const pending = link.send('0100').catch((error: Error) => error);
    link.close();
    t.match(await pending, { code: 'DISCONNECTED', message: 'the link was closed' });
    t.equal(link.isClosed, true);
  },
);

t.test('at debug level, every frame and link event is a line a technician can read', async (t) => {
  const { link, feed, debug } = line({ debug: true });
  const sent = link.send('0100');
  await settle();
  await feed([NAK]);
  await feed([ACK]);
  await sent;
  await feed([0x41, 0x42]);
  const bad = encodeFrame('0260');
  bad[bad.length - 1] ^= 1;
  await feed(bad);
  await feed(encodeFrame('0280|5'));
  await feed(encodeFrame('0280|5'));
  t.same(debug, [
    'tx 02 30 31 30 30 03 02 (0100, try 1/3)',
    'rx 15',
    'NAK for 0100',
    'tx 02 30 31 30 30 03 02 (0100, try 2/3)',
    'rx 06',
    'rx 41 42',
    'discarded 2 bytes of noise',
    `rx ${[...bad].map((byte) => byte.toString(16).padStart(2, '0')).join(' ')}`,
    'bad frame (lrc): NAK',
    'rx 02 30 32 38 30 7c 35 03 40',
    'rx 02 30 32 38 30 7c 35 03 40',
    'duplicate 0280 re-acknowledged, not processed again',
  ]);
});

t.test(
  "a line that answers within the write itself: the ACK clears the frame's timer, nothing fires later",
  async (t) => {
    class EchoAckPort extends FakePort {
      override write(chunk: Buffer): boolean {
        super.write(chunk);
        if (chunk[0] === 0x02) this.emit('data', Buffer.of(ACK)); // answered before write returns
        return true;
      }
    }
    const port = new EchoAckPort();
    const timers = new ManualTimers();
    const link = new Link(port as unknown as Duplex, { timers });
    await link.send('0100');
    await link.send('0250');
    timers.advance(60_000);
    await settle();
    t.equal(port.writes.length, 2, 'each frame written once: no retry of an acknowledged frame');
    t.equal(timers.armed, 0, 'no timer left');
  },
);
