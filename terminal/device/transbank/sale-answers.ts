// What the emulated POS answers of a sale it holds: the fields of a sale's
// answer (0210/0260/0271), the multicode additions, and the voucher as the
// terminal prints it.
import type { Fields, TransbankMessage, ResponseCode } from '../../protocol/transbank/messages.js';
import { APPROVED } from '../../protocol/transbank/response-codes.js';
import type { PosSale, PosState } from './pos-memory.js';

/** What a multicode answer adds to a sale: the change given (none: the emulator gives no cash back) and the provider's commerce code (0 for a sale that was not multicode). */
export const multicodeFields = (sale: PosSale): Fields => ({
  change: 0,
  commerceProvider: sale.commerceProvider ?? '0',
});

/** The last sale as a multicode terminal answers it (0281): with its voucher when asked, as 40-character lines run together. */
export function multicodeLastSaleAnswer(state: PosState, withVoucher: boolean): TransbankMessage<ResponseCode> {
  if (!state.lastSale)
    return {
      code: '0281',
      fields: { responseCode: '11', commerceCode: state.commerceCode, terminalId: state.terminalId, amount: 0 },
    };
  const sale = state.lastSale;
  return {
    code: '0281',
    fields: {
      ...saleAnswerFields(state, sale),
      voucher: withVoucher ? voucherOf(state, sale) : '',
      ...multicodeFields(sale),
    },
  };
}

/** A sale's voucher as a terminal prints it: 40-character lines, plain ASCII, no separator. */
export function voucherOf(state: PosState, sale: PosSale): string {
  const line = (text: string) => text.slice(0, 40).padEnd(40, ' ');
  const amount = `$${sale.amount.toLocaleString('en-US').replace(/,/g, '.')}`;
  return [
    line(`           COMPROBANTE DE VENTA`),
    line(
      `COMERCIO ${state.commerceCode}${sale.commerceProvider && sale.commerceProvider !== '0' ? ` / ${sale.commerceProvider}` : ''}`,
    ),
    line(`TERMINAL ${state.terminalId}`),
    line(
      `FECHA ${sale.realDate.slice(0, 2)}/${sale.realDate.slice(2, 4)}/${sale.realDate.slice(4)} ${sale.realTime.slice(0, 2)}:${sale.realTime.slice(2, 4)}`,
    ),
    line(`${sale.cardType === 'DB' ? 'DEBITO' : 'CREDITO'} ****${sale.last4Digits}`),
    line(`BOLETA ${sale.ticket}  OPERACION ${sale.operationNumber}`),
    line(`AUTORIZACION ${sale.authorizationCode}`),
    line(`TOTAL ${amount}${sale.refunded ? '  ANULADA' : ''}`),
  ].join('');
}

export function saleAnswerFields(state: PosState, sale: PosSale): Fields {
  return {
    responseCode: APPROVED,
    commerceCode: state.commerceCode,
    terminalId: state.terminalId,
    ticket: sale.ticket,
    authorizationCode: sale.authorizationCode,
    amount: sale.amount,
    sharesNumber: sale.sharesNumber,
    sharesAmount: null,
    last4Digits: sale.last4Digits,
    operationNumber: sale.operationNumber,
    cardType: sale.cardType,
    accountingDate: sale.accountingDate,
    accountNumber: sale.accountNumber,
    cardBrand: sale.cardBrand,
    realDate: sale.realDate,
    realTime: sale.realTime,
    employeeId: null,
    tip: null,
  };
}

export function detailFields(sale: PosSale): Fields {
  const {
    responseCode: _rc,
    commerceCode: _cc,
    terminalId: _tid,
    sharesNumber,
    ...rest
  } = saleAnswerFields({ commerceCode: '', terminalId: '' } as PosState, sale);
  return { ...rest, sharesNumber };
}

const two = (value: number) => String(value).padStart(2, '0');
export const ddmmyyyy = (at: Date) => `${two(at.getUTCDate())}${two(at.getUTCMonth() + 1)}${at.getUTCFullYear()}`;
export const hhmmss = (at: Date) => `${two(at.getUTCHours())}${two(at.getUTCMinutes())}${two(at.getUTCSeconds())}`;
