import t from 'tap';
import { signWebhook } from '../../webhook-signature.js';
import { atPointer, check } from './expectations.js';

// The edges of what decides whether a scenario passes: every sentence a
// broken expectation says, exactly, and the answers each must not misread.

const answer = (body: unknown, status = 200, headers: Record<string, string> = {}) => ({ status, headers, body });

t.test('no expectation: nothing to say, whatever came', async (t) => {
  t.same(check(answer({ code: 'X' }, 500), undefined), []);
  t.same(check(answer(undefined), {}), [], 'an empty expectation holds for an empty answer');
});

t.test('status: the error code and message said only when the body has a code', async (t) => {
  t.same(check(answer({ code: 'X', message: 'why' }, 409), { status: 200 }), ['expected status 200, got 409 (X: why)']);
  t.same(check(answer({ message: 'why' }, 409), { status: 200 }), ['expected status 200, got 409']);
  t.same(check(answer('<html>', 502), { status: 200 }), ['expected status 200, got 502'], 'a page');
  t.same(check(answer(undefined, 204), { status: 200 }), ['expected status 200, got 204'], 'no body');
  t.same(check(answer(null, 500), { status: 200 }), ['expected status 200, got 500'], 'a null body');
  t.same(check(answer({ code: 'X' }, 200), { status: 200 }), [], 'the status holds: no sentence');
});

t.test('code: none when the body has none, the value shown when it differs', async (t) => {
  t.same(check(answer({}), { code: 'NOT_FOUND' }), ['expected code NOT_FOUND, got none']);
  t.same(check(answer('text'), { code: 'NOT_FOUND' }), ['expected code NOT_FOUND, got none'], 'a text body');
  t.same(check(answer(null), { code: 'NOT_FOUND' }), ['expected code NOT_FOUND, got none'], 'a null body');
  t.same(check(answer({ code: 'NOT_FOUND' }), { code: 'NOT_FOUND' }), []);
  t.same(check(answer({ code: 7 }), { code: 'NOT_FOUND' }), ['expected code NOT_FOUND, got 7']);
});

t.test('fields: a value that differs is said, with both', async (t) => {
  t.same(check(answer({ a: 1 }), { fields: { '/a': 2 } }), ['expected /a to be 2, got 1']);
  t.same(check(answer({ a: { b: [1] } }), { fields: { '/a': { b: [1] } } }), [], 'deeply equal');
  t.same(check(answer({ a: '1' }), { fields: { '/a': 1 } }), ['expected /a to be 1, got "1"'], 'strictly');
});

t.test('oneOf: any one of the values listed, none missing', async (t) => {
  t.same(check(answer({ s: 'VOIDED' }), { oneOf: { '/s': ['VOIDED', 'DISCARDED'] } }), [], 'the first');
  t.same(check(answer({ s: 'DISCARDED' }), { oneOf: { '/s': ['VOIDED', 'DISCARDED'] } }), [], 'the second');
  t.same(check(answer({}), { oneOf: { '/s': ['VOIDED'] } }), ['expected /s to be "VOIDED", but the answer has no /s']);
  t.same(check(answer({ s: 'PAID' }), { oneOf: { '/s': [] } }), ['expected /s to be , got "PAID"'], 'none allowed');
});

t.test('absent, headers and contains', async (t) => {
  t.same(check(answer({ a: 1 }), { absent: [] }), []);
  t.same(check(answer({ a: 1 }), { absent: ['/b'] }), []);
  t.same(check(answer({}, 200, { 'x-a': '1' }), { headers: { 'x-a': '2' } }), [
    'expected header x-a to be "2", got "1"',
  ]);
  t.same(check(answer({}), { headers: { 'x-a': '2' } }), ['expected header x-a to be "2", got none']);
  t.same(check(answer({}, 200, { 'x-a': '' }), { headers: { 'x-a': true } }), [], 'present, even empty');
  t.same(check(answer('<p>Paid</p>'), { contains: ['Paid'] }), [], 'in a page');
  t.same(
    check(answer('<p>Paid</p>'), { contains: ['"Paid"'] }),
    ['expected the answer to contain "\\"Paid\\""'],
    'the text as it is',
  );
  t.same(check(answer({ s: 'Paid' }), { contains: ['"s":"Paid"'] }), [], 'in JSON, as written');
  t.same(check(answer(undefined), { contains: ['x'] }), ['expected the answer to contain "x"'], 'no body');
});

