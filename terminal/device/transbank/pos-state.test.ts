import t from 'tap';
import {
  decodeRequest,
  encodeResponse,
  type RequestCode,
  type TransbankMessage,
} from '../../protocol/transbank/messages.js';
import { isKnownResponseCode } from '../../protocol/transbank/response-codes.js';
import { answerRequest, newPos, outcomeFor, type PosState, type SaleContext, type ChosenOutcome } from './pos-state.js';

// The emulated Transbank POS as a cash register sees it, request by
// request: what it answers (as the frames' payloads) and what it keeps.

const NOW = new Date('2026-11-24T13:05:09Z');
const approved = (cardType: 'CR' | 'DB' = 'CR'): ChosenOutcome => ({ approve: true, cardType });
const context =
  (outcome: ChosenOutcome = approved(), authorizationCode = '654321'): (() => SaleContext) =>
  () => ({ outcome, authorizationCode, last4Digits: '4242', now: NOW });

function ask(state: PosState, payload: string, sale = context()) {
  const reply = answerRequest(state, decodeRequest(payload) as TransbankMessage<RequestCode>, sale);
  return {
    ...reply,
    frames: reply.answers.map((each) => encodeResponse(each)),
    statusFrames: reply.status.map((each) => encodeResponse(each)),
  };
}

const pos = () => newPos('TBK00001', '597012345678');

t.test('a new terminal: keys loaded, integrated mode, operation 1, an empty batch, no last sale', async (t) => {
  t.same(pos(), {
    terminalId: 'TBK00001',
    commerceCode: '597012345678',
    keysLoaded: true,
    mode: 'integrated',
    nextOperation: 1,
    batch: [],
    lastSale: null,
    closes: 0,
    settledSales: 0,
  });
  t.equal(newPos('TERMINAL-LONG').terminalId, 'TERMINAL', 'a terminal id is 8 characters at most');
  t.equal(newPos('T1').commerceCode, '597000000001', 'a default commerce code');
});

t.test('an approved sale: the answer carries every field, the sale is kept as the last and in the batch', async (t) => {
  const { frames, state, statusFrames } = ask(pos(), '0200|000015000|T00001|||0');
  t.same(frames, ['0210|00|597012345678|TBK00001|T00001|654321|15000|0||4242|000001|CR|||VI|24112026|130509|||']);
  t.same(statusFrames, [], 'no status messages unless asked');
  t.equal(state.nextOperation, 2);
  t.same(state.lastSale, state.batch[0]);
  t.match(state.batch[0], {
    ticket: 'T00001',
    amount: 15000,
    operationNumber: '000001',
    cardType: 'CR',
    cardBrand: 'VI',
    realDate: '24112026',
    realTime: '130509',
    accountingDate: '',
    accountNumber: '',
  });
});

t.test(
  'with status asked: 78 to 82 on credit, without 80 (instalments) on debit; a refusal sends only the first',
  async (t) => {
    t.same(ask(pos(), '0200|100|A|||1').statusFrames, ['0900|78|', '0900|79|', '0900|80|', '0900|81|', '0900|82|']);
    t.same(ask(pos(), '0200|100|A|||1', context(approved('DB'))).statusFrames, [
      '0900|78|',
      '0900|79|',
      '0900|81|',
      '0900|82|',
    ]);
    t.same(ask(pos(), '0200|100|A|||1', context({ approve: false, responseCode: '09' })).statusFrames, ['0900|78|']);
  },
);

t.test('a debit sale keeps its accounting date and account, and is named DB', async (t) => {
  const { state } = ask(pos(), '0200|2500|D1|||0', context(approved('DB')));
  t.match(state.lastSale, {
    cardType: 'DB',
    cardBrand: 'DB',
    accountingDate: '241126',
    accountNumber: '000000000004242',
  });
});

t.test('refusals: the code chosen, 72 for a zero amount, 26 without keys; nothing is kept', async (t) => {
  const refused = ask(pos(), '0200|100|R1|||0', context({ approve: false, responseCode: '05' }));
  t.same(refused.frames, ['0210|05|597012345678|TBK00001|R1||100|||||||||||||']);
  t.same(refused.state, pos());
  t.same(ask(pos(), '0200|0|Z|||0').frames, ['0210|72|597012345678|TBK00001|Z||0|||||||||||||']);
  t.same(ask({ ...pos(), keysLoaded: false }, '0200|100|K|||0').frames, [
    '0210|26|597012345678|TBK00001|K||100|||||||||||||',
  ]);
  t.same(
    ask(pos(), '0270|100|R1|||0|597099999999', context({ approve: false, responseCode: '01' })).frames[0]!.slice(0, 8),
    '0271|01|',
    'a multicode refusal answers 0271',
  );
});

