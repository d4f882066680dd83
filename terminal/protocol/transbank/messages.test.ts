import t from 'tap';
import { seededRandom } from '../../../contracts/testing/seeded-random.js';
import { encodeFrame } from '../frame.js';
import { decodeRequest, decodeResponse, encodeRequest, encodeResponse, RESPONSE_LAYOUTS, TransbankMessageError, type ResponseCode } from './messages.js';
import { describeResponseCode, isKnownResponseCode } from './response-codes.js';

// The messages of the public POS Integrado reference, checked against the
// reference's own worked frames (their bytes and LRC) and against what the
// official SDK writes, which differs from the reference in places.

t.test('the reference\'s worked frames, byte for byte, LRC included', async (t) => {
  const frames: Array<[Parameters<typeof encodeRequest>[0], number[]]> = [
    [{ code: '0250', fields: {} }, [0x02, 0x30, 0x32, 0x35, 0x30, 0x7c, 0x03, 0x78]],
    [{ code: '1200', fields: { operationNumber: '10' } }, [0x02, 0x31, 0x32, 0x30, 0x30, 0x7c, 0x31, 0x30, 0x7c, 0x03, 0x01]],
    [{ code: '0500', fields: {} }, [0x02, 0x30, 0x35, 0x30, 0x30, 0x7c, 0x7c, 0x03, 0x06]],
    [{ code: '0700', fields: {} }, [0x02, 0x30, 0x37, 0x30, 0x30, 0x7c, 0x7c, 0x03, 0x04]],
    [{ code: '0800', fields: {} }, [0x02, 0x30, 0x38, 0x30, 0x30, 0x03, 0x0b]],
    [{ code: '0100', fields: {} }, [0x02, 0x30, 0x31, 0x30, 0x30, 0x03, 0x02]],
    [{ code: '0300', fields: {} }, [0x02, 0x30, 0x33, 0x30, 0x30, 0x03, 0x00]],
  ];
  for (const [message, bytes] of frames) t.same([...encodeFrame(encodeRequest(message))], bytes, message.code);
  t.equal(encodeFrame('0200|123|').at(-1), 0x31, 'the reference\'s LRC example');
});

t.test('requests as the official SDK writes them are read, and as the reference writes them', async (t) => {
  t.same(decodeRequest('0200|000015000|000123|||0'), { code: '0200', fields: { amount: 15000, ticket: '000123', sendStatus: false } }, 'the SDK: no separator at the end');
  t.same(decodeRequest('0200|15000|A1|||1|'), { code: '0200', fields: { amount: 15000, ticket: 'A1', sendStatus: true } }, 'the reference: a separator at the end');
  t.same(decodeRequest('0270|000004000|0000M1|||0|597099999999'), { code: '0270', fields: { amount: 4000, ticket: '0000M1', sendStatus: false, commerceProvider: '597099999999' } });
  t.same(decodeRequest('0270|4000|M1|| |0|597099999999|'), { code: '0270', fields: { amount: 4000, ticket: 'M1', sendStatus: false, commerceProvider: '597099999999' } }, 'a filler in the reserved field');
  t.same(decodeRequest('0260|1|'), { code: '0260', fields: { sendToRegister: true } });
  t.same(decodeRequest('0260|0|'), { code: '0260', fields: { sendToRegister: false } });
  t.same(decodeRequest('1200|10|'), { code: '1200', fields: { operationNumber: '10' } });
  t.same(decodeRequest('0500||'), { code: '0500', fields: {} });
  t.same(decodeRequest('0100'), { code: '0100', fields: {} });
  t.equal(encodeRequest({ code: '0200', fields: { amount: 15000, ticket: 'A1', sendStatus: true } }), '0200|15000|A1|||1|');
  t.equal(encodeRequest({ code: '0260', fields: { sendToRegister: true } }), '0260|1|');
});

t.test('a request the terminal cannot read is refused, naming the field', async (t) => {
  const refused = (payload: string, field: string | undefined, message: RegExp) => {
    try {
      decodeRequest(payload);
      t.fail(`${payload} was read`);
    } catch (error) {
      t.ok(error instanceof TransbankMessageError, payload);
      t.equal((error as TransbankMessageError).field, field, `${payload}: the field`);
      t.match((error as Error).message, message, `${payload}: the reason`);
    }
  };
  refused('0200|1000000000|A1|||0', 'amount', /0200 field amount takes at most 9 characters, got 10/);
  refused('0200|12.5|A1|||0', 'amount', /must be digits/);
  refused('0200|100|1234567|||0', 'ticket', /ticket takes at most 6 characters/);
  refused('0200|100||||0', 'ticket', /0200 field ticket is required/);
  refused('0200|100|A1|||2', 'sendStatus', /must be 1 or 0, got "2"/);
  refused('1200|abc|', 'operationNumber', /must be digits/);
  refused('0999', undefined, /unknown command "0999"/);
  refused('0500|x|', undefined, /0500 takes 0 fields, got 2/);
});

