import t from 'tap';
import { ManualTimers } from '../timers.js';
import { apdu, apduSize, codeHex, decodeApdu, encodeApdu, MAX_DATA } from './apdu.js';
import { bcdNumber, bcdValue, nibbles, packBcd, readVarLength, unpackBcd, varLength } from './bcd.js';
import { encodeSerialFrame, SerialFrameReader, T1_MS, type SerialEvent } from './serial-frame.js';
import { berLength, decodeTlv, readBerLength } from './tlv.js';
import { BITMAPS, decodeFields, encodeFields, fieldOf } from './bitmaps.js';

// The edges of the ZVT codec: what each part refuses and says, byte by
// byte, beside the published vectors of codec.test.ts.

const DLE = 0x10;
const STX = 0x02;
const ACK = 0x06;
const NAK = 0x15;

t.test('BCD refuses what is not an even count of decimal digits, and says so', async (t) => {
  t.same([...packBcd('1234')], [0x12, 0x34]);
  t.same([...packBcd('')], []);
  t.throws(() => packBcd('123'), {
    code: 'BCD_INVALID',
    message: 'BCD takes an even number of decimal digits, got "123"',
  });
  t.throws(() => packBcd('12ab'), { code: 'BCD_INVALID' }, 'digits, then others');
  t.throws(() => packBcd('ab12'), { code: 'BCD_INVALID' }, 'others, then digits');
  t.throws(() => packBcd('1a'), { code: 'BCD_INVALID' });
  t.equal(unpackBcd(Buffer.of(0x09, 0x87)), '0987');
  t.throws(() => unpackBcd(Buffer.of(0x1a)), { code: 'BCD_INVALID', message: 'not BCD: 1A' }, 'a nibble above 9 last');
  t.throws(() => unpackBcd(Buffer.of(0xa1)), { code: 'BCD_INVALID' }, 'a nibble above 9 first');
  t.equal(nibbles(Buffer.of(0xab, 0xe1)), 'ABE1', 'upper case, as the specification writes them');
});

t.test('BCD numbers: whole, from 0, within their bytes', async (t) => {
  t.same([...bcdNumber(99, 1)], [0x99], 'the widest number that fits');
  t.same([...bcdNumber(2500, 6)], [0, 0, 0, 0, 0x25, 0]);
  t.throws(() => bcdNumber(100, 1), { message: '100 does not fit 1 bytes of BCD' });
  t.throws(() => bcdNumber(-1, 2), { code: 'BCD_INVALID', message: 'BCD holds whole numbers from 0, got -1' });
  t.throws(() => bcdNumber(1.5, 2), { message: 'BCD holds whole numbers from 0, got 1.5' });
  t.throws(() => bcdNumber(2 ** 53, 8), { code: 'BCD_INVALID' }, 'past the safe integers');
  t.equal(bcdValue(Buffer.of(0x01, 0x23)), 123);
  t.equal(bcdValue(Buffer.alloc(0)), 0, 'no bytes: 0');
});

t.test('LL-var and LLL-var lengths: F0-F9 a digit', async (t) => {
  t.same([...varLength(5, 2)], [0xf0, 0xf5]);
  t.same([...varLength(99, 2)], [0xf9, 0xf9]);
  t.same([...varLength(999, 3)], [0xf9, 0xf9, 0xf9]);
  t.throws(() => varLength(100, 2), { code: 'BCD_INVALID', message: '100 bytes do not fit a LL-var length' });
  t.throws(() => varLength(1000, 3), { message: '1000 bytes do not fit a LLL-var length' });
  t.equal(readVarLength(Buffer.of(0xf1, 0xf2)), 12);
  t.equal(readVarLength(Buffer.of(0xf0, 0xf0, 0xf9)), 9);
  t.throws(() => readVarLength(Buffer.of(0xe1)), {
    code: 'BCD_INVALID',
    message: 'a variable length is F0-F9 a digit, got e1',
  });
  t.throws(() => readVarLength(Buffer.of(0xfa)), { code: 'BCD_INVALID' }, 'F and a nibble above 9');
  t.throws(() => readVarLength(Buffer.of(0x05)), { message: /got 05$/ }, 'the byte in two digits');
});

