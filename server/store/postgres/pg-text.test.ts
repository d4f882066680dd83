import t from 'tap';
import { decodeJson, decodeKey, encodeJson, encodeKey } from './pg-text.js';

const hostile = [
  'a\u0000b',
  '\u0000',
  'x\u0001y',
  '\u0001e',
  '\u00010',
  '\ud800',
  'a\udc00b',
  '\udc00\ud800',
  '😀',
  'a😀\ud83d',
  '\\u0000',
  '\\\u0000',
  'plain',
  '',
];

t.test('keys round-trip and never hold NUL or a lone surrogate', async (t) => {
  for (const text of hostile) {
    const encoded = encodeKey(text);
    t.notMatch(
      encoded,
      /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/,
      JSON.stringify(text),
    );
    t.equal(decodeKey(encoded), text, JSON.stringify(text));
  }
  t.equal(encodeKey('plain'), 'plain', 'ordinary text is untouched');
});

t.test('JSON values round-trip, keys included, and never hold \\u0000 or a lone surrogate escape', async (t) => {
  for (const text of hostile) {
    const value = { [text]: [text, { nested: text }], n: 1 };
    const encoded = encodeJson(value);
    t.notMatch(encoded, /(?<!\\)(\\\\)*\\u(0000|d[89a-f][0-9a-f]{2})/, JSON.stringify(text));
    t.same(decodeJson(encoded), value, JSON.stringify(text));
  }
});