t.test("a multicode sale answers 0271 with the change and the provider's commerce code", async (t) => {
  const { frames, state } = ask(pos(), '0270|4000|M1|||0|597099999999');
  t.equal(
    frames[0],
    '0271|00|597012345678|TBK00001|M1|654321|4000|0||4242|000001|CR|||VI|24112026|130509||||0|597099999999|',
  );
  t.equal(state.lastSale!.commerceProvider, '597099999999');
  t.equal(ask(pos(), '0270|4000|M1|||0|').state.lastSale!.commerceProvider, '0', 'not multicode: 0, as the SDK sends');
});

t.test('the last sale: the one made, as 0260; none yet answers 11', async (t) => {
  t.same(ask(pos(), '0250|').frames, ['0260|11|597012345678|TBK00001|||0|||||||||||||']);
  const { state } = ask(pos(), '0200|15000|T1|||0');
  t.equal(
    ask(state, '0250|').frames[0],
    '0260|00|597012345678|TBK00001|T1|654321|15000|0||4242|000001|CR|||VI|24112026|130509|||',
  );
});

t.test('refunds by operation number: once, credit only, and only of a sale in the batch', async (t) => {
  let state = ask(pos(), '0200|1000|A|||0').state;
  state = ask(state, '0200|2000|B|||0', context(approved('DB'), '111111')).state;
  const refund = ask(state, '1200|1|');
  t.same(refund.frames, ['1210|00|597012345678|TBK00001|654321|000003']);
  t.equal(refund.state.nextOperation, 4, 'a refund takes an operation number of its own');
  t.equal(refund.state.batch[0]!.refunded, true);
  t.equal(refund.state.lastSale!.refunded, undefined, 'the last sale is B, not refunded');
  t.same(
    ask(refund.state, '1200|000001|').frames,
    ['1210|04|597012345678|TBK00001||'],
    'refunded already: 04, whatever the zeros',
  );
  t.same(ask(state, '1200|2|').frames, ['1210|08|597012345678|TBK00001||'], 'debit: 08');
  t.same(ask(state, '1200|9|').frames, ['1210|05|597012345678|TBK00001||'], 'no such sale: 05');
  const lastRefunded = ask(ask(pos(), '0200|1000|A|||0').state, '1200|1|').state;
  t.equal(lastRefunded.lastSale!.refunded, true, 'refunding the last sale marks it');
});

t.test(
  'totals count the sales not refunded; the close answers 0510 and empties the batch, the last sale stays',
  async (t) => {
    let state = ask(pos(), '0200|1000|A|||0').state;
    state = ask(state, '0200|2000|B|||0').state;
    state = ask(state, '1200|1|').state;
    t.same(ask(state, '0700||').frames, ['0710|00|1|2000']);
    const closed = ask(state, '0500||');
    t.same(closed.frames, ['0510|00|597012345678|TBK00001']);
    t.same(closed.state.batch, []);
    t.equal(closed.state.closes, 1);
    t.equal(
      closed.state.settledSales,
      state.batch.filter((sale) => !sale.refunded).length,
      'the close counts what it settled',
    );
    t.equal(ask(closed.state, '0500||').state.settledSales, closed.state.settledSales, 'an empty close adds nothing');
    t.equal(closed.state.lastSale!.ticket, 'B');
    t.same(ask(closed.state, '0700||').frames, ['0710|00|0|0']);
  },
);

t.test(
  'the sales detail: one 0261 per sale then an empty one to the register; nothing when printed on the terminal',
  async (t) => {
    let state = ask(pos(), '0200|1000|A|||0').state;
    state = ask(state, '0200|2000|B|||0', context(approved(), '222222')).state;
    const detail = ask(state, '0260|1|');
    t.same(detail.frames, [
      '0261|00|597012345678|TBK00001|A|654321|1000|4242|000001|CR|||VI|24112026|130509||||0',
      '0261|00|597012345678|TBK00001|B|222222|2000|4242|000002|CR|||VI|24112026|130509||||0',
      '0261|00|597012345678|TBK00001|||||||||||||||',
    ]);
    const printed = ask(state, '0260|0|');
    t.same(printed.frames, []);
    t.equal(printed.note, 'sales detail printed on the terminal');
  },
);

