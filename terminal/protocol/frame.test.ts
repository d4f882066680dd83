import t from 'tap';
import { encodeFrame, hex, isPrintable, lrc } from './frame.js';
import { FrameParser, type LineEvent } from './frame-parser.js';
import { ManualTimers } from './timers.js';

t.test('INTERFACE.md vector: payload 0200|123| has LRC 0x31', async (t) => {
  t.equal(lrc(Buffer.from('0200|123|')), 0x31);
  t.equal(hex(encodeFrame('0200|123|')), '02 30 32 30 30 7c 31 32 33 7c 03 31');
});

t.test('encoding refuses what the line cannot carry', async (t) => {
  t.throws(() => encodeFrame('0100|é'), { code: 'FRAME_INVALID' });
  t.throws(() => encodeFrame('line\nbreak'), { code: 'FRAME_INVALID' });
  t.throws(() => encodeFrame('x'.repeat(1025)), { code: 'FRAME_INVALID' });
  t.doesNotThrow(() => encodeFrame('x'.repeat(1024)));
});

/** Feeds chunks (with the time each arrives) and collects what the parser says. */
function parse(chunks: Array<[Buffer | number[], number?]>): LineEvent[] {
  const timers = new ManualTimers();
  const parser = new FrameParser(timers);
  const events: LineEvent[] = [];
  parser.on('data', (event: LineEvent) => events.push(event));
  for (const [chunk, waitMs] of chunks) {
    if (waitMs) timers.advance(waitMs);
    parser.write(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  }
  parser.end();
  return events.filter((e) => e.type !== 'noise');
}

t.test('frames come out whatever way the bytes are split', async (t) => {
  const stream = Buffer.concat([
    encodeFrame('0100'),
    Buffer.of(0x06),
    encodeFrame('0110|SN1|1.2.0|1|0'),
    Buffer.of(0x15),
  ]);
  let seed = 7;
  for (let run = 0; run < 200; run += 1) {
    const chunks: Array<[Buffer]> = [];
    for (let at = 0; at < stream.length;) {
      seed = (seed * 48271) % 2147483647;
      const size = 1 + (seed % 5);
      chunks.push([stream.subarray(at, at + size)]);
      at += size;
    }
    const events = parse(chunks);
    if (
      JSON.stringify(events) !==
      JSON.stringify([
        { type: 'frame', payload: '0100' },
        { type: 'ack' },
        { type: 'frame', payload: '0110|SN1|1.2.0|1|0' },
        { type: 'nak' },
      ])
    ) {
      t.fail(`split run ${run}: ${JSON.stringify(events)}`);
      return;
    }
  }
  t.pass('200 random splits all parse the same');
});

t.test('noise before STX is discarded, and a new STX inside a frame resynchronises', async (t) => {
  t.same(parse([[Buffer.concat([Buffer.from('garbage\x00\xff'), encodeFrame('0100')])]]), [
    { type: 'frame', payload: '0100' },
  ]);
  const broken = Buffer.concat([Buffer.from([0x02, 0x30, 0x31]), encodeFrame('0250')]);
  t.same(parse([[broken]]), [
    { type: 'bad-frame', reason: 'gap' },
    { type: 'frame', payload: '0250' },
  ]);
});

t.test('a wrong LRC, a payload past 1024 bytes, or a 201 ms gap between bytes drops the frame', async (t) => {
  const frame = encodeFrame('0300|ord-1|1500|USD');
  const corrupted = Buffer.from(frame);
  corrupted[corrupted.length - 1] ^= 0xff;
  t.same(parse([[corrupted]]), [{ type: 'bad-frame', reason: 'lrc' }]);
  t.same(parse([[Buffer.concat([Buffer.of(0x02), Buffer.alloc(1100, 0x41), Buffer.of(0x03, 0x00)])]]).slice(0, 1), [
    { type: 'bad-frame', reason: 'too-long' },
  ]);
  t.same(
    parse([[frame.subarray(0, 5)], [frame.subarray(5), 200]]),
    [{ type: 'frame', payload: '0300|ord-1|1500|USD' }],
    '200 ms apart is fine',
  );
  t.same(
    parse([[frame.subarray(0, 5)], [frame.subarray(5), 201]]),
    [{ type: 'bad-frame', reason: 'gap' }],
    '201 ms apart drops it',
  );
  t.same(
    parse([[frame.subarray(0, 5)], [encodeFrame('0100'), 500]]),
    [
      { type: 'bad-frame', reason: 'gap' },
      { type: 'frame', payload: '0100' },
    ],
    'and the next frame still parses',
  );
});

// What a device or host would see, for the survivors mutation testing found (issue 31).

/** A frame built by hand: STX, the bytes, ETX and the right LRC, whatever the bytes are. */
const rawFrame = (payload: Buffer) => Buffer.concat([Buffer.of(0x02), payload, Buffer.of(0x03, lrc(payload))]);

t.test('a frame with a control byte inside is refused even when its LRC is right', async (t) => {
  for (const control of [0x00, 0x01, 0x06, 0x0a, 0x15, 0x7f]) {
    t.same(
      parse([[rawFrame(Buffer.from([0x30, 0x31, control, 0x32]))]]),
      [{ type: 'bad-frame', reason: 'not-printable' }],
      `0x${control.toString(16)} inside`,
    );
  }
});

t.test('a payload of exactly 1024 bytes is a frame; 1025 is too long', async (t) => {
  const max = Buffer.alloc(1024, 0x41);
  t.same(parse([[rawFrame(max)]]), [{ type: 'frame', payload: 'A'.repeat(1024) }]);
  t.same(parse([[rawFrame(Buffer.alloc(1025, 0x41))]]).slice(0, 1), [{ type: 'bad-frame', reason: 'too-long' }]);
});

t.test('a frame cut off at the end of the stream is reported, not lost', async (t) => {
  t.same(parse([[encodeFrame('0300|ord-1|1500|USD').subarray(0, 6)]]), [{ type: 'bad-frame', reason: 'gap' }]);
  t.same(parse([[encodeFrame('0100')]]), [{ type: 'frame', payload: '0100' }], 'a whole frame at the end is not');
});

t.test('the gap timer of a finished frame is disarmed: it never drops the next frame early', async (t) => {
  const frame = encodeFrame('0300|ord-1|1500|USD');
  // Frame 1 in two parts (150 ms apart), then frame 2 starting 40 ms later and ending 110 ms after that:
  // a timer left from frame 1's first part would fire at 201 ms, in the middle of frame 2.
  t.same(
    parse([[frame.subarray(0, 5)], [frame.subarray(5), 150], [frame.subarray(0, 5), 40], [frame.subarray(5), 110]]),
    [
      { type: 'frame', payload: '0300|ord-1|1500|USD' },
      { type: 'frame', payload: '0300|ord-1|1500|USD' },
    ],
  );
});

t.test(
  "a gap is noticed from the bytes' own times even when the timer has not fired yet (a busy event loop)",
  async (t) => {
    // Timers whose callbacks never run: only the arrival times tell the gap.
    let now = 0;
    const late = { now: () => now, setTimeout: () => 0, clearTimeout: () => undefined };
    const parser = new FrameParser(late);
    const events: LineEvent[] = [];
    parser.on('data', (event: LineEvent) => events.push(event));
    const frame = encodeFrame('0300|ord-1|1500|USD');
    parser.write(frame.subarray(0, 5));
    now = 201;
    parser.write(Buffer.concat([frame.subarray(5), encodeFrame('0100')]));
    parser.end();
    await new Promise((resolve) => parser.on('end', resolve).resume());
    t.same(
      events.filter((e) => e.type !== 'noise'),
      [
        { type: 'bad-frame', reason: 'gap' },
        { type: 'frame', payload: '0100' },
      ],
    );
  },
);

t.test('a parser destroyed mid-frame says nothing afterwards', async (t) => {
  const timers = new ManualTimers();
  const parser = new FrameParser(timers);
  const events: LineEvent[] = [];
  parser.on('data', (event: LineEvent) => events.push(event));
  parser.on('error', () => undefined);
  parser.write(encodeFrame('0100').subarray(0, 3));
  t.equal(timers.armed, 1, 'a frame under way arms the gap timer');
  parser.destroy();
  t.equal(timers.armed, 0, "destroying the parser clears it: no timer keeps a closed line's process alive");
  timers.advance(1000);
  t.same(events, [], 'no late gap event');
});

t.test('bytes outside any frame are counted as noise, once per stretch', async (t) => {
  const timers = new ManualTimers();
  const parser = new FrameParser(timers);
  const events: LineEvent[] = [];
  parser.on('data', (event: LineEvent) => events.push(event));
  parser.write(Buffer.concat([Buffer.from('xyz'), encodeFrame('0100'), Buffer.from('ab')]));
  parser.end();
  t.same(events, [
    { type: 'noise', bytes: 3 },
    { type: 'frame', payload: '0100' },
    { type: 'noise', bytes: 2 },
  ]);
});

t.test(
  'a frame cut off and followed by silence is dropped when the gap runs out, with nothing more on the line',
  async (t) => {
    const timers = new ManualTimers();
    const parser = new FrameParser(timers);
    const events: LineEvent[] = [];
    parser.on('data', (event: LineEvent) => events.push(event));
    parser.write(encodeFrame('0300|ord-1|1500|USD').subarray(0, 6));
    timers.advance(200);
    t.same(events, [], 'still waiting at 200 ms');
    timers.advance(2);
    t.same(
      events,
      [{ type: 'bad-frame', reason: 'gap' }],
      'dropped past 200 ms, so the sender hears a NAK before it retransmits',
    );
    parser.write(encodeFrame('0100'));
    t.same(events.at(-1), { type: 'frame', payload: '0100' }, 'and the next frame parses');
    t.equal(timers.armed, 0, 'no timer armed once a frame is whole');
  },
);

t.test('printable is 0x20 to 0x7e inclusive; a refusal says what the line cannot carry', async (t) => {
  t.doesNotThrow(() => encodeFrame(' ~'), 'space and tilde, the two edges');
  t.equal(isPrintable(Buffer.of(0x20, 0x7e)), true);
  t.equal(isPrintable(Buffer.of(0x1f)), false);
  t.equal(isPrintable(Buffer.of(0x7f)), false);
  t.throws(() => encodeFrame('\x7f'), {
    code: 'FRAME_INVALID',
    message: 'a payload is printable ASCII only',
  });
  t.throws(() => encodeFrame('ñ'), { message: 'a payload is printable ASCII only' }, 'beyond ASCII');
  t.throws(() => encodeFrame('x'.repeat(1025)), {
    code: 'FRAME_INVALID',
    message: 'a payload is at most 1024 bytes, got 1025',
  });
});
