import { readFileSync } from 'node:fs';
import t from 'tap';
import { hex } from '../frame.js';
import { ManualTimers } from '../timers.js';
import { apdu, ApduReader, decodeApdu, encodeApdu } from './apdu.js';
import { bcdNumber, bcdValue, packBcd, readVarLength, varLength } from './bcd.js';
import { decodeFields, encodeFields, fieldOf } from './bitmaps.js';
import { crc16, frameChecksum } from './crc.js';
import { encodeSerialFrame, SerialFrameReader, type SerialEvent } from './serial-frame.js';
import { decodeTlv, encodeTlv, findTlv, tlv } from './tlv.js';

const bytes = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');

t.test('the CRC: vectors from published traces (APDU + ETX, low byte first)', async (t) => {
  t.equal(hex(frameChecksum(bytes('80 00 00'))), 'f5 1f');
  t.equal(hex(frameChecksum(bytes('05 01 03 12 34 56'))), 'e0 43');
  t.equal(hex(frameChecksum(bytes('06 01 07 04 00 00 00 00 01 90'))), '76 57');
  // CRC-16/KERMIT's check value: the reflected 0x8408 with initial value 0 over "123456789".
  t.equal(crc16(Buffer.from('123456789')), 0x2189);
});

t.test('a serial frame: DLE STX, the APDU with DLEs doubled, DLE ETX, the CRC unstuffed', async (t) => {
  t.equal(hex(encodeSerialFrame(bytes('80 00 00'))), '10 02 80 00 00 10 03 f5 1f');
  // A declined payment's result code 0x10 is stuffed on the line, but counted once in the length and the CRC.
  const declined = bytes('06 1e 01 10');
  const frame = encodeSerialFrame(declined);
  t.equal(hex(frame.subarray(0, 8)), '10 02 06 1e 01 10 10 10');
  t.same(frame.subarray(9), frameChecksum(declined));
});

/** Feeds chunks to a reader, moving time by each chunk's wait, and collects its events. */
function read(chunks: Array<[Buffer, number?]>): SerialEvent[] {
  const timers = new ManualTimers();
  const events: SerialEvent[] = [];
  const reader = new SerialFrameReader((event) => events.push(event), timers);
  for (const [chunk, waitMs] of chunks) {
    if (waitMs) timers.advance(waitMs);
    reader.push(chunk);
  }
  timers.advance(1000);
  return events;
}

t.test('reading serial frames', async (t) => {
  const declined = encodeSerialFrame(bytes('06 1e 01 10'));
  t.same(read([[declined]]), [{ type: 'frame', apdu: bytes('06 1e 01 10') }], 'unstuffed');
  t.same(
    read([...declined].map((byte) => [Buffer.of(byte), 150] as [Buffer, number])),
    [{ type: 'frame', apdu: bytes('06 1e 01 10') }],
    'byte by byte within T1',
  );
  t.same(
    read([[Buffer.of(0x06)], [declined], [Buffer.of(0x15)]]),
    [{ type: 'ack' }, { type: 'frame', apdu: bytes('06 1e 01 10') }, { type: 'nak' }],
    'ACK and NAK between frames',
  );
  const broken = Buffer.from(declined);
  broken[broken.length - 1]! ^= 0xff;
  t.same(read([[broken]]), [{ type: 'bad-frame', reason: 'CRC mismatch' }]);
  t.match(
    read([[declined.subarray(0, 5)], [declined.subarray(5), 200]]),
    [{ type: 'bad-frame', reason: /T1/ }],
    'a pause of T1 inside a frame gives it up',
  );
  t.match(read([[bytes('10 02 80 10 41 00 10 03 00 00')]]), [{ type: 'bad-frame', reason: /DLE followed by 41/ }]);
});

t.test('APDU lengths: one byte up to 254, FF lo hi beyond', async (t) => {
  t.equal(hex(encodeApdu(apdu(0x80, 0x00))), '80 00 00');
  const long = encodeApdu(apdu(0x06, 0xd3, Buffer.alloc(300, 0x41)));
  t.equal(hex(long.subarray(0, 5)), '06 d3 ff 2c 01');
  t.equal(long.length, 305);
  t.equal(decodeApdu(long).data.length, 300);
  t.equal(encodeApdu(apdu(0x06, 0xd3, Buffer.alloc(254))).length, 257, '254 still fits one byte');
  t.throws(
    () => decodeApdu(bytes('06 01 0c 04 00 00 00 00 01 00')),
    { code: 'APDU_INVALID' },
    'a length that disagrees',
  );
});

t.test('PA00P016 §5.1 example is not self-consistent: its length says 12, it carries 20', async (t) => {
  // 06 01 0C, then amount, currency, payment type and a TLV container: 20 bytes, not 12.
  const example = bytes('06 01 0c 04 00 00 00 00 10 00 49 09 78 19 40 06 04 40 02 01 02 00 00');
  t.throws(() => decodeApdu(example), /says 15 bytes in all, the APDU has 23/);
});

