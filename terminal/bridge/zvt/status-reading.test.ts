import t from 'tap';
import { bcdNumber } from '../../protocol/zvt/bcd.js';
import { decodeFields, encodeFields } from '../../protocol/zvt/bitmaps.js';
import { authorizationOf, readStatus } from './status-reading.js';

// What the bridge reads in status information (04 0F): exactly the fields
// sent, nothing invented for the ones absent; the authorisation attribute
// without its padding; an end of day's count over every scheme.

const fields = (list: Array<{ bmp: number; value: Buffer }>) => decodeFields(encodeFields(list));

t.test('every field the bridge uses, read; none added when absent', async (t) => {
  t.same(
    readStatus(
      fields([
        { bmp: 0x27, value: Buffer.of(0x00) },
        { bmp: 0x04, value: bcdNumber(2345, 6) },
        { bmp: 0x0b, value: bcdNumber(17, 3) },
        { bmp: 0x37, value: bcdNumber(12, 3) },
        { bmp: 0x3b, value: Buffer.from('A1B2\0\0  ', 'latin1') },
        { bmp: 0x87, value: bcdNumber(9, 2) },
      ]),
    ),
    { resultCode: 0, amount: 2345, trace: 17, receipt: 9, originalTrace: 12, aid: 'A1B2' },
  );
  t.same(readStatus(fields([{ bmp: 0x27, value: Buffer.of(0x05) }])), { resultCode: 5 }, 'a decline: its code alone');
  t.same(readStatus([]), { resultCode: 0 }, 'no bitmap 27 reads as 00, nothing else');
  t.same(
    readStatus(fields([{ bmp: 0x04, value: bcdNumber(0, 6) }])),
    { resultCode: 0, amount: 0 },
    'a zero amount is kept',
  );
});

t.test('the authorisation attribute: padding taken off the end only; all padding is none', async (t) => {
  const aid = (text: string) => readStatus(fields([{ bmp: 0x3b, value: Buffer.from(text, 'latin1') }])).aid;
  t.equal(aid('12 45\0\0\0'), '12 45', 'a space inside stays');
  t.equal(aid('\0\0\0\0\0\0\0\0'), undefined);
  t.equal(aid('ABCDEFGH'), 'ABCDEFGH');
  t.equal(aid('\u00e9BCD    '), '\u00e9BCD', 'latin1, byte for byte');
});

t.test("an end of day's single totals: the counts of every scheme added, the total its amount", async (t) => {
  const scheme = (count: number, amount: number) => Buffer.concat([Buffer.of(count), bcdNumber(amount, 6)]);
  const totals = Buffer.concat([bcdNumber(1, 2), bcdNumber(9, 2), scheme(2, 3000), scheme(0, 0), scheme(5, 700)]);
  t.same(
    readStatus(
      fields([
        { bmp: 0x04, value: bcdNumber(3700, 6) },
        { bmp: 0x60, value: totals },
      ]),
    ).endOfDay,
    { count: 7, total: 3700 },
  );
  const cut = Buffer.concat([bcdNumber(1, 2), bcdNumber(2, 2), scheme(3, 10), Buffer.of(4, 0, 0)]);
  t.same(
    readStatus(fields([{ bmp: 0x60, value: cut }])).endOfDay,
    { count: 3, total: 0 },
    'a cut scheme is not counted; no amount: 0',
  );
  t.same(readStatus(fields([{ bmp: 0x60, value: bcdNumber(0, 4) }])).endOfDay, { count: 0, total: 0 }, 'an empty day');
});

t.test('the authorization code the server is told: 3B, else T<trace>R<receipt>', async (t) => {
  t.equal(authorizationOf({ resultCode: 0, aid: '482913', trace: 1, receipt: 2 }), '482913');
  t.equal(authorizationOf({ resultCode: 0, trace: 123, receipt: 45 }), 'T000123R0045');
  t.equal(authorizationOf({ resultCode: 0 }), 'T000000R0000');
});
