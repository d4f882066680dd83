import { crc32 } from 'node:zlib';
import t from 'tap';
import {
  checkedLine,
  checkedLines,
  footerJson,
  headerJson,
  hex,
  isEntry,
  UNCHECKSUMMED_SNAPSHOT_FORMAT,
  openCheckedLine,
  parseFooter,
  parseHeader,
  SNAPSHOT_FORMAT,
} from './snapshot-codec.js';

// What a snapshot's reader accepts, line by line: a store that starts on a
// damaged or foreign file must refuse it, never load part of it as state.

t.test(
  'a checked line is its CRC-32 in 8 lowercase hex digits, a space, the JSON; it opens back to the JSON',
  async (t) => {
    const json = '["orders","o1",{"amount":1500}]';
    const line = checkedLine(json);
    t.equal(line, `${crc32(json).toString(16).padStart(8, '0')} ${json}`);
    t.same(openCheckedLine(line), { json });
    t.same(openCheckedLine('00000000 '), { json: '' }, 'the shortest line: an empty text, whose CRC is 0');
    t.equal(hex(0xabc), '00000abc');
  },
);

t.test(
  'a line without a well-formed checksum is damaged as such; a right-looking checksum of other bytes as a mismatch',
  async (t) => {
    const line = checkedLine('{"a":1}');
    for (const damaged of [
      '',
      'abc',
      line.slice(0, 8),
      line.replace(' ', '_'),
      line.toUpperCase(),
      `g${line.slice(1)}`,
      `zz${line}`,
      ` ${line}`,
    ]) {
      t.same(openCheckedLine(damaged), { damage: 'no line checksum' }, JSON.stringify(damaged.slice(0, 12)));
    }
    t.same(openCheckedLine(line.replace('1', '2')), { damage: 'checksum mismatch' });
    t.same(openCheckedLine(`${line} `), { damage: 'checksum mismatch' });
  },
);

t.test('many lines at once are the same bytes as one at a time, ASCII or not', async (t) => {
  for (const jsons of [['{"a":1}', '{"b":2}', '[]'], ['{"name":"café"}', '{"x":"ñandú €"}', '{}'], []]) {
    t.equal(
      checkedLines(jsons).toString('utf8'),
      jsons.map((json) => `${checkedLine(json)}\n`).join(''),
      JSON.stringify(jsons),
    );
  }
});

t.test('a header names a format this reader knows and a sequence number that is a whole number from 0', async (t) => {
  t.same(parseHeader(headerJson(0)), { format: SNAPSHOT_FORMAT, seq: 0 });
  t.same(parseHeader(headerJson(41)), { format: SNAPSHOT_FORMAT, seq: 41 });
  t.same(parseHeader(JSON.stringify({ format: UNCHECKSUMMED_SNAPSHOT_FORMAT, seq: 3 })), {
    format: UNCHECKSUMMED_SNAPSHOT_FORMAT,
    seq: 3,
  });
  for (const header of [
    { format: 'svc-snapshot/9', seq: 1 },
    { seq: 1 },
    { format: SNAPSHOT_FORMAT, seq: -1 },
    { format: SNAPSHOT_FORMAT, seq: 1.5 },
    { format: SNAPSHOT_FORMAT, seq: '1' },
    { format: SNAPSHOT_FORMAT, seq: 2 ** 60 },
    { format: SNAPSHOT_FORMAT },
  ]) {
    t.equal(parseHeader(JSON.stringify(header)), null, JSON.stringify(header));
  }
  t.equal(parseHeader('{not json'), null);
  t.equal(parseHeader('null'), null);
});

t.test("a footer ends the file with the count of records and the file's checksum", async (t) => {
  t.same(parseFooter(footerJson(12, 0xdeadbeef)), { count: 12, crc: 'deadbeef' });
  t.same(parseFooter(JSON.stringify({ end: true, count: 0 })), { count: 0 }, 'a legacy footer without a checksum');
  t.same(
    parseFooter(JSON.stringify({ end: true, count: 3, crc: 7 })),
    { count: 3 },
    'a checksum that is not text is not taken',
  );
  for (const footer of [
    { end: 'yes', count: 1 },
    { count: 1 },
    { end: true, count: 1.5 },
    { end: true, count: '1' },
    { end: true },
  ]) {
    t.equal(parseFooter(JSON.stringify(footer)), null, JSON.stringify(footer));
  }
  t.equal(parseFooter('{not json'), null);
  t.equal(parseFooter('null'), null);
});

t.test('an entry is [collection, id, record]: two texts and an object', async (t) => {
  t.ok(isEntry(['orders', 'o1', { a: 1 }]));
  t.ok(isEntry(['orders', 'o1', []]), 'an array is an object to JSON too');
  for (const value of [
    ['orders', 'o1'],
    ['orders', 'o1', { a: 1 }, 'extra'],
    [1, 'o1', {}],
    ['orders', 1, {}],
    ['orders', 'o1', null],
    ['orders', 'o1', 'text'],
    ['orders', 'o1', 5],
    { 0: 'orders', 1: 'o1', 2: {}, length: 3 },
    null,
    'orders',
  ]) {
    t.notOk(isEntry(value), JSON.stringify(value));
  }
});
