import t from 'tap';
import { seededRandom } from '../../../contracts/common/seeded-random.js';
import { decodeMessage, encodeMessage, SUCCESS, type Message } from './messages.js';

// The payloads of INTERFACE.md §9 as they travel inside a frame: what a device
// sends must decode to the same message, and anything else must be refused
// with a reason a technician can act on, never read as something else.

const samples: Message[] = [
  { code: '0100' },
  { code: '0110', serial: 'SN-1', firmware: '1.2.3', batchOpen: true, pendingCount: 3 },
  { code: '0110', serial: 'SN-1', firmware: '1.2.3', batchOpen: false, pendingCount: 0 },
  { code: '0300', orderId: 'ord_1', amount: 15000, currency: 'CLP' },
  { code: '0310', rc: '00' },
  { code: '0320', orderId: 'ord_1' },
  { code: '0330', rc: '05' },
  { code: '0500' },
  { code: '0510', rc: '00' },
  { code: '0250' },
  {
    code: '0210',
    seq: 7,
    orderId: 'ord_1',
    amount: 15000,
    currency: 'CLP',
    authorizationCode: 'A1B2C3',
    paidAt: '2026-11-21T10:00:00.000Z',
  },
  { code: '0230', seq: 8, orderId: 'ord_1', voidedAt: '2026-11-21T10:05:00.000Z' },
  {
    code: '0520',
    seq: 9,
    batchNumber: 'B-42',
    transactionCount: 12,
    closedAt: '2026-11-21T20:00:00.000Z',
    currencyReference: 'CLP',
    terminal: 'SN-1',
    debitBatch: 'D-1',
  },
  { code: '0260' },
  { code: '0270', seq: 9 },
  { code: '0280', seq: 10 },
  { code: '0990', errorCode: 'E12', text: 'printer out of paper' },
];

t.test('every message encodes to its code and fields in order, and decodes back to itself', async (t) => {
  t.equal(encodeMessage(samples[1]!), '0110|SN-1|1.2.3|1|3');
  t.equal(encodeMessage(samples[2]!), '0110|SN-1|1.2.3|0|0');
  t.equal(encodeMessage(samples[10]!), '0210|7|ord_1|15000|CLP|A1B2C3|2026-11-21T10:00:00.000Z');
  t.equal(encodeMessage({ code: '0100' }), '0100');
  for (const message of samples) t.same(decodeMessage(encodeMessage(message)), message, message.code);
  t.equal(SUCCESS, '00');
});

t.test('property: generated messages survive the round trip, and no field may carry the separator', async (t) => {
  const random = seededRandom(31);
  const text = () =>
    Array.from({ length: Math.floor(random() * 12) }, () =>
      String.fromCharCode(0x20 + Math.floor(random() * 0x5e)),
    ).join('');
  const whole = () => Math.floor(random() * 1e9);
  for (let i = 0; i < 500; i += 1) {
    const paidAt = text();
    const message: Message = {
      code: '0210',
      seq: whole(),
      orderId: text(),
      amount: whole(),
      currency: text(),
      authorizationCode: text(),
      paidAt,
    };
    if (Object.values(message).some((value) => String(value).includes('|'))) {
      t.throws(() => encodeMessage(message), { code: 'MESSAGE_INVALID' });
      continue;
    }
    const decoded = decodeMessage(encodeMessage(message));
    if (JSON.stringify(decoded) !== JSON.stringify(message))
      t.fail(`round trip of ${JSON.stringify(message)} gave ${JSON.stringify(decoded)}`);
  }
  t.throws(() => encodeMessage({ code: '0320', orderId: 'a|b' }), {
    code: 'MESSAGE_INVALID',
    message: 'field orderId may not contain "|"',
  });
});

t.test('a payload that is not one of the messages is refused with what is wrong in it', async (t) => {
  t.throws(() => decodeMessage('0999'), { code: 'MESSAGE_INVALID', message: 'unknown message code "0999"' });
  t.throws(() => decodeMessage(''), { message: 'unknown message code ""' });
  t.throws(() => decodeMessage('0310'), { message: '0310 takes 1 fields, got 0' });
  t.throws(() => decodeMessage('0100|x'), { message: '0100 takes 0 fields, got 1' });
  t.throws(() => decodeMessage('0300|ord_1|12.50|CLP'), {
    message: '0300 field amount must be a whole number, got "12.50"',
  });
  t.throws(() => decodeMessage('0300|ord_1|-5|CLP'), { message: /amount must be a whole number/ });
  t.throws(() => decodeMessage('0300|ord_1||CLP'), { message: /amount must be a whole number/ });
  t.throws(
    () => decodeMessage('0300|ord_1|5 |CLP'),
    { message: /amount must be a whole number/ },
    'a space is not a digit',
  );
  t.throws(() => decodeMessage('0270|x9'), { message: /seq must be a whole number/ });
  t.throws(() => decodeMessage('0110|SN|1|2|0'), { message: '0110 field batchOpen must be 0 or 1' });
  t.throws(() => decodeMessage('0110|SN|1|1|n'), { message: /pendingCount must be a whole number/ });
  t.throws(() => decodeMessage('0520|1|B|x|2026|CLP|SN|D'), { message: /transactionCount must be a whole number/ });
});

t.test('text fields are kept as sent, digits and all; only the numeric fields become numbers', async (t) => {
  t.same(decodeMessage('0320|00123'), { code: '0320', orderId: '00123' });
  t.same(decodeMessage('0310|00'), { code: '0310', rc: '00' });
  t.same(decodeMessage('0300|7|0042|CLP'), { code: '0300', orderId: '7', amount: 42, currency: 'CLP' });
});

t.test(
  'the recovery messages: a close with its id, or without from an older host; an ask asked about, and what the device knows',
  async (t) => {
    t.equal(encodeMessage({ code: '0500', closeId: 'C1x' }), '0500|C1x');
    t.equal(encodeMessage({ code: '0500' }), '0500', "an older host's close");
    t.same(decodeMessage('0500|C1x'), { code: '0500', closeId: 'C1x' });
    t.same(decodeMessage('0500'), { code: '0500' });
    t.throws(() => decodeMessage('0500|a|b'), { message: '0500 takes 0 to 1 fields, got 2' });
    t.same(decodeMessage('0150|charge|ord_1'), { code: '0150', kind: 'charge', orderId: 'ord_1' });
    for (const state of ['pending', 'done', 'declined', 'unknown'] as const)
      t.same(decodeMessage(encodeMessage({ code: '0160', kind: 'void', orderId: 'o', state })), {
        code: '0160',
        kind: 'void',
        orderId: 'o',
        state,
      });
    t.throws(() => decodeMessage('0150|refund|o'), { message: '0150 field kind must be charge or void, got "refund"' });
    t.throws(() => decodeMessage('0160|charge|o|maybe'), {
      message: '0160 field state must be pending, done, declined or unknown, got "maybe"',
    });
    t.throws(() => decodeMessage('0150|charge'), { message: '0150 takes 2 fields, got 1' });
  },
);
