import { crc32 } from 'node:zlib';
import t from 'tap';
import { decodeEntry, encodeEntry } from './journal-codec.js';

// What the journal accepts (issue 31's survivors): a line is replayed only
// when its checksum is right and its operations are operations. A line whose
// checksum matches its own bytes but whose ops are malformed (written by a
// bug, or by hand) is refused at start-up, never replayed.

/** A line whose checksum is right for whatever `opsJson` holds. */
const lineWith = (opsJson: string, seq = 7) =>
  `{"seq":${seq},"crc":"${crc32(opsJson).toString(16).padStart(8, '0')}","ops":${opsJson}}`;

t.test('a line the writer wrote reads back as written', async (t) => {
  const ops = [
    { op: 'put', collection: 'orders', id: 'o1', value: { status: 'PAID', amount: 1500 } },
    { op: 'put', collection: 'orders', id: 'o2', value: {}, claim: { collection: 'claims', id: 'k', until: 5 } },
    { op: 'del', collection: 'orders', id: 'o0' },
  ] as const;
  const line = encodeEntry(42, ops as never);
  t.ok(line.endsWith('\n'));
  t.match(line, /"ops":\[\{"op":"put","c":"orders","id":"o1","v":\{/, 'written in the stored spelling');
  t.match(line, /"k":\{"c":"claims","id":"k","u":5\}/);
  t.same(decodeEntry(line.slice(0, -1)), { seq: 42, ops });
});

t.test('a line with a right checksum and malformed operations is refused', async (t) => {
  const malformed: Record<string, string> = {
    'ops not an array': '{"op":"put","c":"a","id":"1","v":{}}',
    'an op that is not an object': '["put"]',
    'an op that is null': '[null]',
    'an op that is a number': '[5]',
    'an op that is text': '["c"]',
    'an unknown op': '[{"op":"upsert","c":"a","id":"1","v":{}}]',
    'no collection': '[{"op":"put","id":"1","v":{}}]',
    'a collection that is not text': '[{"op":"put","c":5,"id":"1","v":{}}]',
    'no id': '[{"op":"put","c":"a","v":{}}]',
    'an id that is not text': '[{"op":"del","c":"a","id":1}]',
    'a put without a value': '[{"op":"put","c":"a","id":"1"}]',
    'a put whose value is null': '[{"op":"put","c":"a","id":"1","v":null}]',
    'a put whose value is not an object': '[{"op":"put","c":"a","id":"1","v":"x"}]',
    'one good op and one bad': '[{"op":"del","c":"a","id":"1"},{"op":"drop","c":"a","id":"2"}]',
  };
  for (const [what, ops] of Object.entries(malformed))
    t.throws(() => decodeEntry(lineWith(ops)), /malformed operations/, what);
  t.same(decodeEntry(lineWith('[]')), { seq: 7, ops: [] }, 'an empty list of operations is well formed');
  t.same(
    decodeEntry(lineWith('[{"op":"del","c":"a","id":"1"}]')).ops,
    [{ op: 'del', collection: 'a', id: '1' }],
    'a delete needs no value',
  );
});

t.test('a wrong checksum, or a line not shaped as an entry, is refused before its operations are read', async (t) => {
  const good = encodeEntry(3, [{ op: 'del', collection: 'a', id: '1' }] as never).slice(0, -1);
  t.throws(() => decodeEntry(good.replace('"id":"1"', '"id":"2"')), /checksum mismatch/);
  t.throws(() => decodeEntry(`${good} `), /not a journal entry/);
  t.throws(() => decodeEntry(`x${good}`), /not a journal entry/, 'nothing may come before the entry');
  t.throws(
    () => decodeEntry(`${good.slice(0, -1)}}}`),
    /checksum mismatch/,
    'nor after it: the checksum covers the operations to the last brace',
  );
  t.throws(() => decodeEntry(good.replace('"seq":3', '"seq":-3')), /not a journal entry/);
  t.throws(() => decodeEntry(good.replace(/"crc":"[0-9a-f]{8}"/, '"crc":"XYZ"')), /not a journal entry/);
});