t.test('sequence: the list missing, not a list, begins or equals, oldest first', async (t) => {
  const trace = { data: [{ t: 'c' }, { t: 'b' }, { t: 'a' }] };
  t.same(
    check(answer(trace), { sequence: { list: '/data', item: '/t', equals: ['a', 'b', 'c'], newestFirst: true } }),
    [],
  );
  t.same(check(answer(trace), { sequence: { list: '/data', item: '/t', equals: ['c', 'b'], begins: true } }), []);
  t.same(check(answer(trace), { sequence: { list: '/data', item: '/t', equals: ['a'], begins: true } }), [
    'expected /data (each /t, oldest first) to begin with ["a"], got ["c","b","a"]',
  ]);
  t.same(check(answer(trace), { sequence: { list: '/data', item: '/t', equals: ['c'] } }), [
    'expected /data (each /t, oldest first) to be ["c"], got ["c","b","a"]',
  ]);
  t.same(check(answer({}), { sequence: { list: '/data', item: '/t', equals: [] } }), [
    'expected a sequence at /data, but the answer has no /data',
  ]);
  t.same(check(answer({ data: 1 }), { sequence: { list: '/data', item: '/t', equals: [] } }), [
    'expected a sequence at /data, but /data is not a list',
  ]);
  t.same(check(answer({}), { sequence: { list: '', item: '/t', equals: [] } }), [
    'expected a sequence at , but the body is not a list',
  ]);
  t.same(check(answer(undefined), { sequence: { list: '/x', item: '', equals: [] } }), [
    'expected a sequence at /x, but the answer has no /x',
  ]);
  t.same(check(answer([1, 2]), { sequence: { list: '', item: '', equals: [1, 2] } }), [], 'the body itself');
});

t.test('signed: each webhook signed with the secret; how many at least', async (t) => {
  const secret = 'whsec_edges';
  const timestamp = '2026-11-27T10:00:00.000Z';
  const webhook = (body: string, key = secret) => ({
    raw_body: body,
    headers: { 'svc-timestamp': timestamp, 'svc-signature': signWebhook(key, timestamp, body) },
  });
  t.same(check(answer({ got: [webhook('{}')] }), { signed: { list: '/got', secret } }), []);
  t.same(check(answer({ got: [] }), { signed: { list: '/got', secret } }), [
    'expected at least 1 webhooks at /got, got 0',
  ]);
  t.same(check(answer({ got: [webhook('{}')] }), { signed: { list: '/got', secret, atLeast: 2 } }), [
    'expected at least 2 webhooks at /got, got 1',
  ]);
  t.same(check(answer({ got: [] }), { signed: { list: '/got', secret, atLeast: 0 } }), [], 'none asked for');
  t.same(check(answer({}), { signed: { list: '/got', secret } }), [
    'expected signed webhooks at /got, but the answer has no /got',
  ]);
  t.same(check(answer({ got: [webhook('{}', 'whsec_other')] }), { signed: { list: '/got', secret } }), [
    'expected /got/0 to carry a valid signature: signature_mismatch',
  ]);
  for (const [item, what] of [
    [{ headers: {} }, 'no raw body'],
    [{ raw_body: 1, headers: {} }, 'a raw body that is not text'],
    [{ raw_body: '{}' }, 'no headers'],
    [{ raw_body: '{}', headers: 'x' }, 'headers that are not an object'],
    [{ raw_body: '{}', headers: null }, 'null headers'],
    [null, 'nothing'],
  ] as const)
    t.same(
      check(answer({ got: [item] }), { signed: { list: '/got', secret } }),
      ['/got/0 is not a webhook as received (raw_body and headers)'],
      what,
    );
});

t.test('JSON pointers: escapes, the whole document, and what is not there', async (t) => {
  t.same(atPointer({ a: 1 }, ''), { present: true, value: { a: 1 } });
  t.same(atPointer({ 'a/b': { '~c': 3 } }, '/a~1b/~0c'), { present: true, value: 3 });
  t.same(atPointer({ '~1': 4 }, '/~01'), { present: true, value: 4 }, '~01 is ~1, not /');
  t.same(atPointer({ a: null }, '/a'), { present: true, value: null }, 'a null is there');
  t.same(atPointer({ a: null }, '/a/b'), { present: false }, 'nothing inside a null');
  t.same(atPointer({ a: 'text' }, '/a/length'), { present: false }, 'nothing inside a string');
  t.same(atPointer({ a: 1 }, '/b'), { present: false });
  t.same(atPointer([5, 6], '/1'), { present: true, value: 6 });
  t.same(atPointer(undefined, '/a'), { present: false });
});
