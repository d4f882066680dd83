import t from 'tap';
import { encodeFrame, FrameError, hex, lrc } from './frame.js';
import { FrameParser, type LineEvent } from './frame-parser.js';
import { ManualTimers } from './timers.js';

t.test('the addendum vector: payload 0200|123| has LRC 0x31', async (t) => {
  t.equal(lrc(Buffer.from('0200|123|')), 0x31);
  t.equal(hex(encodeFrame('0200|123|')), '02 30 32 30 30 7c 31 32 33 7c 03 31');
});

t.test('encoding refuses what the line cannot carry', async (t) => {
  t.throws(() => encodeFrame('0100|é'), FrameError);
  t.throws(() => encodeFrame('line\nbreak'), FrameError);
  t.throws(() => encodeFrame('x'.repeat(1025)), FrameError);
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
  const stream = Buffer.concat([encodeFrame('0100'), Buffer.of(0x06), encodeFrame('0110|SN1|1.2.0|1|0'), Buffer.of(0x15)]);
  let seed = 7;
  for (let run = 0; run < 200; run += 1) {
    const chunks: Array<[Buffer]> = [];
    for (let at = 0; at < stream.length; ) {
      seed = (seed * 48271) % 2147483647;
      const size = 1 + (seed % 5);
      chunks.push([stream.subarray(at, at + size)]);
      at += size;
    }
    const events = parse(chunks);
    if (JSON.stringify(events) !== JSON.stringify([{ type: 'frame', payload: '0100' }, { type: 'ack' }, { type: 'frame', payload: '0110|SN1|1.2.0|1|0' }, { type: 'nak' }])) {
      t.fail(`split run ${run}: ${JSON.stringify(events)}`);
      return;
    }
  }
  t.pass('200 random splits all parse the same');
});

t.test('noise before STX is discarded, and a new STX inside a frame resynchronises', async (t) => {
  t.same(parse([[Buffer.concat([Buffer.from('garbage\x00\xff'), encodeFrame('0100')])]]), [{ type: 'frame', payload: '0100' }]);
  const broken = Buffer.concat([Buffer.from([0x02, 0x30, 0x31]), encodeFrame('0250')]);
  t.same(parse([[broken]]), [{ type: 'bad-frame', reason: 'gap' }, { type: 'frame', payload: '0250' }]);
});

t.test('a wrong LRC, a payload past 1024 bytes, or a 201 ms gap between bytes drops the frame', async (t) => {
  const frame = encodeFrame('0300|ord-1|1500|USD');
  const corrupted = Buffer.from(frame);
  corrupted[corrupted.length - 1] ^= 0xff;
  t.same(parse([[corrupted]]), [{ type: 'bad-frame', reason: 'lrc' }]);
  t.same(parse([[Buffer.concat([Buffer.of(0x02), Buffer.alloc(1100, 0x41), Buffer.of(0x03, 0x00)])]]).slice(0, 1), [{ type: 'bad-frame', reason: 'too-long' }]);
  t.same(parse([[frame.subarray(0, 5)], [frame.subarray(5), 200]]), [{ type: 'frame', payload: '0300|ord-1|1500|USD' }], '200 ms apart is fine');
  t.same(parse([[frame.subarray(0, 5)], [frame.subarray(5), 201]]), [{ type: 'bad-frame', reason: 'gap' }], '201 ms apart drops it');
  t.same(parse([[frame.subarray(0, 5)], [encodeFrame('0100'), 500]]), [{ type: 'bad-frame', reason: 'gap' }, { type: 'frame', payload: '0100' }], 'and the next frame still parses');
});