t.test('APDUs: their codes, their limits, and what a short or long one is told', async (t) => {
  t.equal(codeHex(0x9c), '9C');
  t.equal(codeHex(0x05), '05');
  t.equal(encodeApdu(apdu(0x06, 0x01, Buffer.alloc(MAX_DATA))).length, 5 + MAX_DATA, 'the longest data block');
  t.throws(() => encodeApdu(apdu(0x06, 0x01, Buffer.alloc(MAX_DATA + 1))), {
    code: 'APDU_INVALID',
    message: `a data block is at most ${MAX_DATA} bytes, got ${MAX_DATA + 1}`,
  });
  t.equal(apduSize(Buffer.of(0x06, 0x01)), null, 'no length yet');
  t.equal(apduSize(Buffer.of(0x06, 0x01, 0xff, 0x01)), null, 'a long length not yet whole');
  t.equal(apduSize(Buffer.of(0x06, 0x01, 0xff, 0x01, 0x01)), 5 + 257);
  t.equal(apduSize(Buffer.of(0x06, 0x01, 0xfe)), 3 + 254);
  t.throws(() => decodeApdu(Buffer.of(0x06)), { code: 'APDU_INVALID', message: 'an APDU has at least 3 bytes, got 1' });
  t.throws(() => decodeApdu(Buffer.of(0x06, 0x01, 0x02, 0x00)), {
    message: 'the length field says 5 bytes in all, the APDU has 4',
  });
  t.same(decodeApdu(Buffer.of(0x80, 0x00, 0x00)), { cls: 0x80, ins: 0x00, data: Buffer.alloc(0) });
});

/** Every event a reader emits for `chunks`; `timers` when given. */
function events(chunks: number[][], timers?: ManualTimers): { got: SerialEvent[]; reader: SerialFrameReader } {
  const got: SerialEvent[] = [];
  const reader = new SerialFrameReader((event) => got.push(event), timers);
  for (const chunk of chunks) reader.push(Buffer.from(chunk));
  return { got, reader };
}

t.test('serial bytes outside a frame: ACK, NAK, and noise counted', async (t) => {
  t.same(events([[0x41, 0x42, 0x43]]).got, [{ type: 'noise', bytes: 3 }], 'three stray bytes, one report');
  t.same(events([[ACK], [NAK]]).got, [{ type: 'ack' }, { type: 'nak' }]);
  t.same(
    events([[DLE, 0x41, ACK]]).got,
    [{ type: 'noise', bytes: 2 }, { type: 'ack' }],
    'DLE without STX is noise of two bytes; the line is idle again after it',
  );
  t.same(events([[0x41, ACK]]).got, [{ type: 'noise', bytes: 1 }, { type: 'ack' }], 'noise is told before the ACK');
});

t.test('serial frames: a DLE inside must be doubled or end it; each CRC byte counts', async (t) => {
  const frame = [...encodeSerialFrame(Buffer.of(0x80, 0x00, 0x00))];
  t.same(events([frame]).got, [{ type: 'frame', apdu: Buffer.of(0x80, 0x00, 0x00) }]);
  const badLow = [...frame];
  badLow[badLow.length - 2]! ^= 0x01;
  t.same(events([badLow]).got, [{ type: 'bad-frame', reason: 'CRC mismatch' }], 'the low byte wrong');
  const badHigh = [...frame];
  badHigh[badHigh.length - 1]! ^= 0x01;
  t.same(events([badHigh]).got, [{ type: 'bad-frame', reason: 'CRC mismatch' }], 'the high byte wrong');
  t.same(
    events([[DLE, STX, 0x80, DLE, 0x05], [ACK]]).got,
    [{ type: 'bad-frame', reason: 'DLE followed by 05 inside a frame' }, { type: 'ack' }],
    'given up, and the line idle again',
  );
  t.same(
    events([[DLE, STX, 0x80, DLE, 0x05], frame]).got,
    [
      { type: 'bad-frame', reason: 'DLE followed by 05 inside a frame' },
      { type: 'frame', apdu: Buffer.of(0x80, 0x00, 0x00) },
    ],
    'the next frame reads whole',
  );
  t.same(events([frame, [ACK]]).got.at(-1), { type: 'ack' }, 'idle after a whole frame');
  t.same(events([badLow, [ACK]]).got.at(-1), { type: 'ack' }, 'and after a bad one');
});

t.test('T1: only inside a frame, stopped by the frame end and by destroy', async (t) => {
  const timers = new ManualTimers();
  const { got, reader } = events([[DLE, STX, 0x80]], timers);
  t.equal(timers.armed, 1, 'armed inside a frame');
  reader.destroy();
  t.equal(timers.armed, 0, 'destroy stops it');
  timers.advance(T1_MS * 2);
  t.same(got, [], 'so nothing is given up');
  reader.destroy();

  const idle = events([[ACK]], timers);
  t.equal(timers.armed, 0, 'not armed on an idle line');
  idle.reader.push(Buffer.of(DLE, STX));
  idle.reader.push(Buffer.of(0x80));
  t.equal(timers.armed, 1, 'one timer, rearmed by each chunk');
  timers.advance(T1_MS - 1);
  idle.reader.push(Buffer.of(0x00));
  timers.advance(T1_MS - 1);
  t.same(idle.got, [{ type: 'ack' }], 'each chunk within T1 keeps the frame');
  timers.advance(1);
  t.match(idle.got.at(-1), { type: 'bad-frame', reason: `no byte for ${T1_MS} ms inside a frame (T1)` });

  const untimed = events([[DLE, STX, 0x80]]);
  untimed.reader.destroy();
  t.same(untimed.got, [], 'without timers there is no T1, and nothing fails');
});

