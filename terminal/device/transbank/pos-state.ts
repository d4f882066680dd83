import type { Fields, TransbankMessage, RequestCode, ResponseCode } from '../../protocol/transbank/messages.js';
import { APPROVED, INTERMEDIATE_CODES } from '../../protocol/transbank/response-codes.js';
import {
  detailFields,
  multicodeFields,
  multicodeLastSaleAnswer,
  saleAnswerFields,
  ddmmyyyy,
  hhmmss,
} from './sale-answers.js';
import type { CardType, PosSale, PosState } from './pos-memory.js';
export { newPos, type CardType, type PosSale, type PosState } from './pos-memory.js';

// An emulated Transbank POS Integrado, as pure functions: a request from
// the cash register and the device's state in; the frames it answers with
// and the state after out. What a real terminal keeps in its memory is
// here, and the emulator writes it to --state before it answers: the open
// batch with each sale, the operation counter, the last sale.

/** How the next sale ends: approved with a card, or refused with a response code. */
export type ChosenOutcome = { approve: true; cardType: CardType } | { approve: false; responseCode: string };

/**
 * The outcome chosen for a sale, the way test cards choose one: an amount
 * of 1 to 99 pesos is refused with that response code when the table has
 * it (5 → 05, 26 → 26); any other amount is approved on a credit card. An
 * outcome the operator set for the next sale takes precedence.
 */
export function outcomeFor(
  amount: number,
  operatorChoice: ChosenOutcome | null,
  knownCode: (code: string) => boolean,
): ChosenOutcome {
  if (operatorChoice) return operatorChoice;
  const code = String(amount).padStart(2, '0');
  if (
    amount >= 1 &&
    amount <= 99 &&
    code !== APPROVED &&
    knownCode(code) &&
    !INTERMEDIATE_CODES.includes(code as never)
  )
    return { approve: false, responseCode: code };
  return { approve: true, cardType: 'CR' };
}

/** What the terminal sends after its ACK: intermediate status frames first (when asked), then the answers. */
export interface PosReply {
  state: PosState;
  /** Status frames of a running sale (0900), each after the card delay's share. */
  status: Array<TransbankMessage<ResponseCode>>;
  /** The answers, in order (several for a sales detail); none for poll, change to normal, or a detail printed on the POS. */
  answers: Array<TransbankMessage<ResponseCode>>;
  /** Why nothing is answered, for the log (normal mode). */
  note?: string;
}

/** What a sale needs from outside the pure state: the outcome, an authorisation code, the card's last digits, the time. */
export interface SaleContext {
  outcome: ChosenOutcome;
  authorizationCode: string;
  last4Digits: string;
  now: Date;
}

export function answerRequest(
  state: PosState,
  request: TransbankMessage<RequestCode>,
  sale: () => SaleContext,
): PosReply {
  const head = { responseCode: APPROVED, commerceCode: state.commerceCode, terminalId: state.terminalId };
  const none = (note?: string): PosReply => ({ state, status: [], answers: [], ...(note ? { note } : {}) });
  if (state.mode === 'normal')
    return none('in normal POS mode: the terminal does not answer the cash register (operator: integrated)');
  switch (request.code) {
    case '0100':
      return none();
    case '0300':
      return { ...none(), state: { ...state, mode: 'normal' } };
    case '0800':
      return { state: { ...state, keysLoaded: true }, status: [], answers: [{ code: '0810', fields: head }] };
    case '0200':
    case '0270':
      return runSale(state, request as TransbankMessage<'0200' | '0270'>, sale());
    case '0250':
      return { state, status: [], answers: [lastSaleAnswer(state)] };
    case '1200':
      return refund(state, String(request.fields.operationNumber));
    case '0500':
      return {
        state: {
          ...state,
          batch: [],
          closes: state.closes + 1,
          settledSales: state.settledSales + state.batch.filter((sale) => !sale.refunded).length,
        },
        status: [],
        answers: [{ code: '0510', fields: head }],
      };
    case '0700': {
      const counted = state.batch.filter((each) => !each.refunded);
      const total = counted.reduce((sum, each) => sum + each.amount, 0);
      return {
        state,
        status: [],
        answers: [{ code: '0710', fields: { responseCode: APPROVED, transactionCount: counted.length, total } }],
      };
    }
    case '0260':
      if (request.fields.sendToRegister !== true) return none('sales detail printed on the terminal');
      return {
        state,
        status: [],
        answers: [
          ...state.batch.map((each) => ({ code: '0261' as const, fields: { ...head, ...detailFields(each) } })),
          { code: '0261', fields: head },
        ],
      };
    case '0280':
      return { state, status: [], answers: [multicodeLastSaleAnswer(state, request.fields.voucher === true)] };
    case '0290':
      if (request.fields.sendToRegister !== true) return none('multicode sales detail printed on the terminal');
      return {
        state,
        status: [],
        answers: [
          ...state.batch.map((each) => ({
            code: '0291' as const,
            fields: { ...head, ...detailFields(each), ...multicodeFields(each) },
          })),
          { code: '0291', fields: head },
        ],
      };
  }
}

