import t from 'tap';
import type { ProtocolError } from '../../errors.js';
import { seededRandom } from '../../../contracts/common/seeded-random.js';
import { encodeFrame } from '../frame.js';
import {
  decodeRequest,
  decodeResponse,
  encodeRequest,
  encodeResponse,
  REQUEST_LAYOUTS,
  RESPONSE_LAYOUTS,
  type FieldSpec,
  type ResponseCode,
} from './messages.js';
import { describeResponseCode, isKnownResponseCode } from './response-codes.js';

// The messages of the public POS Integrado reference, checked against the
// reference's own worked frames (their bytes and LRC) and against what the
// official SDK writes, which differs from the reference in places.

t.test("the reference's worked frames, byte for byte, LRC included", async (t) => {
  const frames: Array<[Parameters<typeof encodeRequest>[0], number[]]> = [
    [{ code: '0250', fields: {} }, [0x02, 0x30, 0x32, 0x35, 0x30, 0x7c, 0x03, 0x78]],
    [
      { code: '1200', fields: { operationNumber: '10' } },
      [0x02, 0x31, 0x32, 0x30, 0x30, 0x7c, 0x31, 0x30, 0x7c, 0x03, 0x01],
    ],
    [{ code: '0500', fields: {} }, [0x02, 0x30, 0x35, 0x30, 0x30, 0x7c, 0x7c, 0x03, 0x06]],
    [{ code: '0700', fields: {} }, [0x02, 0x30, 0x37, 0x30, 0x30, 0x7c, 0x7c, 0x03, 0x04]],
    [{ code: '0800', fields: {} }, [0x02, 0x30, 0x38, 0x30, 0x30, 0x03, 0x0b]],
    [{ code: '0100', fields: {} }, [0x02, 0x30, 0x31, 0x30, 0x30, 0x03, 0x02]],
    [{ code: '0300', fields: {} }, [0x02, 0x30, 0x33, 0x30, 0x30, 0x03, 0x00]],
  ];
  for (const [message, bytes] of frames) t.same([...encodeFrame(encodeRequest(message))], bytes, message.code);
  t.equal(encodeFrame('0200|123|').at(-1), 0x31, "the reference's LRC example");
});

t.test('requests as the official SDK writes them are read, and as the reference writes them', async (t) => {
  t.same(
    decodeRequest('0200|000015000|000123|||0'),
    { code: '0200', fields: { amount: 15000, ticket: '000123', sendStatus: false } },
    'the SDK: no separator at the end',
  );
  t.same(
    decodeRequest('0200|15000|A1|||1|'),
    { code: '0200', fields: { amount: 15000, ticket: 'A1', sendStatus: true } },
    'the reference: a separator at the end',
  );
  t.same(decodeRequest('0270|000004000|0000M1|||0|597099999999'), {
    code: '0270',
    fields: { amount: 4000, ticket: '0000M1', sendStatus: false, commerceProvider: '597099999999' },
  });
  t.same(
    decodeRequest('0270|4000|M1|| |0|597099999999|'),
    { code: '0270', fields: { amount: 4000, ticket: 'M1', sendStatus: false, commerceProvider: '597099999999' } },
    'a filler in the reserved field',
  );
  t.same(decodeRequest('0260|1|'), { code: '0260', fields: { sendToRegister: true } });
  t.same(decodeRequest('0260|0|'), { code: '0260', fields: { sendToRegister: false } });
  t.same(decodeRequest('1200|10|'), { code: '1200', fields: { operationNumber: '10' } });
  t.same(decodeRequest('0500||'), { code: '0500', fields: {} });
  t.same(decodeRequest('0100'), { code: '0100', fields: {} });
  t.equal(
    encodeRequest({ code: '0200', fields: { amount: 15000, ticket: 'A1', sendStatus: true } }),
    '0200|15000|A1|||1|',
  );
  t.equal(encodeRequest({ code: '0260', fields: { sendToRegister: true } }), '0260|1|');
});