t.test('BER lengths: one byte to 127, 81 xx to 255, 82 hi lo to 65535', async (t) => {
  t.same([...berLength(127)], [127]);
  t.same([...berLength(128)], [0x81, 0x80]);
  t.same([...berLength(255)], [0x81, 0xff]);
  t.same([...berLength(256)], [0x82, 0x01, 0x00]);
  t.same([...berLength(65535)], [0x82, 0xff, 0xff]);
  t.throws(() => berLength(65536), { code: 'TLV_INVALID', message: 'a TLV length is at most 65535, got 65536' });
  t.same(readBerLength(Buffer.of(0x7f), 0), { length: 127, size: 1 });
  t.same(readBerLength(Buffer.of(0x00, 0x81, 0x05), 1), { length: 5, size: 2 });
  t.same(readBerLength(Buffer.of(0x82, 0x01, 0x02), 0), { length: 258, size: 3 });
  t.throws(() => readBerLength(Buffer.of(0x01), 1), { message: 'a length is missing' });
  t.throws(() => readBerLength(Buffer.of(0x80), 0), { message: 'length byte 80 is not defined' });
  t.throws(() => readBerLength(Buffer.of(0x83, 0, 0, 0), 0), { message: 'length byte 83 is not defined' });
  t.throws(() => readBerLength(Buffer.of(0x81), 0), { message: 'a length 81 xx is cut short' });
  t.throws(() => readBerLength(Buffer.of(0x05, 0x81), 1), { message: 'a length 81 xx is cut short' });
  t.throws(() => readBerLength(Buffer.of(0x82, 0x01), 0), { message: 'a length 82 hi lo is cut short' });
  t.throws(() => readBerLength(Buffer.of(0x05, 0x82, 0x01), 1), { message: 'a length 82 hi lo is cut short' });
});

t.test('TLV tags: multi-byte ones whole, cut ones refused; constructed by the first byte only', async (t) => {
  t.same(
    decodeTlv(Buffer.of(0x1f, 0x20, 0x01, 0xaa)),
    [{ tag: '1F20', value: Buffer.of(0xaa) }],
    'bit 20 of a later byte',
  );
  t.same(decodeTlv(Buffer.of(0x1f, 0x81, 0x01, 0x00)), [{ tag: '1F8101', value: Buffer.alloc(0) }]);
  t.throws(() => decodeTlv(Buffer.of(0x1f)), { code: 'TLV_INVALID', message: 'a tag is cut short' });
  t.throws(
    () => decodeTlv(Buffer.of(0x1f, 0x81)),
    { message: 'a tag is cut short' },
    'a continuation without its byte',
  );
  t.throws(() => decodeTlv(Buffer.of(0x01, 0x03, 0xaa)), { message: 'tag 01 says 3 bytes, 1 are left' });
  t.same(decodeTlv(Buffer.of(0x21, 0x02, 0x01, 0x00)), [
    { tag: '21', value: Buffer.of(0x01, 0x00), children: [{ tag: '01', value: Buffer.alloc(0) }] },
  ]);
});

/** PA00P015 §13, as the specification lists it: each bitmap's length (a byte count, LL, LLL or BER) and coding. */
const SPECIFIED =
  `01 1 b|02 1 b|03 1 b|04 6 bcd|05 1 b|06 BER tlv|0B 3 bcd|0C 3 bcd|0D 2 bcd|0E 2 bcd|17 2 bcd|19 1 b|22 LL bcd|23 LL bcd|24 LLL bcd|27 1 b|29 4 bcd|2A 15 text|2D LL text|2E LLL b|37 3 bcd|3A 2 bcd|3B 8 text|3C LLL text|3D 3 bcd|49 2 bcd|4C LL b|60 LLL bcd|70 4 b|71 4 b|72 1 b|73 1 b|74 1 b|75 1 b|87 2 bcd|88 3 bcd|8A 1 b|8B LL text|8C 1 b|9A LLL b|A0 1 b|A7 LL b|AA 3 bcd|AF LLL b|BA 5 b|D0 1 b|D1 LL b|D2 1 b|D3 1 b|E0 1 b|E1 LL text|E2 LL text|E3 LL text|E4 LL text|E5 LL text|E6 LL text|E7 LL text|E8 LL text|E9 1 b|EA 1 b|EB 8 b|F0 1 b|F1 LL text|F2 LL text|F3 LL text|F4 LL text|F5 LL text|F6 LL text|F7 LL text|F8 LL text|F9 1 b|FA 1 b|FB 1 b|FC 1 b|FD 1 b`
    .split('|')
    .map((entry) => {
      const [bmp, size, coding] = entry.split(' ') as [string, string, string];
      return {
        bmp: parseInt(bmp, 16),
        size: /^\d+$/.test(size) ? Number(size) : size,
        kind: coding === 'b' ? 'binary' : coding,
      };
    });