t.test('poll and load keys; change to normal POS silences the terminal until its operator switches back', async (t) => {
  t.same(ask(pos(), '0100').frames, [], 'a poll: the ACK only');
  t.same(ask({ ...pos(), keysLoaded: false }, '0800').frames, ['0810|00|597012345678|TBK00001']);
  t.equal(ask({ ...pos(), keysLoaded: false }, '0800').state.keysLoaded, true);
  const normal = ask(pos(), '0300');
  t.same(normal.frames, []);
  t.equal(normal.state.mode, 'normal');
  const ignored = ask(normal.state, '0200|100|A|||0');
  t.same(ignored.frames, []);
  t.match(ignored.note, /normal POS mode/);
  t.same(ignored.state, normal.state, 'no sale in normal mode');
});

t.test('operation numbers wrap after 999999', async (t) => {
  const { state } = ask({ ...pos(), nextOperation: 999_999 }, '0200|100|A|||0');
  t.equal(state.lastSale!.operationNumber, '999999');
  t.equal(state.nextOperation, 1);
});

t.test(
  "outcomes: amounts of 1 to 99 refuse with that code when the table has it; the operator's choice comes first",
  async (t) => {
    t.same(outcomeFor(5, null, isKnownResponseCode), { approve: false, responseCode: '05' });
    t.same(outcomeFor(1, null, isKnownResponseCode), { approve: false, responseCode: '01' });
    t.same(outcomeFor(99, null, isKnownResponseCode), { approve: true, cardType: 'CR' }, '99 is not in the table');
    t.same(outcomeFor(95, null, isKnownResponseCode), { approve: false, responseCode: '95' });
    t.same(outcomeFor(23, null, isKnownResponseCode), { approve: true, cardType: 'CR' }, '23 is not in the table');
    t.same(
      outcomeFor(78, null, isKnownResponseCode),
      { approve: true, cardType: 'CR' },
      'a status code is not a refusal',
    );
    t.same(outcomeFor(82, null, isKnownResponseCode), { approve: true, cardType: 'CR' });
    t.same(outcomeFor(100, null, isKnownResponseCode), { approve: true, cardType: 'CR' });
    t.same(
      outcomeFor(0, null, isKnownResponseCode),
      { approve: true, cardType: 'CR' },
      'zero is refused by the sale itself (72)',
    );
    t.same(outcomeFor(5, approved('DB'), isKnownResponseCode), approved('DB'));
  },
);

t.test(
  'the multicode last sale (0280): answered 0281 with the sale, the voucher when asked, the change and the provider',
  async (t) => {
    t.match(
      ask(pos(), '0280|1').frames,
      [/^0281\|11\|597012345678\|TBK00001\|/],
      'no sale yet: 11, as the last sale answers',
    );
    const { state } = ask(pos(), '0270|000002000|M00001|||0|597099999999');
    const [bare] = ask(state, '0280|0').frames;
    // As the official SDKs read it (split on "|"): 19 the voucher, 20 the change, 21 the provider.
    const fields = bare!.split('|');
    t.same([fields[0], fields[1], fields[4], fields[6], fields[10]], ['0281', '00', 'M00001', '2000', '000001']);
    t.same(
      [fields[19], fields[20], fields[21]],
      ['', '0', '597099999999'],
      'without the voucher: empty, the change, the provider',
    );
    const [full] = ask(state, '0280|1').frames;
    const voucher = full!.split('|')[19]!;
    t.equal(voucher.length % 40, 0, 'the voucher: 40-character lines run together');
    t.match(voucher, /COMPROBANTE DE VENTA.*M00001.*OPERACION 000001.*\$2\.000/);
    t.same(full!.split('|').slice(20, 22), ['0', '597099999999']);
    const { state: plain } = ask(pos(), '0200|000001500|P00001|||0');
    t.same(
      ask(plain, '0280|0').frames[0]!.split('|').slice(19, 22),
      ['', '0', '0'],
      'a sale that was not multicode: provider 0',
    );
  },
);

t.test(
  'the multicode sales detail (0290): one 0291 a sale with change and provider, then an empty one; nothing when printed',
  async (t) => {
    let state = ask(pos(), '0270|000002000|M00001|||0|597099999999').state;
    state = ask(state, '0200|000001500|P00001|||0').state;
    const { frames } = ask(state, '0290|1|');
    t.equal(frames.length, 3);
    const first = frames[0]!.split('|');
    t.same([first[0], first[1], first[4], first[6], first[8]], ['0291', '00', 'M00001', '2000', '000001']);
    t.same([first[19], first[20]], ['0', '597099999999'], 'as the SDKs read it: 19 the change, 20 the provider');
    t.same(frames[1]!.split('|').slice(19, 21), ['0', '0']);
    t.match(frames[2], /^0291\|00\|597012345678\|TBK00001\|+$/, 'the end: nothing after the terminal');
    t.same(ask(state, '0290|0|').frames, [], 'printed on the terminal: nothing to the register');
  },
);