t.test('a request the terminal cannot read is refused, naming the field', async (t) => {
  const refused = (payload: string, field: string | undefined, message: RegExp) => {
    try {
      decodeRequest(payload);
      t.fail(`${payload} was read`);
    } catch (error) {
      t.match(error, { code: 'MESSAGE_INVALID' }, payload);
      t.equal((error as ProtocolError).field, field, `${payload}: the field`);
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
    responseCode: '00',
    commerceCode: '597012345678',
    terminalId: 'TBK00001',
    ticket: 'T00001',
    authorizationCode: '123456',
    amount: 15000,
    sharesNumber: 0,
    sharesAmount: null,
    last4Digits: '6677',
    operationNumber: '000060',
    cardType: 'CR',
    accountingDate: null,
    accountNumber: null,
    cardBrand: 'VI',
    realDate: '28102019',
    realTime: '223512',
    employeeId: null,
    tip: null,
  };
  const written = encodeResponse({ code: '0210', fields: sale });
  t.equal(written, '0210|00|597012345678|TBK00001|T00001|123456|15000|0||6677|000060|CR|||VI|28102019|223512|||');
  t.same(decodeResponse(written), { code: '0210', fields: sale });
  t.equal(
    encodeResponse({
      code: '0510',
      fields: { responseCode: '00', commerceCode: '597012345678', terminalId: 'TBK00001' },
    }),
    '0510|00|597012345678|TBK00001',
  );
  t.equal(
    encodeResponse({ code: '0710', fields: { responseCode: '00', transactionCount: 1, total: 2000 } }),
    '0710|00|1|2000',
    "the reference's totals example",
  );
  t.equal(
    encodeResponse({
      code: '1210',
      fields: {
        responseCode: '00',
        commerceCode: '597012345678',
        terminalId: 'TBK00001',
        authorizationCode: '123456',
        operationNumber: '000061',
      },
    }),
    '1210|00|597012345678|TBK00001|123456|000061',
  );
  t.equal(encodeResponse({ code: '0900', fields: { responseCode: '78' } }), '0900|78|');
  t.throws(() => encodeResponse({ code: '0510', fields: { responseCode: '00', commerceCode: '597012345678' } }), {
    message: '0510 field terminalId is required',
  });
  t.throws(
    () =>
      encodeResponse({ code: '0510', fields: { responseCode: '00', commerceCode: '5970123456789', terminalId: 'T' } }),
    { message: /commerceCode takes at most 12/ },
  );
  t.throws(
    () => encodeResponse({ code: '0510', fields: { responseCode: '00', commerceCode: '1', terminalId: 'A|B' } }),
    { message: /printable ASCII without "\|"/ },
  );
});

t.test(
  'which fields may be empty: a declined or debit sale answer leaves the card fields empty; amounts, codes and operation numbers asked for may not be',
  async (t) => {
    // A debit sale: no shares, no operation number yet, no last 4 digits shown.
    t.strictSame(decodeResponse('0210|00|597012345678|TBK00001|T00001|123456|15000|||||||||||||'), {
      code: '0210',
      fields: {
        responseCode: '00',
        commerceCode: '597012345678',
        terminalId: 'TBK00001',
        ticket: 'T00001',
        authorizationCode: '123456',
        amount: 15000,
        sharesNumber: null,
        sharesAmount: null,
        last4Digits: null,
        operationNumber: null,
        cardType: null,
        accountingDate: null,
        accountNumber: null,
        cardBrand: null,
        realDate: null,
        realTime: null,
        employeeId: null,
        tip: null,
      },
    });
    t.equal(
      encodeResponse({
        code: '0210',
        fields: {
          responseCode: '00',
          commerceCode: '597012345678',
          terminalId: 'TBK00001',
          ticket: 'T00001',
          authorizationCode: '123456',
          amount: 15000,
          sharesNumber: '',
          last4Digits: '',
        },
      }),
      '0210|00|597012345678|TBK00001|T00001|123456|15000|||||||||||||',
      'an optional field given as empty text is written empty',
    );
    t.throws(
      () => decodeRequest('0200||A1|||0'),
      { message: '0200 field amount is required', field: 'amount' },
      'a sale without an amount',
    );
    t.throws(
      () => decodeRequest('1200||'),
      { message: '1200 field operationNumber is required', field: 'operationNumber' },
      'a refund without an operation number',
    );
    t.throws(
      () => encodeRequest({ code: '0200', fields: { amount: '', ticket: 'A1', sendStatus: false } }),
      { message: '0200 field amount is required' },
      'an empty text is as missing as null',
    );
    t.throws(() => encodeRequest({ code: '1200', fields: { operationNumber: '' } }), {
      message: '1200 field operationNumber is required',
    });
    t.throws(
      () => decodeRequest('0200||A1|||0'),
      { name: 'ProtocolError', code: 'MESSAGE_INVALID' },
      'the error says what it is',
    );
  },
);

t.test(
  'property: every field a layout requires is refused when empty, and every optional one is read as null',
  async (t) => {
    const layouts = [
      ...Object.entries(RESPONSE_LAYOUTS).map(([code, layout]) => ({
        code,
        layout: layout as readonly FieldSpec[],
        decode: decodeResponse,
      })),
      ...Object.entries(REQUEST_LAYOUTS).map(([code, layout]) => ({
        code,
        layout: layout as readonly FieldSpec[],
        decode: decodeRequest,
      })),
    ];
    const sample = (spec: FieldSpec) =>
      spec.kind === 'flag' ? '1' : spec.kind === 'reserved' ? '' : spec.kind === 'text' ? 'A' : '7';
    for (const { code, layout, decode } of layouts) {
      if (layout.length === 0) continue;
      layout.forEach((blank, index) => {
        if (blank.kind === 'reserved') return;
        const payload = [code, ...layout.map((spec, i) => (i === index ? '' : sample(spec)))].join('|');
        if (blank.optional === true)
          t.equal(decode(payload).fields[blank.name], null, `${code} ${blank.name} may be empty`);
        else
          t.throws(
            () => decode(payload),
            { message: `${code} field ${blank.name} is required` },
            `${code} ${blank.name} may not be empty`,
          );
      });
    }
    // The optional ones, by the reference: a sale answer's ticket and authorisation code (empty when declined), shares, last 4 digits and operation number; its card and time fields.
    const optional = (code: ResponseCode) =>
      (RESPONSE_LAYOUTS[code] as readonly FieldSpec[])
        .filter((spec) => spec.optional === true)
        .map((spec) => spec.name);
    t.strictSame(optional('0210'), [
      'ticket',
      'authorizationCode',
      'sharesNumber',
      'sharesAmount',
      'last4Digits',
      'operationNumber',
      'cardType',
      'accountingDate',
      'accountNumber',
      'cardBrand',
      'realDate',
      'realTime',
      'employeeId',
      'tip',
    ]);
  },
);

t.test("optional fields left off the end are read as null, as a detail's closing line sends them", async (t) => {
  const last = decodeResponse('0261|00|597012345678|TBK00001');
  t.equal(last.fields.terminalId, 'TBK00001');
  t.equal(last.fields.amount, null);
  t.equal(last.fields.sharesNumber, null);
  t.equal(last.fields.ticket, null);
});

t.test('flags: written 1 or 0 from a boolean or its text, read as a boolean', async (t) => {
  const sale = (sendStatus: boolean | string) =>
    encodeRequest({ code: '0200', fields: { amount: 100, ticket: 'A1', sendStatus } });
  t.equal(sale(true), '0200|100|A1|||1|');
  t.equal(sale('1'), '0200|100|A1|||1|');
  t.equal(sale(false), '0200|100|A1|||0|');
  t.equal(sale('0'), '0200|100|A1|||0|');
  t.strictSame(decodeRequest('0200|100|A1|||1').fields.sendStatus, true);
  t.strictSame(decodeRequest('0200|100|A1|||0').fields.sendStatus, false);
  t.strictSame(decodeRequest('0260|1|').fields.sendToRegister, true);
  t.equal(
    encodeRequest({
      code: '0200',
      fields: { amount: 100, ticket: 'A1', empty1: 'filler', empty2: 'x', sendStatus: true },
    }),
    '0200|100|A1|||1|',
    'a reserved field is written empty, whatever it was given',
  );
});

t.test('multicode sales end with a separator, as a sale does', async (t) => {
  t.equal(
    encodeRequest({
      code: '0270',
      fields: { amount: 4000, ticket: 'M1', sendStatus: false, commerceProvider: '597099999999' },
    }),
    '0270|4000|M1|||0|597099999999|',
  );
  const answer = encodeResponse({
    code: '0271',
    fields: {
      responseCode: '00',
      commerceCode: '597012345678',
      terminalId: 'TBK00001',
      ticket: 'M1',
      authorizationCode: '123456',
      amount: 4000,
      change: 0,
      commerceProvider: '597099999999',
    },
  });
  t.equal(answer, '0271|00|597012345678|TBK00001|M1|123456|4000||||||||||||||0|597099999999|');
});

t.test('property: every response layout round-trips generated values', async (t) => {
  const random = seededRandom(26);
  const pick = (n: number) => Math.floor(random() * n);
  for (const [code, layout] of Object.entries(RESPONSE_LAYOUTS) as Array<
    [ResponseCode, (typeof RESPONSE_LAYOUTS)[ResponseCode]]
  >) {
    for (let i = 0; i < 100; i += 1) {
      const fields: Record<string, string | number | boolean | null> = {};
      for (const spec of layout) {
        if (spec.kind === 'reserved') continue;
        const optional = 'optional' in spec && spec.optional === true;
        if (optional && pick(3) === 0) {
          fields[spec.name] = null;
          continue;
        }
        const length = 1 + pick(spec.max ?? 12);
        if (spec.kind === 'number') fields[spec.name] = pick(10 ** Math.min(length, 9));
        else if (spec.kind === 'digits') fields[spec.name] = Array.from({ length }, () => String(pick(10))).join('');
        else if (spec.kind === 'flag') fields[spec.name] = pick(2) === 1;
        else
          fields[spec.name] = Array.from({ length }, () => String.fromCharCode(0x20 + pick(0x5c)))
            .join('')
            .replace(/\|/g, '/')
            .replace(/^$/, 'x');
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
  t.equal(describeResponseCode('00', '0200'), '00 (approved)');
  t.equal(describeResponseCode('08', '1200'), '08 (a debit sale cannot be refunded)');
  t.equal(describeResponseCode('05', '1200'), '05 (no such transaction to refund)');
  // A meaning depends on the message answered: a declined sale is not a refund.
  t.equal(
    describeResponseCode('05', '0200'),
    "05 (refused; the code is a refund's, where it means: no such transaction to refund)",
  );
  t.equal(describeResponseCode('05', '0270'), describeResponseCode('05', '0200'), 'a multicode sale as a sale');
  t.equal(describeResponseCode('11', '0250'), '11 (no sale since the day was closed)');
  t.equal(describeResponseCode('11', '1200'), '11 (no sale with that operation number)');
  t.equal(describeResponseCode('01', '0200'), '01 (rejected)');
  t.equal(describeResponseCode('23', '0200'), "23 (not in the reference's table)");
  t.ok(isKnownResponseCode('26'));
  t.notOk(isKnownResponseCode('23'));
});

t.test('the multicode last sale and detail, as the reference and the SDKs write them', async (t) => {
  // The reference's worked frame of 0280 (no separator after the flag), byte for byte. Its printed LRC, 0x75, is not the
  // XOR of its own bytes (0x44, as every SDK computes it and as the reference's rule says): the rule is kept.
  t.same([...encodeFrame('0280|1')], [0x02, 0x30, 0x32, 0x38, 0x30, 0x7c, 0x31, 0x03, 0x44]);
  t.same(decodeRequest('0280|1'), { code: '0280', fields: { voucher: true } }, 'as the Python SDK sends it');
  t.same(decodeRequest('0280|0|'), { code: '0280', fields: { voucher: false } });
  t.same(decodeRequest('0290|1|'), { code: '0290', fields: { sendToRegister: true } });
  t.throws(() => decodeRequest('0280|'), { code: 'MESSAGE_INVALID' }, 'the voucher flag is required');
  const answer = decodeResponse(
    '0281|00|597012345678|TBK00001|A1|123456|2000|0||4242|000001|CR|||VI|24112026|130509|||VOUCHER TEXT|0|597099999999',
  );
  t.match(answer.fields, {
    responseCode: '00',
    ticket: 'A1',
    amount: 2000,
    voucher: 'VOUCHER TEXT',
    change: 0,
    commerceProvider: '597099999999',
  });
  const line = decodeResponse(
    '0291|00|597012345678|TBK00001|A1|123456|2000|4242|000001|CR|||VI|24112026|130509||||0|0|597099999999',
  );
  t.match(line.fields, {
    ticket: 'A1',
    amount: 2000,
    operationNumber: '000001',
    change: 0,
    commerceProvider: '597099999999',
  });
});