t.test('the bitmap table is PA00P015 §13: every bitmap, its length and its coding, each named once', async (t) => {
  t.same(
    Object.keys(BITMAPS).map(Number),
    SPECIFIED.map((spec) => spec.bmp),
    'the same bitmaps',
  );
  for (const spec of SPECIFIED) {
    const entry = BITMAPS[spec.bmp]!;
    t.same({ size: entry.size, kind: entry.kind }, { size: spec.size, kind: spec.kind }, codeHex(spec.bmp));
  }
  const names = Object.values(BITMAPS).map((entry) => entry.name);
  t.ok(
    names.every((name) => /^[a-z][A-Za-z0-9]+$/.test(name)),
    'each a name',
  );
  t.equal(new Set(names).size, names.length, 'none twice');
  t.same(
    [0x04, 0x0b, 0x27, 0x29, 0x3b, 0x87].map((bmp) => BITMAPS[bmp]!.name),
    ['amount', 'trace', 'resultCode', 'terminalId', 'aid', 'receipt'],
    'the names the bridge and the terminal read',
  );
});

t.test('every bitmap round-trips through a data block with its length prefix', async (t) => {
  for (const spec of SPECIFIED) {
    const value =
      typeof spec.size === 'number'
        ? Buffer.alloc(spec.size, 0x12)
        : spec.size === 'BER'
          ? Buffer.of(0x1f, 0x04, 0x01, 0x07)
          : Buffer.of(0x12, 0x34, 0x56);
    const block = encodeFields([{ bmp: spec.bmp, value }]);
    const prefix = spec.size === 'LL' ? 2 : spec.size === 'LLL' ? 3 : spec.size === 'BER' ? 1 : 0;
    t.equal(block.length, 1 + prefix + value.length, `${codeHex(spec.bmp)}: ${prefix} length bytes`);
    t.same(
      decodeFields(block).map(({ bmp, value: v }) => ({ bmp, v })),
      [{ bmp: spec.bmp, v: value }],
    );
  }
  t.same(
    decodeFields(Buffer.of(0x06, 0x02, 0x01, 0x00))[0]!.tlv,
    [{ tag: '01', value: Buffer.alloc(0) }],
    'a TLV container opened',
  );
  t.equal(decodeFields(Buffer.of(0x27, 0x00))[0]!.tlv, undefined, 'others are not');
});

t.test('what a data block may not be, and how each is told', async (t) => {
  t.throws(() => decodeFields(Buffer.of(0xff)), { message: 'unknown bitmap FF', code: 'BITMAP_UNKNOWN' });
  t.throws(() => encodeFields([{ bmp: 0x99, value: Buffer.alloc(1) }]), {
    message: 'unknown bitmap 99',
    code: 'BITMAP_UNKNOWN',
  });
  t.throws(() => decodeFields(Buffer.of(0x04, 0x01)), {
    message: 'bitmap 04 takes 6 bytes, 1 are left',
    code: 'BITMAP_INVALID',
  });
  t.throws(() => decodeFields(Buffer.of(0x22, 0xf0)), {
    message: 'bitmap 22: its length is cut short',
    code: 'BITMAP_INVALID',
  });
  t.same(decodeFields(Buffer.of(0x22, 0xf0, 0xf0)), [{ bmp: 0x22, value: Buffer.alloc(0) }], 'an empty LL value');
  t.same(
    decodeFields(Buffer.of(0x60, 0xf0, 0xf0, 0xf0)),
    [{ bmp: 0x60, value: Buffer.alloc(0) }],
    'an empty LLL value',
  );
  t.throws(() => decodeFields(Buffer.of(0x60, 0xf0, 0xf0)), { message: 'bitmap 60: its length is cut short' });
  t.throws(() => encodeFields([{ bmp: 0x04, value: Buffer.alloc(5) }]), {
    message: 'bitmap 04 is 6 bytes, got 5',
    code: 'BITMAP_INVALID',
  });
  t.same(decodeFields(Buffer.of(0x00, 0x27, 0x05), 1), [{ bmp: 0x27, value: Buffer.of(0x05) }], 'from an offset');
  t.equal(fieldOf([], 0x27), undefined);
  t.same(fieldOf(decodeFields(Buffer.of(0x27, 0x05, 0x27, 0x06)), 0x27), Buffer.of(0x05), 'the first');
});
