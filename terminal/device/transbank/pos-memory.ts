// What an emulated Transbank POS keeps in its memory (and the emulator in
// --state): the open batch with each sale, the operation counter, the last sale.

export type CardType = 'CR' | 'DB';

export interface PosSale {
  ticket: string;
  authorizationCode: string;
  amount: number;
  operationNumber: string;
  cardType: CardType;
  cardBrand: string;
  last4Digits: string;
  /** DDMMYYYY and HHMMSS, the terminal's clock at the sale. */
  realDate: string;
  realTime: string;
  /** Debit sales only: the accounting date (DDMMYY) and the account. */
  accountingDate: string;
  accountNumber: string;
  sharesNumber: number;
  /** Multicode sales: the provider's commerce code. */
  commerceProvider?: string;
  refunded?: boolean;
}

export interface PosState {
  /** The terminal id printed on vouchers: at most 8 characters. */
  terminalId: string;
  /** The merchant's commerce code: 12 digits. */
  commerceCode: string;
  keysLoaded: boolean;
  /** `normal` after "change to normal POS": the terminal no longer answers the cash register. */
  mode: 'integrated' | 'normal';
  nextOperation: number;
  /** Sales since the last close, oldest first. */
  batch: PosSale[];
  lastSale: PosSale | null;
  /** Days closed on this terminal. */
  closes: number;
  /**
   * Sales its closes counted, over all of them (those not refunded when the
   * day closed): what the settlements its closes sent must add up to. Kept
   * with the rest of its memory, so a count survives a kill that a log line
   * written after the change would not.
   */
  settledSales: number;
}

export function newPos(terminalId: string, commerceCode = '597000000001'): PosState {
  return {
    terminalId: terminalId.slice(0, 8),
    commerceCode,
    keysLoaded: true,
    mode: 'integrated',
    nextOperation: 1,
    batch: [],
    lastSale: null,
    closes: 0,
    settledSales: 0,
  };
}