function runSale(state: PosState, request: TransbankMessage<'0200' | '0270'>, context: SaleContext): PosReply {
  const amount = request.fields.amount as number;
  const ticket = request.fields.ticket as string;
  const multicode = request.code === '0270';
  const statusFrames =
    request.fields.sendStatus === true
      ? INTERMEDIATE_CODES.map((code) => ({ code: '0900' as const, fields: { responseCode: code } }))
      : [];
  const refused = (responseCode: string): PosReply => ({
    state,
    status: statusFrames.slice(0, 1),
    answers: [
      {
        code: multicode ? '0271' : '0210',
        fields: { responseCode, commerceCode: state.commerceCode, terminalId: state.terminalId, ticket, amount },
      },
    ],
  });
  if (amount <= 0) return refused('72');
  if (!state.keysLoaded) return refused('26');
  if (!context.outcome.approve) return refused(context.outcome.responseCode);
  const debit = context.outcome.cardType === 'DB';
  const sale: PosSale = {
    ticket,
    authorizationCode: context.authorizationCode,
    amount,
    operationNumber: String(state.nextOperation).padStart(6, '0'),
    cardType: context.outcome.cardType,
    cardBrand: debit ? 'DB' : 'VI',
    last4Digits: context.last4Digits,
    realDate: ddmmyyyy(context.now),
    realTime: hhmmss(context.now),
    accountingDate: debit ? ddmmyyyy(context.now).slice(0, 4) + ddmmyyyy(context.now).slice(6) : '',
    accountNumber: debit ? `${'0'.repeat(11)}${context.last4Digits}` : '',
    sharesNumber: 0,
    ...(multicode ? { commerceProvider: String(request.fields.commerceProvider ?? '0') } : {}),
  };
  const next: PosState = {
    ...state,
    nextOperation: (state.nextOperation % 999_999) + 1,
    batch: [...state.batch, sale],
    lastSale: sale,
  };
  const fields: Fields = { ...saleAnswerFields(state, sale) };
  return {
    state: next,
    // Credit asks for instalments (80); debit does not.
    status: statusFrames.filter((frame) => !(debit && frame.fields.responseCode === '80')),
    answers: [
      multicode
        ? { code: '0271', fields: { ...fields, change: 0, commerceProvider: sale.commerceProvider ?? null } }
        : { code: '0210', fields },
    ],
  };
}

function lastSaleAnswer(state: PosState): TransbankMessage<ResponseCode> {
  if (!state.lastSale)
    return {
      code: '0260',
      fields: { responseCode: '11', commerceCode: state.commerceCode, terminalId: state.terminalId, amount: 0 },
    };
  return { code: '0260', fields: saleAnswerFields(state, state.lastSale) };
}

function refund(state: PosState, operationNumber: string): PosReply {
  const head = { commerceCode: state.commerceCode, terminalId: state.terminalId };
  const refused = (responseCode: string): PosReply => ({
    state,
    status: [],
    answers: [{ code: '1210', fields: { ...head, responseCode } }],
  });
  const index = state.batch.findIndex((each) => Number(each.operationNumber) === Number(operationNumber));
  const sale = state.batch[index];
  if (!sale) return refused('05');
  if (sale.refunded) return refused('04');
  if (sale.cardType === 'DB') return refused('08');
  const refundNumber = String(state.nextOperation).padStart(6, '0');
  const batch = state.batch.map((each, at) => (at === index ? { ...each, refunded: true } : each));
  const lastSale =
    state.lastSale?.operationNumber === sale.operationNumber ? { ...state.lastSale, refunded: true } : state.lastSale;
  return {
    state: { ...state, batch, lastSale, nextOperation: (state.nextOperation % 999_999) + 1 },
    status: [],
    answers: [
      {
        code: '1210',
        fields: {
          ...head,
          responseCode: APPROVED,
          authorizationCode: sale.authorizationCode,
          operationNumber: refundNumber,
        },
      },
    ],
  };
}