t.test('responses are written as the reference lays them out, and read back', async (t) => {
  const sale = {
    responseCode: '00', commerceCode: '597012345678', terminalId: 'TBK00001', ticket: 'T00001', authorizationCode: '123456', amount: 15000,
    sharesNumber: 0, sharesAmount: null, last4Digits: '6677', operationNumber: '000060', cardType: 'CR', accountingDate: null, accountNumber: null,
    cardBrand: 'VI', realDate: '28102019', realTime: '223512', employeeId: null, tip: null,
  };
  const written = encodeResponse({ code: '0210', fields: sale });
  t.equal(written, '0210|00|597012345678|TBK00001|T00001|123456|15000|0||6677|000060|CR|||VI|28102019|223512|||');
  t.same(decodeResponse(written), { code: '0210', fields: sale });
  t.equal(encodeResponse({ code: '0510', fields: { responseCode: '00', commerceCode: '597012345678', terminalId: 'TBK00001' } }), '0510|00|597012345678|TBK00001');
  t.equal(encodeResponse({ code: '0710', fields: { responseCode: '00', transactionCount: 1, total: 2000 } }), '0710|00|1|2000', 'the reference\'s totals example');
  t.equal(encodeResponse({ code: '1210', fields: { responseCode: '00', commerceCode: '597012345678', terminalId: 'TBK00001', authorizationCode: '123456', operationNumber: '000061' } }), '1210|00|597012345678|TBK00001|123456|000061');
  t.equal(encodeResponse({ code: '0900', fields: { responseCode: '78' } }), '0900|78|');
  t.throws(() => encodeResponse({ code: '0510', fields: { responseCode: '00', commerceCode: '597012345678' } }), { message: '0510 field terminalId is required' });
  t.throws(() => encodeResponse({ code: '0510', fields: { responseCode: '00', commerceCode: '5970123456789', terminalId: 'T' } }), { message: /commerceCode takes at most 12/ });
  t.throws(() => encodeResponse({ code: '0510', fields: { responseCode: '00', commerceCode: '1', terminalId: 'A|B' } }), { message: /printable ASCII without "\|"/ });
});

t.test('property: every response layout round-trips generated values', async (t) => {
  const random = seededRandom(26);
  const pick = (n: number) => Math.floor(random() * n);
  for (const [code, layout] of Object.entries(RESPONSE_LAYOUTS) as Array<[ResponseCode, (typeof RESPONSE_LAYOUTS)[ResponseCode]]>) {
    for (let i = 0; i < 100; i += 1) {
      const fields: Record<string, string | number | boolean | null> = {};
      for (const spec of layout) {
        if (spec.kind === 'reserved') continue;
        const optional = 'optional' in spec && spec.optional === true;
        if (optional && pick(3) === 0) {
          fields[spec.name] = null;
          continue;
        }
        const length = 1 + pick(spec.max);
        if (spec.kind === 'number') fields[spec.name] = pick(10 ** Math.min(length, 9));
        else if (spec.kind === 'digits') fields[spec.name] = Array.from({ length }, () => String(pick(10))).join('');
        else if (spec.kind === 'flag') fields[spec.name] = pick(2) === 1;
        else fields[spec.name] = Array.from({ length }, () => String.fromCharCode(0x20 + pick(0x5c))).join('').replace(/\|/g, '/').replace(/^$/, 'x');
      }
      const back = decodeResponse(encodeResponse({ code, fields }));
      if (JSON.stringify(back.fields) !== JSON.stringify(fields)) {
        t.fail(`${code}: ${JSON.stringify(fields)} came back as ${JSON.stringify(back.fields)}`);
        return;
      }
    }
    t.pass(`${code}: 100 generated messages round-trip`);
  }
});

t.test('response codes: each is described for a technician', async (t) => {
  t.equal(describeResponseCode('00'), '00 (approved)');
  t.equal(describeResponseCode('08'), '08 (a debit sale cannot be refunded)');
  t.equal(describeResponseCode('23'), '23 (not in the reference\'s table)');
  t.ok(isKnownResponseCode('26'));
  t.notOk(isKnownResponseCode('23'));
});
