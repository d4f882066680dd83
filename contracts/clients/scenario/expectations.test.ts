import t from 'tap';
import { signWebhook } from '../../webhook-signature.js';
import { check } from './expectations.js';
import { generatedValues } from './generated-values.js';

// Each expectation of a scenario step, on answers made by hand: what holds
// says nothing, what breaks says what was expected and what came.

const answer = (body: unknown, status = 200, headers: Record<string, string> = {}) => ({ status, headers, body });

t.test('status (one or several), code, fields, oneOf and absent', async (t) => {
  t.same(check(answer({ a: 1 }, 201), { status: [200, 201] }), []);
  t.same(check(answer({ code: 'X', message: 'why' }, 409), { status: [200, 201] }), [
    'expected status 200 or 201, got 409 (X: why)',
  ]);
  t.same(check(answer({ code: 'X' }), { code: 'Y' }), ['expected code Y, got "X"']);
  t.same(check(answer({ a: { b: [1, 2] } }), { fields: { '/a/b/1': 2 } }), []);
  t.same(check(answer({ a: {} }), { fields: { '/a/b': 2 } }), ['expected /a/b to be 2, but the answer has no /a/b']);
  t.same(check(answer({ s: 'PAID' }), { oneOf: { '/s': ['VOIDED', 'DISCARDED'] } }), [
    'expected /s to be "VOIDED" or "DISCARDED", got "PAID"',
  ]);
  t.same(check(answer({ data: [{ secret: 'x' }] }), { absent: ['/data/0/secret', '/data/1'] }), [
    'expected no /data/0/secret, got "x"',
  ]);
});

t.test('headers: a value, present, absent', async (t) => {
  const limited = answer({}, 429, { 'retry-after': '12', 'x-ratelimit-remaining': '0' });
  t.same(check(limited, { headers: { 'retry-after': true, 'x-ratelimit-remaining': '0', 'x-other': false } }), []);
  t.same(check(answer({}), { headers: { 'retry-after': true, 'x-svc-sim': 'mock' } }), [
    'expected a header retry-after, there is none',
    'expected header x-svc-sim to be "mock", got none',
  ]);
  t.same(check(limited, { headers: { 'retry-after': false } }), ['expected no header retry-after, got "12"']);
});

t.test('text a page holds', async (t) => {
  t.same(check(answer('<h1>Payment accepted</h1>'), { contains: ['Payment accepted'] }), []);
  t.same(check(answer('<h1>Refused</h1>'), { contains: ['Payment accepted'] }), [
    'expected the answer to contain "Payment accepted"',
  ]);
});

t.test('a sequence, oldest first, from a list newest first, whole or its beginning', async (t) => {
  const trace = { data: [{ e: 'c' }, { e: 'b' }, { e: 'a' }] };
  t.same(
    check(answer(trace), { sequence: { list: '/data', item: '/e', equals: ['a', 'b', 'c'], newestFirst: true } }),
    [],
  );
  t.same(check(answer(trace), { sequence: { list: '/data', item: '/e', equals: ['c', 'b'], begins: true } }), []);
  t.same(check(answer(trace), { sequence: { list: '/data', item: '/e', equals: ['a', 'b'] } }), [
    'expected /data (each /e, oldest first) to be ["a","b"], got ["c","b","a"]',
  ]);
  t.same(check(answer({ data: 'x' }), { sequence: { list: '/data', item: '/e', equals: [] } }), [
    'expected a sequence at /data, but /data is not a list',
  ]);
});

t.test('webhooks signed with a secret, as the trace and a receiver keep them', async (t) => {
  const secret = 'whsec_test';
  const webhook = (rawBody: string, signedWith = secret) => {
    const timestamp = '2026-11-21T10:00:00.000Z';
    return {
      raw_body: rawBody,
      headers: { 'svc-timestamp': timestamp, 'svc-signature': signWebhook(signedWith, timestamp, rawBody) },
    };
  };
  const good = webhook('{"event":"payment_session.paid"}');
  t.same(check(answer({ data: [good] }), { signed: { list: '/data', secret } }), [], 'old timestamps are not refused');
  t.same(check(answer({ data: [good, webhook('{}', 'another')] }), { signed: { list: '/data', secret } }), [
    'expected /data/1 to carry a valid signature: signature_mismatch',
  ]);
  const reserialised = { ...good, raw_body: JSON.stringify(JSON.parse(good.raw_body), null, 1) };
  t.same(check(answer({ data: [reserialised] }), { signed: { list: '/data', secret } }), [
    'expected /data/0 to carry a valid signature: signature_mismatch',
  ]);
  t.same(check(answer({ data: [] }), { signed: { list: '/data', secret, atLeast: 1 } }), [
    'expected at least 1 webhooks at /data, got 0',
  ]);
  t.same(check(answer({ data: [{ body: {} }] }), { signed: { list: '/data', secret } }), [
    '/data/0 is not a webhook as received (raw_body and headers)',
  ]);
});

t.test('generated values: the same seed draws the same, another seed others', async (t) => {
  const draw = (seed: number) => {
    const { values, jitter } = generatedValues(seed);
    return [values.amount, values.decimalAmount, values.batchNumber, values.email, values.digits, jitter(8), jitter(0)];
  };
  t.same(draw(5), draw(5));
  t.not(JSON.stringify(draw(5)), JSON.stringify(draw(6)));
  const [amount, decimal, batch, email, digits, jitter, none] = draw(9) as [
    number,
    number,
    number,
    string,
    string,
    number,
    number,
  ];
  t.ok(Number.isInteger(amount) && amount >= 100 && amount <= 99_999);
  t.equal(Math.round(decimal * 100) / 100, decimal, 'two decimals at most');
  t.ok(batch >= 1 && batch <= 999_999);
  t.match(email, /^payer-[0-9a-f]{6}@example\.com$/);
  t.match(digits, /^\d{6}$/);
  t.ok(jitter >= 0 && jitter <= 8);
  t.equal(none, 0);
});