t.test('TCP: APDUs however the stream cuts them', async (t) => {
  const stream = Buffer.concat([
    encodeApdu(apdu(0x06, 0x01, bytes('04 000000000150 49 0978'))),
    encodeApdu(apdu(0x06, 0xd3, Buffer.alloc(600, 0x20))),
    encodeApdu(apdu(0x80, 0x00)),
  ]);
  for (const size of [1, 2, 3, 4, 5, 7, 64, stream.length]) {
    const reader = new ApduReader();
    const got = [];
    for (let offset = 0; offset < stream.length; offset += size)
      got.push(...reader.push(stream.subarray(offset, offset + size)));
    t.same(
      got.map((one) => [one.cls, one.ins, one.data.length]),
      [
        [0x06, 0x01, 10],
        [0x06, 0xd3, 600],
        [0x80, 0x00, 0],
      ],
      `chunks of ${size}`,
    );
    t.notOk(reader.partial);
  }
});

t.test('BCD and variable lengths', async (t) => {
  t.equal(hex(bcdNumber(150, 6)), '00 00 00 00 01 50');
  t.equal(bcdValue(bytes('00 00 00 00 01 50')), 150);
  t.equal(hex(packBcd('123456')), '12 34 56');
  t.equal(hex(varLength(12, 2)), 'f1 f2', 'PA00P016 §5.2.8.1');
  t.equal(hex(varLength(3, 3)), 'f0 f0 f3', 'PA00P016 §5.2.8.2');
  t.equal(readVarLength(bytes('f0 f1 f2')), 12);
  t.throws(() => readVarLength(bytes('f0 3a')));
});

t.test('bitmaps: fixed, LL-var, LLL-var, TLV; an unknown one is named', async (t) => {
  const block = encodeFields([
    { bmp: 0x04, value: bcdNumber(2500, 6) },
    { bmp: 0x22, value: bytes('01 23 45') },
    { bmp: 0x3c, value: Buffer.from('hello') },
    { bmp: 0x06, value: encodeTlv([tlv('12', Buffer.of(40))]) },
  ]);
  t.equal(hex(block), '04 00 00 00 00 25 00 22 f0 f3 01 23 45 3c f0 f0 f5 68 65 6c 6c 6f 06 03 12 01 28');
  const fields = decodeFields(block);
  t.equal(bcdValue(fieldOf(fields, 0x04)!), 2500);
  t.same(fields[3]!.tlv, [{ tag: '12', value: Buffer.of(40) }]);
  t.throws(() => decodeFields(bytes('04 00 00 00 00 01 00 5f 01')), { code: 'BITMAP_UNKNOWN' });
  t.throws(() => decodeFields(bytes('04 00 00')), /takes 6 bytes, 2 are left/);
});

t.test('TLV: multi-byte tags, BER lengths, constructed objects', async (t) => {
  const container = encodeTlv([
    { tag: '26', value: Buffer.alloc(0), children: [tlv('0A', bytes('06 01')), tlv('0A', bytes('06 D3'))] },
    tlv('1F04', Buffer.alloc(200, 0x31)),
    tlv('07', Buffer.alloc(300, 0x32)),
  ]);
  t.equal(hex(container.subarray(0, 10)), '26 08 0a 02 06 01 0a 02 06 d3');
  t.equal(hex(container.subarray(10, 14)), '1f 04 81 c8', 'a two-byte tag, a length 81 xx');
  t.equal(hex(container.subarray(214, 218)), '07 82 01 2c', 'a length 82 hi lo');
  const objects = decodeTlv(container);
  t.same(
    objects[0]!.children!.map((child) => hex(child.value)),
    ['06 01', '06 d3'],
  );
  t.equal(findTlv(objects, '1F04')!.value.length, 200);
});

interface Published {
  apdus: Array<{ file: string; hex: string }>;
}
const published = JSON.parse(
  readFileSync(new URL('../../../fixtures/zvt/published-apdus.json', import.meta.url), 'utf8'),
) as Published;

t.test('APDUs a real terminal sent read whole: every bitmap and TLV object known', async (t) => {
  for (const { file, hex: text } of published.apdus) {
    const message = decodeApdu(Buffer.from(text, 'hex'));
    const plain = [0x06, 0x0f].join() === [message.cls, message.ins].join() && message.data.length === 1;
    if (plain) continue; // 06 0F with the terminal status byte alone (after a status enquiry)
    const fields =
      message.cls === 0x06 && message.ins === 0x1e
        ? decodeFields(message.data, 1) // Abort: the result code, then bitmaps
        : message.cls === 0x04 && message.ins === 0xff
          ? decodeFields(message.data, 2) // intermediate status, timeout, then bitmaps
          : decodeFields(message.data);
    t.ok(fields.length >= 0, `${file}: ${fields.map((field) => field.bmp.toString(16)).join(' ')}`);
    t.same(
      encodeFields(fields),
      message.data.subarray(message.data.length - encodeFields(fields).length),
      `${file} re-encodes`,
    );
  }
  const approved = decodeFields(
    decodeApdu(Buffer.from(published.apdus.find((a) => a.file.includes('081649050'))!.hex, 'hex')).data,
  );
  t.equal(fieldOf(approved, 0x27)![0], 0x00, 'approved');
  t.equal(bcdValue(fieldOf(approved, 0x04)!), 1);
  t.equal(
    fieldOf(approved, 0x22)!.toString('hex'),
    'eeeeeeeeeeee5726',
    'a PAN masked with E: the last four digits shown',
  );
  t.equal(fieldOf(approved, 0x8b)!.toString('latin1'), 'Debit Mastercard\0');
  const textBlock = decodeApdu(Buffer.from(published.apdus.find((a) => a.file.includes('1617777384987'))!.hex, 'hex'));
  t.equal(textBlock.data.length, 0x042d, 'an extended length: FF 2D 04');
  const lines = findTlv(decodeFields(textBlock.data)[0]!.tlv, '25')!.children!.filter((object) => object.tag === '07');
  t.equal(lines[0]!.value.toString('latin1'), '** KASSENSCHNITT **');
});

const feig = JSON.parse(
  readFileSync(new URL('../../../fixtures/zvt/everest-feig-apdus.json', import.meta.url), 'utf8'),
) as Published;

/** Where each command's bitmaps start: the fixed fields before them (PA00P015 §2, §3). */
function fixedPart(message: { cls: number; ins: number; data: Buffer }): number | 'status-completion' | 'opaque' {
  const control = (message.cls << 8) | message.ins;
  switch (control) {
    case 0x0600: // registration: password, config byte, currency
      return Math.min(6, message.data.length);
    case 0x0650: // end of day and write file (08 14): the password; change configuration (08 13) has none
    case 0x0814:
      return 3;
    case 0x061e: // Abort: the result code
    case 0x06c0: // read card: the time-out
      return 1;
    case 0x04ff: // intermediate status: the status, then a time-out when more follows
      return Math.min(message.data.length, 1);
    case 0x060f: {
      // A status enquiry's completion opens with the software version (LLL, F0-F9 digits): then the status byte
      if (message.data.length > 3 && message.data.subarray(0, 3).every((byte) => byte >> 4 === 0x0f))
        return 'status-completion';
      // Feig's answer to its own system-information command (0F A1): ASCII, no bitmaps
      return /^[\x20-\x7e]+$/.test(message.data.toString('latin1')) && message.data.length > 8 ? 'opaque' : 0;
    }
    default:
      return message.cls === 0x0f ? 'opaque' : 0; // class 0F: Feig's own commands
  }
}

t.test("EVerest's captured Feig cVEND traffic decodes whole and re-encodes byte for byte", async (t) => {
  for (const { file, hex: text } of feig.apdus) {
    const bytes = Buffer.from(text, 'hex');
    const message = decodeApdu(bytes);
    t.same(encodeApdu(message), bytes, `${file}: the APDU, its length form kept`);
    const fixed = fixedPart(message);
    if (fixed === 'opaque') continue;
    const start = fixed === 'status-completion' ? 3 + readVarLength(message.data.subarray(0, 3)) + 1 : fixed;
    const fields = decodeFields(message.data, start);
    // Every TLV container re-encoded from its decoded objects: tags, BER lengths and nesting exactly as sent.
    const again = encodeFields(
      fields.map((field) => (field.tlv ? { bmp: field.bmp, value: encodeTlv(field.tlv) } : field)),
    );
    t.same(
      Buffer.concat([message.data.subarray(0, start), again]),
      message.data,
      `${file}: every bitmap and TLV object`,
    );
  }
  const reservation = decodeFields(
    decodeApdu(Buffer.from(feig.apdus.find((a) => a.file.includes('1680728162.033575000'))!.hex, 'hex')).data,
  );
  t.equal(bcdValue(fieldOf(reservation, 0x04)!), 2500, "EVerest's reservation: 25.00");
  const enquiry = decodeApdu(Buffer.from(feig.apdus.find((a) => a.file.includes('partial_reversal'))!.hex, 'hex'));
  t.same([...enquiry.data], [0xb8, 0x87, 0xff, 0xff], 'the open-reservation answer: B8, none open');
  const hostConfig = decodeApdu(Buffer.from(feig.apdus.find((a) => a.file.includes('change_host_config'))!.hex, 'hex'));
  const address = findTlv(decodeFields(hostConfig.data)[0]!.tlv, 'FF40')!;
  t.match(
    address,
    { value: Buffer.from('123456', 'hex'), children: undefined },
    "Feig's FF40: constructed by its bit, a plain value",
  );
});
